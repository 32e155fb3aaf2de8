"""The punctuation a code-shaped quote compares (matching/code_and_case.py ``punctuation``): one regex pass
drops letters, digits, white space and backticks exactly as the character-by-character rule did."""

from __future__ import annotations

import unicodedata

from claimgate.audit.matching import code_and_case as cc
from claimgate.audit.matching.code_and_case import punctuation
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.audit.text.strategies import TRIGGER_TEXT, real_docstrings


def _one_character_at_a_time(text: str) -> str:
    """The rule as first written: each character tested by ``str`` methods and its category."""
    text = cc._BROKEN_WORD_RE.sub("", unicodedata.normalize("NFKC", text)).translate(cc.PUNCTUATION_FOLDS)
    for ascii_spelling, symbol in cc._SYMBOL_SPELLINGS:
        text = text.replace(ascii_spelling, symbol)
    text = cc._EDGE_RE.sub("", text)
    return "".join(c for c in text if not (c.isalnum() or c.isspace() or c == "`" or unicodedata.category(c) == "Cf"))


_CODE = st.text(alphabet=st.sampled_from(list("f(x)=[1]:->`_ \n\t\u00a0\u00ad\u200b\u2028٣²ⅫéΩ’“—-+/<>!")), max_size=40)


@settings(max_examples=1500, deadline=None)
@given(st.text(max_size=60) | TRIGGER_TEXT | _CODE)
def test_punctuation_equals_the_character_rule(text: str) -> None:
    assert punctuation(text) == _one_character_at_a_time(text)


def test_punctuation_of_real_docstrings_equals_the_character_rule() -> None:
    for doc in real_docstrings():
        assert punctuation(doc) == _one_character_at_a_time(doc)


def test_punctuation_keeps_code_marks_and_drops_words_spaces_and_format_characters() -> None:
    assert punctuation("retry = [True], x_y") == "=[],_"
    assert punctuation("f(a)\u00ad -> `b`") == "()->"
    assert punctuation("a >= b +/- c") == "≥±"
    assert punctuation("x\u2003y ٣ z") == ""  # an em space and an Arabic-Indic digit are no punctuation


@settings(max_examples=1500, deadline=None)
@given(st.text(max_size=60) | TRIGGER_TEXT | _CODE)
def test_code_tests_skip_only_texts_the_patterns_cannot_match(text: str) -> None:
    assert cc.reads_as_code(text) == (cc.CODE_RE.search(text) is not None)
    plain = cc.CODE_SHAPE_RE.search(text) is not None or cc.CODE_RE.search(text) is not None
    assert cc.is_code_shaped(text) == plain


@settings(max_examples=1500, deadline=None)
@given(
    st.text(alphabet=st.sampled_from(list("a1_ .\n\t-é`") + ["\u00a0", "\u2028"]), max_size=20) | st.text(max_size=30)
)
def test_between_words_equals_the_edge_pattern(text: str) -> None:
    assert cc._between_words(text) == cc._EDGE_RE.sub("", text)


def test_code_shapes_found_and_prose_not() -> None:
    assert cc.is_code_shaped("call f(x) here") and cc.is_code_shaped("a -> b") and cc.is_code_shaped("x = 1")
    assert cc.reads_as_code("retry=[True]") and cc.reads_as_code("pkg[extra]")
    assert not cc.is_code_shaped("plain prose, with [sic] a bracket") and not cc.reads_as_code("the [S]tate")
    assert cc._between_words("  (a, b).\n") == "a, b" and cc._between_words("...") == ""
