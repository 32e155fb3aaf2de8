"""Number words in the diagnosis (``kinds.NUMBER_WORDS``): a changed number spelled out is ``number_changed``.

A new-user trial found "four weeks" quoted as "five weeks" diagnosed ``light_edit``: only tokens with a
digit counted as numbers. The verdict was right (``not_found``); the diagnosis named the wrong edit.
"""

from __future__ import annotations

import pytest
from claimgate.audit.diagnosis.diagnose import citation_diagnosis
from claimgate.audit.diagnosis.kinds import NUMBER_WORDS, is_number
from claimgate.audit.diagnosis.nearest_passage import PassageIndex
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote
from hypothesis import given, settings
from hypothesis import strategies as st


def kind_of(source: str, quote: str) -> str:
    index = build_corpus_index({"d": source})
    match = audit_quote(quote, "d", index)
    assert match["verdict"] == "not_found", match
    return citation_diagnosis(quote, "d", match, PassageIndex(index))["kind"]


@pytest.mark.parametrize(
    "source, quote",
    [
        ("Tokens expire after four weeks unless the client refreshes them.", "Tokens expire after five weeks unless"),
        ("The pool keeps twelve idle connections per host by default.", "The pool keeps ten idle connections per host"),
        ("Retries stop after the third failed attempt on any request.", "Retries stop after the fifth failed attempt"),
        ("Each shard holds twenty-five thousand rows before it splits.", "Each shard holds twenty-six thousand rows"),
        ("A lease lasts half a minute and is renewed by the worker.", "A lease lasts twice a minute and is renewed"),
        ("The cache stores a dozen entries per tenant it serves.", "The cache stores a hundred entries per tenant"),
        ("Timeouts double after each retry of the same request.", "Timeouts triple after each retry of the same"),
    ],
    ids=["cardinal", "teen-to-ten", "ordinal", "hyphen-joined", "multiplier", "dozen-hundred", "double-triple"],
)
def test_a_changed_number_word_is_number_changed(source, quote):
    assert kind_of(source, quote) == "number_changed"


@pytest.mark.parametrize(
    "source, quote",
    [
        ("Tokens expire after four weeks unless the client refreshes them.", "Tokens expire after four days unless"),
        ("Wait one second before the next call to the server.", "Wait one minute before the next call to the"),
        ("Once the pool is closed no new connection is made.", "When the pool is closed no new connection is"),
    ],
    ids=["unit-changed", "second-is-a-unit", "once-is-a-conjunction"],
)
def test_words_that_are_not_number_changes_stay_what_they_were(source, quote):
    assert kind_of(source, quote) != "number_changed"


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(sorted(NUMBER_WORDS)), st.sampled_from(sorted(NUMBER_WORDS)))
def test_any_number_word_replaced_by_another_is_number_changed(old, new):
    if old == new:
        return
    source = f"The scheduler starts {old} workers for every queue it manages in the cluster."
    quote = f"The scheduler starts {new} workers for every queue it manages"
    assert kind_of(source, quote) == "number_changed"


def test_number_words_and_digits_are_numbers_and_near_words_are_not():
    assert all(is_number(w) for w in NUMBER_WORDS) and is_number("25") and is_number("-4.1")
    assert not any(is_number(w) for w in ("second", "once", "a", "an", "none", "fold", "tenths", "well"))
