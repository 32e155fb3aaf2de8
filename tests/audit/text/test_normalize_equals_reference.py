"""The array rules of normalization give exactly the reference tokenizer's tokens, offsets and joins."""

from __future__ import annotations

from claimgate.audit.text.normalize import code_points, fallback_positions, normalize_text, normalized_chunk
from claimgate.audit.text.reference import normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.text.strategies import TRIGGER_TEXT, real_docstrings

#: Characters whose rules differ in context: number marks, signs, symbols, breaks, hyphens,
#: ligatures, look-alikes, super/subscripts, and characters that must send a text to the reference.
_TRICKY = list("aeEzZ019.,'’٫٬-‐‑–−﹣%±×!/ \n\r\t\u00a0\u00ad\u200bﬁßİΩоÀé⁶⁻₁<>=_^+人ไ\u0301…")
#: And the symbol, case, fraction and digit rules (docs/audit-rules.md, "Symbols", "Case", "Numbers").
_TRICKY += list("¥$€✔✘↑≈~#@¾½⁄٣३３ـıMBAsTtGkHz|`◦") + ["\ufe0f"]
_NUMBER_PARTS = ["12", ",", "500", "1e", "-", "6", "x", " ", "\n", "%", "’", "ab", "-\n"]
_NUMBER_PARTS += ["://", "mA", "Ms", "rT", "HTt", " MB", "- ", "¾", "/", "@", ".", "a", "C++", "٣"]
_TEXT = st.text(alphabet=st.sampled_from(_TRICKY) | st.characters(max_codepoint=0x2400), max_size=60)


@settings(max_examples=3000, deadline=None)
@given(_TEXT)
def test_fast_normalizer_equals_the_reference_on_random_text(text: str) -> None:
    assert normalize_text(text) == normalize_text_reference(text)


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_NUMBER_PARTS), max_size=25))
def test_fast_normalizer_equals_the_reference_on_number_shapes(parts: list[str]) -> None:
    text = "".join(parts)
    assert normalize_text(text) == normalize_text_reference(text)


def test_two_character_symbols_are_read_by_the_array_rules() -> None:
    assert len(fallback_positions(code_points("a != b <= c >= d +/- e"))) == 0
    assert normalize_text("x != 3").tokens == ("x", "≠", "3")
    assert normalize_text("a <= b >= c == d").tokens == ("a", "≤", "b", "≥", "c", "=", "=", "d")


def test_exponent_minus_and_leading_minus_are_part_of_the_number() -> None:
    assert normalize_text("net -4 at 1e-6, 18-65").tokens == ("net", "-4", "at", "1e-6", "18", "65")


@settings(max_examples=3000, deadline=None)
@given(TRIGGER_TEXT)
def test_fast_normalizer_equals_the_reference_on_what_real_documents_hold(text: str) -> None:
    """Mixed case, #, @, URLs, e-mail, footnote markers, negator prefixes, fractions, symbols, scripts."""
    assert normalize_text(text) == normalize_text_reference(text)


def test_fast_normalizer_equals_the_reference_on_real_docstrings() -> None:
    docs = real_docstrings()
    assert len(docs) > 300
    for doc in docs:
        assert normalize_text(doc) == normalize_text_reference(doc), doc[:200]


def test_array_rules_cover_real_docstrings() -> None:
    """The reference tokenizer sees almost no real document: only e-mail addresses, soft hyphens, other scripts."""
    docs = real_docstrings()
    left = normalized_chunk(docs).reference
    assert len(left) <= 0.01 * len(docs), [docs[k][:80] for k in sorted(left)]


def test_name_suffix_before_a_digit_ends_the_word() -> None:
    assert normalize_text("four+1 and g++5 and C#2").tokens == ("four+", "1", "and", "g++", "5", "and", "c#", "2")
    assert normalize_text("a+b c+++ x+-5").tokens == ("a", "+", "b", "c", "+", "+", "+", "x+", "-5")


def test_plus_minus_is_one_symbol_and_its_minus_is_no_sign() -> None:
    assert normalize_text("3 +/-5 and +2").tokens == ("3", "±", "5", "and", "2")


def test_underscores_join_only_between_word_characters() -> None:
    assert normalize_text("reset_timeout __init__ _not_ x_1 a_ _b").tokens == (
        "reset_timeout", "init", "not", "x_1", "a", "b",
    )  # fmt: skip


def test_exponent_caret_joins_only_before_a_digit() -> None:
    assert normalize_text("10^6 x^-3 x^+2 a^b ^5").tokens == ("10^6", "x^-3", "x^+2", "a", "b", "5")


def test_url_is_one_folded_token_and_mixed_case_words_keep_their_case() -> None:
    text = "See https://GitHub.com/Foo_Bar?x=1#Top, then DataFrame and 5 MB."
    assert normalize_text(text).tokens == (
        "see", "https://github.com/foo_bar?x=1#top", "then", "DataFrame", "and", "5", "MB",
    )  # fmt: skip
    assert normalize_text(text) == normalize_text_reference(text)


def test_text_the_array_rules_cannot_place_goes_to_the_reference() -> None:
    """An e-mail address, a URL glued to a word, a soft hyphen: left to the reference tokenizer, same value."""
    texts = ["mail ops.team@corp.example now", "foo_http://x.y z", "xhttp://y.z", "soft\u00adhyphen"]
    chunk = normalized_chunk(texts)
    assert chunk.reference == {0, 1, 2, 3}
    for text in texts:
        assert normalize_text(text) == normalize_text_reference(text)
