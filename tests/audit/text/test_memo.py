"""The memo of normalized quotes (text/memo.py) gives the reference tokenizer's value for every text."""

from __future__ import annotations

import pytest
from claimgate.audit.text import memo
from claimgate.audit.text.reference import normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.text.strategies import TRIGGER_TEXT, real_docstrings

_QUOTE = TRIGGER_TEXT | st.text(max_size=40)


@pytest.fixture(autouse=True)
def _empty_memo():
    memo.forget()
    yield
    memo.forget()


@settings(max_examples=300, deadline=None)
@given(st.lists(_QUOTE, max_size=8))
def test_remembered_quotes_equal_the_reference(quotes: list[str]) -> None:
    memo.remember(quotes)
    for quote in quotes:
        assert memo.normalized(quote) == normalize_text_reference(quote)


def test_real_docstrings_remembered_equal_the_reference() -> None:
    docs = real_docstrings()
    assert memo.remember(docs) > 0.9 * len(docs)  # the array rules cover almost every real text
    for doc in docs:
        assert memo.normalized(doc) == normalize_text_reference(doc), doc[:200]


def test_a_text_left_to_the_reference_is_not_held_and_still_answered() -> None:
    quotes = ["mail ops.team@corp.example now", "a soft\u00ad\nhyphen", "plain words here"]
    assert memo.remember(quotes) == 1  # the e-mail address and the soft hyphen go to the reference
    for quote in quotes:
        assert memo.normalized(quote) == normalize_text_reference(quote)


def test_items_that_are_not_str_are_skipped_and_the_reference_error_kept() -> None:
    assert memo.remember([None, 3.5, "a b c"]) == 1
    with pytest.raises(TypeError):
        memo.normalized(None)  # type: ignore[arg-type]


def test_the_memo_is_bounded_and_drops_its_oldest_texts(monkeypatch) -> None:
    monkeypatch.setattr(memo, "MEMO_TEXTS", 3)
    monkeypatch.setattr(memo, "BATCH_TEXTS", 2)
    texts = [f"quote number {i}" for i in range(5)]
    assert memo.remember(texts) == 5
    assert list(memo._memo) == texts[2:]
    assert memo.normalized(texts[0]) == normalize_text_reference(texts[0])  # recomputed, then held
    assert len(memo._memo) == 3


def test_a_repeated_quote_is_normalized_once() -> None:
    assert memo.remember(["the same quote", "the same quote"]) == 1
    assert memo.remember(["the same quote"]) == 0


def test_threads_sharing_the_memo_get_the_reference_values(monkeypatch) -> None:
    from concurrent.futures import ThreadPoolExecutor

    monkeypatch.setattr(memo, "MEMO_TEXTS", 8)  # entries dropped while other threads add theirs
    texts = [f"thread quote {i} readTimeout" for i in range(200)]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(memo.normalized, texts * 3))
    assert got == [normalize_text_reference(t) for t in texts * 3]
    assert len(memo._memo) <= 8


def test_a_text_over_the_quote_cap_is_not_normalized_ahead() -> None:
    huge = "word " * (memo.REMEMBER_MAX_CHARS // 5 + 1)
    assert memo.remember([huge, "a short quote"]) == 1
    assert huge not in memo._memo


def test_the_memo_is_bounded_by_characters_too(monkeypatch) -> None:
    monkeypatch.setattr(memo, "MEMO_CHARS", 100)
    texts = [f"quote number {i} " + "word " * 8 for i in range(10)]  # about 55 characters each
    for text in texts:
        assert memo.normalized(text) == normalize_text_reference(text)
    assert sum(len(t) for t in memo._memo) <= 100 and list(memo._memo) == texts[-1:]
    assert memo._held[0] == sum(len(t) for t in memo._memo)
    longer = "x " * 80  # over the whole budget: computed, never held
    assert memo.normalized(longer) == normalize_text_reference(longer) and longer not in memo._memo


def test_a_table_longer_than_the_memo_is_read_from_it_block_by_block(monkeypatch) -> None:
    monkeypatch.setattr(memo, "MEMO_TEXTS", 8)
    monkeypatch.setattr(memo, "BATCH_TEXTS", 4)
    texts = [f"The pool keeps {i} idle connections per host." for i in range(30)] + [None, "a last quote here"]
    computed = []
    reference = memo.normalize_text_reference
    monkeypatch.setattr(memo, "normalize_text_reference", lambda t: computed.append(t) or reference(t))
    remembered: set[int] = set()
    for i, text in enumerate(texts):
        memo.remember_batch_of(texts, i, remembered)
        if text is not None:
            assert memo.normalized(text) == reference(text)
    assert computed == []  # each text was held when read: none normalized again one by one
    memo.forget()
    done: set[int] = set()
    for start in (28, 24, 20, 16, 12, 8, 4, 0):  # blocks from the last back, as a helper reads them
        for i in range(start, min(start + 4, len(texts))):
            memo.remember_batch_of(texts, i, done)
            if texts[i] is not None:
                assert memo.normalized(texts[i]) == reference(texts[i])
    assert computed == [] and done == {0, 4, 8, 12, 16, 20, 24, 28}
    memo.forget()
    memo.remember(texts)  # at once, as before: the first texts are gone by the time they are read
    assert memo.normalized(texts[0]) == reference(texts[0]) and computed == [texts[0]]
