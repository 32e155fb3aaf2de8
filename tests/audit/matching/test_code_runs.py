"""Punctuation inside a run of code is compared: a changed slice, option, sign, path or operator never passes.

Rules: docs/audit-rules.md, "Punctuation in code runs" (matching/code_runs.py). Every case runs the indexed
audit and its reference, which must agree.
"""

from __future__ import annotations

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote
from claimgate.audit.matching.code_runs import code_marks, fold, run_shape
from hypothesis import given, settings
from hypothesis import strategies as st

from .verdicts import FOUND, verdict

CHANGED = ("not_found", "code_punctuation_changed")
#: A quote the older code-shape rule refuses first ("Brackets in code and values"), or whose tokens differ.
REFUSED = {CHANGED, ("not_found", "no_verbatim_match")}

SLICES = "Invariant: all e in a[:i] have e < x, and all e in a[i:] have e >= x; all e in a[if] have e != x."
SIGNS = "The function returns (nan, inf, -inf) for the three edge cases."
OPTIONS = "To copy a tree run aws s3 cp localdir s3://bucket/ --recursive from the shell."
ARROW = "error[E0308]: mismatched types\n --> test.rs:1:24\n  |\n1 | fn main() { let x: i32 = 1; }"
OPERATORS = "In Rust, use std::io => then a ** b is a power and a // b floors, in this pseudo-code."

CHANGES = [
    (SLICES, "all e in a[i:] have e < x, and all e in a[:i] have e >= x."),  # slices swapped
    (SLICES, "all e in a[i:] have e < x"),
    (SLICES, "all e in a[if] have e < x"),
    (SIGNS, "returns (nan, inf, inf) for the three"),  # a sign dropped before a name
    (SIGNS, "returns (nan, -inf, inf) for the three"),  # the sign moved to another name
    (SIGNS, "returns (nan, inf, +inf) for the three"),
    (OPTIONS, "aws s3 cp localdir s3://bucket/ -recursive from the shell"),  # an option's dashes
    (OPTIONS, "aws s3 cp localdir s3://bucket/ \u2014recursive from the shell"),  # em dash for '--'
    (OPTIONS, "aws s3 cp localdir s3://bucket/ \u2013recursive from the shell"),  # en dash for '--'
    (OPTIONS, "aws s3 cp localdir s3://bucket --recursive from the shell"),  # a path's trailing slash
    (OPTIONS, "aws s3 cp localdir s3:/bucket/ --recursive from the shell"),
    (ARROW, "-> test.rs:1:24"),  # an arrow run shortened
    (ARROW, "mismatched types -> test.rs:1:24"),
    (ARROW, "mismatched types \u2014> test.rs:1:24"),
    (OPERATORS, "use std:io => then a ** b is a power"),  # '::'
    (OPERATORS, "use std::io => then a * b is a power"),  # '**'
    (OPERATORS, "then a ** b is a power and a / b floors"),  # '//'
]


def test_the_refusal_names_the_changed_code_run() -> None:
    assert verdict("aws s3 cp localdir s3://bucket/ -recursive from the shell", OPTIONS) == CHANGED
    assert verdict("returns (nan, inf, inf) for the three", SIGNS) == CHANGED
    assert verdict("all e in a[i:] have e < x", SLICES) == CHANGED
    assert verdict("-> test.rs:1:24", ARROW) == CHANGED


def test_a_later_placement_that_keeps_the_code_runs_is_found() -> None:
    source = "Use -v for more. Then use --v for all of it. The end of the page is here."
    row = audit_quote("use --v for all", "d", build_corpus_index({"d": source}))
    assert (row["verdict"], row["spans"][0]["text"]) == ("found", "use --v for all")


@pytest.mark.parametrize(("source", "quote"), CHANGES)
def test_changed_punctuation_in_a_code_run_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source) in REFUSED


VERBATIM = [
    (SLICES, "all e in a[:i] have e < x, and all e in a[i:] have e >= x."),
    (SIGNS, "returns (nan, inf, -inf) for the three"),
    (SIGNS, "returns (nan, inf, \u2212inf) for the three"),  # U+2212 minus reads as '-' (docs: "Symbols")
    (OPTIONS, "aws s3 cp localdir s3://bucket/ --recursive from the shell"),
    (OPTIONS, "`aws s3 cp localdir s3://bucket/ --recursive` from the shell"),  # backticks are markup
    (ARROW, "mismatched types --> test.rs:1:24"),
    (ARROW, "--> test.rs:1:24"),
    (ARROW, "test.rs:1:24 | 1 | fn main"),  # a table rule or gutter '|' is layout
    (OPERATORS, "use std::io => then a ** b is a power and a // b floors"),
    # a quote that starts or ends at a word reads the source from (to) that word, as a literal part of it
    (SIGNS, "inf) for the three edge cases"),
    (OPTIONS, "aws s3 cp localdir s3://bucket"),
]


@pytest.mark.parametrize(("source", "quote"), VERBATIM)
def test_code_runs_quoted_as_written_are_found(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


PROSE = [
    # dashes between words or standing alone are prose: every spelling reads the same
    ("The result was clear \u2014 and well-known to all of the reviewers.", "clear -- and well known to all"),
    ("The result was clear \u2014 and well-known to all of the reviewers.", "clear \u2013 and well\u2014known to all"),
    ("Pages 10\u201312 cover the setup of the rig in detail.", "Pages 10-12 cover the setup of the rig"),
    # sentence punctuation, quotation marks and enclosing brackets at a run's edge are prose
    ("He said \u201cthe cache (the small one) is warm,\u201d and left.", 'said "the cache the small one is warm" and'),
    ("Results (see Fig. 3) were stable; the team agreed.", "Results see Fig. 3 were stable, the team agreed"),
    ("It's the users' choice, isn't it?", "It\u2019s the users\u2019 choice isn\u2019t it"),
    ("A **bold** claim and a _quiet_ one were made.", "A bold claim and a quiet one were made"),
    ("| name of the field | and its `default` value |", "name of the field and its default value"),
    ("The line-end hyphen in well-\nknown words is read both ways here.", "hyphen in well-known words is read"),
    # a hyphen before blanks between two letters is a line-end hyphen however many blanks (docs: "Normalization")
    ("Black adult males in vir- tual reality (VR) simulations.", "males in vir-  tual\nreality  (VR)  simulations."),
]


@pytest.mark.parametrize(("source", "quote"), PROSE)
def test_prose_punctuation_stays_normalized(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


def test_a_verbatim_quote_elsewhere_is_misattributed_not_refused() -> None:
    index = build_corpus_index({"d": SIGNS, "e": SIGNS.replace("-inf", "inf")})
    row = audit_quote("returns (nan, inf, inf) for the three", "d", index)
    expected = ("misattributed", "found_in_other_document", ["e"])
    assert (row["verdict"], row["reason"], row["matched_doc_ids"]) == expected


def test_run_shape_keeps_code_marks_and_leaves_prose_edges_out() -> None:
    assert run_shape("a[:i]") == "w[:w]" and run_shape("a[i:],") == "w[w:]"
    assert run_shape("-inf)") == "-w" and run_shape("(nan,") == "w" and run_shape("(-inf)") == "-w"
    assert run_shape("--recursive") == "--w" and run_shape("\u2014recursive") == "\u2014w"
    assert run_shape("s3://bucket/") == "w://w/" and run_shape("-->") == "--w" and run_shape("->") == "-w"
    assert run_shape("well-known.") == "w" and run_shape("\u2014") == "" and run_shape("|") == ""
    assert code_marks("nan, inf, -inf") == ((2, "-w"),) and code_marks("nan, -inf, inf") == ((1, "-w"),)


# --- the property: a changed mark in a code run never passes, the verbatim quote always does --------------

#: Words of four letters or more: ``a[rho]`` reads as an editor's fused bracket (docs: "Ellipses and brackets").
WORDS = ["alpha", "beta", "gamma", "delta", "omega", "sigma", "kappa", "theta", "lambda", "zeta", "iota", "upsilon"]
#: Code runs built from two words (``{0}``, ``{1}``), and the changes of each that a quote may not make.
RUNS = {
    "{0}[:{1}]": ["{0}[{1}:]", "{0}[{1}]", "{0}[::{1}]"],
    "{0}[{1}:]": ["{0}[:{1}]", "{0}[{1}]"],
    "--{0}": ["-{0}", "\u2014{0}", "\u2013{0}", "{0}", "---{0}"],
    "-{0}": ["{0}", "--{0}", "+{0}", "\u2014{0}"],
    "{0}://{1}/": ["{0}://{1}", "{0}:/{1}/", "{0}//{1}/"],
    "{0}/{1}/": ["{0}/{1}", "{0}{1}/"],
    "{0}::{1}": ["{0}:{1}", "{0}.{1}"],
    "{0}**{1}": ["{0}*{1}", "{0}^{1}"],
    "{0}//{1}": ["{0}/{1}"],
    "-->": ["->", "\u2014>", "--->"],
    "=>": ["->", ">"],
    "{0}->{1}": ["{0}-->{1}", "{0}>{1}", "{0}.{1}"],
}


@st.composite
def code_texts(draw):
    """A source of words with one code run among them, the quote of its middle as written, and a changed one."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=8, max_size=12, unique=True))  # one place to quote
    run = draw(st.sampled_from(sorted(RUNS)))
    change = draw(st.sampled_from(RUNS[run]))
    a, b = draw(st.sampled_from(WORDS)), draw(st.sampled_from(WORDS))
    at = draw(st.integers(3, len(words) - 3))
    left, right = " ".join(words[:at]), " ".join(words[at:])
    source = f"Intro text. {left} {run.format(a, b)} {right} end."
    quote = f"{' '.join(words[at - 2 : at])} {{}} {' '.join(words[at : at + 2])}"
    return source, quote.format(run.format(a, b)), quote.format(change.format(a, b))


@settings(max_examples=300, deadline=None)
@given(code_texts())
def test_changed_code_punctuation_never_passes_and_the_verbatim_quote_always_does(case) -> None:
    source, verbatim, changed = case
    assert verdict(verbatim, source) == FOUND
    assert verdict(changed, source) in REFUSED


def _marks_one_run_at_a_time(text: str) -> tuple:
    """The marks as the rule reads them: every white-space-separated run through :func:`run_shape`."""
    marks, words = [], 0
    for run in fold(text).split():
        shape = run_shape(run)
        if shape == "w":
            words += 1
        elif shape:
            marks.append((words, shape))
            words = 0
    return tuple(marks)


_RUN_CHARACTERS = "ab1_ .,;:!?\"'()[]{}-\u2013\u2014/\\*#|`~<>=+%\n\u00a0\u2212\u00ad\u0301"
_RUNS_TEXT = st.text(alphabet=st.sampled_from(list(_RUN_CHARACTERS)))


@settings(max_examples=1500, deadline=None)
@given(_RUNS_TEXT | st.text(max_size=40))
def test_code_marks_skip_only_runs_that_read_as_plain_words(text: str) -> None:
    assert code_marks(text) == _marks_one_run_at_a_time(text)


def _fold_one_character_at_a_time(text: str) -> str:
    """:func:`fold` as first written: tables and a category test per character."""
    import re
    import unicodedata

    from claimgate.audit.matching import code_runs as cr
    from claimgate.audit.text.token_rules import VULGAR_FRACTIONS

    broken = re.compile(r"(?<=\w)-[^\S\n]*\n\s*(?=\w)|(?<=[^\W\d_])-[^\S\n]+(?=[^\W\d_])")
    if text.isascii():
        return broken.sub("", text)
    text = cr._SCRIPTS_RE.sub(cr._script, text).translate(str.maketrans(VULGAR_FRACTIONS))
    text = "".join(" " if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    text = broken.sub("", unicodedata.normalize("NFKC", text))
    kept = "".join(c for c in text if unicodedata.category(c) != "Cf" and not unicodedata.category(c).startswith("M"))
    return kept.translate(cr.RUN_FOLDS)


_FOLD_TEXT = st.text(
    alphabet=st.sampled_from(list(_RUN_CHARACTERS + "é\u0915\u093e²₃⁻¾\u2044\u2010\u2019\u201c\ud800"))
)


@settings(max_examples=1500, deadline=None)
@given(_FOLD_TEXT | st.text(max_size=40))
def test_fold_equals_the_character_rule(text: str) -> None:
    assert fold(text) == _fold_one_character_at_a_time(text)
