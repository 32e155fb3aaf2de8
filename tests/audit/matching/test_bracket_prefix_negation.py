"""A bracket may not drop or add the prefix that makes a word its opposite (docs/audit-rules.md, "Negation")."""

from __future__ import annotations

import pytest
from claimgate.audit.text.negation import NEGATING_PREFIXES, NEGATING_STEM_CHARACTERS, prefix_negates
from hypothesis import given, settings
from hypothesis import strategies as st

from .verdicts import FOUND, verdict

REFUSED = {("not_found", "bracket_drops_negation"), ("not_found", "bracket_inserts_negation")}
NOT_FOUND = "not_found"

#: (source word, bracketed word) that reverse the claim, in sentences of real documentation's shape.
REVERSALS = [
    ("unsafe", "safe"),
    ("safe", "unsafe"),
    ("invalid", "valid"),
    ("non-blocking", "blocking"),
    ("blocking", "non-blocking"),
    ("disabled", "enabled"),  # not a prefix pair: a different word, the judge's question (below)
    ("asymmetric", "symmetric"),
    ("deactivated", "activated"),
    ("illegal", "legal"),
    ("irreversible", "reversible"),
    ("immutable", "mutable"),
    ("unsicher", "sicher"),
]


@pytest.mark.parametrize("source_word, bracketed", [r for r in REVERSALS if r[0] != "disabled"])
def test_a_bracket_that_reverses_a_word_by_its_prefix_is_not_found(source_word, bracketed):
    source = f"The handle is {source_word} for threads in this release."
    assert verdict(f"The handle is [{bracketed}] for threads in this release.", source)[0] == NOT_FOUND
    assert verdict(f"The handle is [{source_word}] for threads in this release.", source) == FOUND
    assert verdict(source, source) == FOUND


def test_a_bracket_with_another_word_is_the_editors_and_a_prefix_word_alone_is_not_a_stem():
    source = "The handle is disabled for threads in this release."
    assert verdict("The handle is [enabled] for threads in this release.", source) == FOUND  # the judge's question
    assert not prefix_negates("in", "")  # too short to be a stem
    assert not prefix_negates("dis", "is")
    assert not prefix_negates("unto", "to")  # "un" + "to": a stem under the minimum
    assert prefix_negates("Non-Blocking", "blocking") and prefix_negates("unsafe", "SAFE")


@settings(max_examples=60, deadline=None)
@given(
    stem=st.text(alphabet="bcfghklmnoprstvwxyz", min_size=NEGATING_STEM_CHARACTERS, max_size=9),
    prefix=st.sampled_from(NEGATING_PREFIXES),
    drop=st.booleans(),
)
def test_dropping_or_adding_a_negating_prefix_in_a_bracket_never_passes(stem, prefix, drop):
    # Joined to the word; a hyphenated prefix is two tokens, and only "non" is a negator as a token of its own.
    word = f"{prefix}{stem}"
    source_word, bracketed = (word, stem) if drop else (stem, word)
    source = f"Every call is {source_word} for threads in this release."
    result = verdict(f"Every call is [{bracketed}] for threads in this release.", source)
    assert result[0] == NOT_FOUND, result
    assert verdict(f"Every call is [{source_word}] for threads in this release.", source) == FOUND
