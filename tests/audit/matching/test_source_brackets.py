"""An editor's bracket may not stand for text the source encloses in a bracket of its own.

Rules: docs/audit-rules.md, "Brackets in code and values" (the source's own brackets).
"""

from __future__ import annotations

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference
from claimgate.audit.matching.code_and_case import SOURCE_CLOSERS, SOURCE_OPENERS
from hypothesis import given, settings
from hypothesis import strategies as st

OPTPARSE = '''    def _process_args(self, largs, rargs, values):
        """_process_args(largs : [string],
                         rargs : [string],
                         values : Values)

        Process command-line arguments and populate 'values', consuming
        options and arguments from 'rargs'.
        """
'''
FOUND = ("found", "verbatim_match")
REFUSED = ("not_found", "bracket_replaces_value")


def verdict(quote: str, source: str) -> tuple[str, str]:
    index = build_corpus_index({"d": source})
    fast = audit_quote(quote, "d", index)
    assert fast == audit_quote_reference(quote, "d", index)
    return fast["verdict"], fast["reason"]


def test_changed_type_annotation_in_a_real_docstring_is_refused() -> None:
    changed = "_process_args(largs : [int], rargs : [string], values : Values)"
    assert verdict(changed, OPTPARSE)[0] == "not_found"  # the annotation reads as code: its brackets are literal
    assert (
        verdict("_process_args(largs : [string], rargs : [list of str], values : Values)", OPTPARSE)[0] == "not_found"
    )
    assert verdict("_process_args largs [int] rargs string values", OPTPARSE) == REFUSED  # prose-shaped: the rule
    assert verdict("_process_args(largs : [string], rargs : [string], values : Values)", OPTPARSE) == FOUND


def test_changed_type_annotation_written_by_hand_is_refused() -> None:
    source = "connect(host : [str], port : [int], timeout : [float]) opens the socket to the server."
    assert (
        verdict("connect(host : [bytes], port : [int], timeout : [float]) opens the socket", source)[0] == "not_found"
    )
    assert verdict("connect host [bytes] port int timeout float opens the socket", source) == REFUSED
    assert verdict("connect(host : [str], port : [int], timeout : [float]) opens the socket", source) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # an extra, spaced so that the quote does not read as code
        (
            "Install it with pip install claimgate [test] before you run the checks.",
            "Install it with pip install claimgate [docs] before you run the checks",
        ),
        # a key, spaced
        (
            "The loop reads the column with row ['age'] for every record in the table.",
            "The loop reads the column with row ['name'] for every record in the table",
        ),
        # a list literal
        (
            "The default axes are [1, 2] for every plot in the report.",
            "The default axes are [1] for every plot in the report",
        ),
        (
            "The accepted modes are [fast, safe] for every job in the queue.",
            "The accepted modes are [slow] for every job in the queue",
        ),
        # a Markdown link's text
        (
            "See [the install guide](install.md) for details on the setup of the server.",
            "See [the upgrade guide](install.md) for details on the setup of the server",
        ),
        # the source's parentheses and braces
        (
            "Here a tool (pip) installs the package for you in one step.",
            "Here a tool [npm] installs the package for you in one step",
        ),
        (
            "The template {name} is filled in for every user of the site.",
            "The template [title] is filled in for every user of the site",
        ),
    ],
)
def test_bracket_standing_for_the_source_bracketed_text_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source) == REFUSED


def test_bracket_standing_for_part_of_the_source_bracketed_text_is_refused() -> None:
    source = "The accepted modes are [fast safe] for every job in the queue."
    assert verdict("The accepted modes are [slow] safe] for every job in the queue", source) == REFUSED
    assert verdict("The accepted modes are (slow safe) for every job in the queue", source)[0] == "not_found"


@pytest.mark.parametrize(
    "source",
    [
        "Install it with pip install claimgate [test] before you run the checks.",
        "See [the install guide](install.md) for details on the setup of the server.",
        "The accepted modes are [fast, safe] for every job in the queue.",
    ],
)
def test_the_source_own_bracket_quoted_verbatim_is_found(source: str) -> None:
    assert verdict(source.rstrip("."), source) == FOUND


def test_fused_subscripts_and_keys_are_code_and_literal() -> None:
    source = "Install it with pip install claimgate[test] and read row['age'] for every record."
    assert (
        verdict("Install it with pip install claimgate[docs] and read row['age'] for every record", source)[0]
        == "not_found"
    )
    assert (
        verdict("Install it with pip install claimgate[test] and read row['name'] for every record", source)[0]
        == "not_found"
    )
    assert verdict("Install it with pip install claimgate[test] and read row['age'] for every record", source) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Today the parser reads it from the file on startup.",
            "Today the [new] parser reads it from the file on startup",
        ),
        (
            "The recieve call blocks until data arrives on the socket.",
            "The recieve [sic] call blocks until data arrives on the socket",
        ),
        ("The recieve call blocks until data arrives on the socket.", "The recieve call blocks […] on the socket"),
        (
            "It keeps ten connections open for every worker at once.",
            "[the pool] keeps ten connections open for every worker at once",
        ),
        (
            "When idle, it keeps ten connections open for every worker.",
            "When idle, [the pool] keeps ten connections open for every worker",
        ),
        # a parenthesis elsewhere in the source does not bind the bracket
        (
            "The method (ours) is fast and it scales well to large inputs.",
            "The method (ours) is fast and [the method] scales well to large inputs",
        ),
        (
            "We trained the model (on 8 GPUs), and it converged in two days.",
            "We trained the model (on 8 GPUs), and [the model] converged in two days",
        ),
    ],
)
def test_honest_editorial_brackets_in_prose_are_found(source: str, quote: str) -> None:
    assert verdict(quote, source)[0] == "found"


_WORD = st.text(alphabet="bcdfghjklmprstvwz", min_size=4, max_size=8)


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(_WORD, min_size=8, max_size=12, unique=True),
    n_inner=st.integers(min_value=1, max_value=3),
    kind=st.integers(min_value=0, max_value=len(SOURCE_OPENERS) - 1),
)
def test_replacing_the_source_bracketed_text_never_stays_found(words, n_inner, kind) -> None:
    before, after, inner, other = words[:3], words[3:6], words[6 : 6 + n_inner], words[6 + n_inner :]
    if not other:
        other = ["xqxq"]
    opener, closer = SOURCE_OPENERS[kind], SOURCE_CLOSERS[kind]
    source = f"{' '.join(before)} {opener}{' '.join(inner)}{closer} {' '.join(after)}."
    quote = f"{' '.join(before)} [{' '.join(other)}] {' '.join(after)}"
    assert verdict(quote, source) == REFUSED


# --- a quote shaped like code: its punctuation counts ------------------------------------------


def test_dropped_argument_in_a_code_shaped_quote_is_refused() -> None:
    # the quote's tokens are a prefix of the source's ('Values' folds to 'values'); its punctuation is not
    assert verdict("_process_args(largs : [string], rargs : [string], : Values)", OPTPARSE)[0] == "not_found"
    assert verdict("_process_args(largs : [string], rargs : [string], values", OPTPARSE) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Call client.connect(host, port) before any request is sent.",
            "Call client.connect(host.port) before any request",
        ),
        (
            "The retry limit is set with retries = 5 in the config file.",
            "The retry limit is set with retries 5 in the config",
        ),
        (
            "Use parse(text, strict) -> Tree to build the syntax tree.",
            "Use parse(text, strict) - Tree to build the syntax tree",
        ),
        (
            "The value is read as config::timeout by the scheduler.",
            "The value is read as config:timeout by the scheduler",
        ),
    ],
)
def test_changed_punctuation_in_a_code_shaped_quote_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source)[0] == "not_found"


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Call client.connect(host, port) before any request is sent.",
            "Call client.connect(host,  port) before any request",
        ),
        (
            "Call “client.connect(host, port)” before any request is sent.",
            'Call "client.connect(host, port)" before any request',
        ),
        (
            "Call client.con-\nnect(host, port) before any request is sent.",
            "Call client.connect(host, port) before any request",
        ),
        ("The model f(x) = 2x fits the data — and it scales.", "The model f(x) = 2x fits the data - and it scales"),
        ("The model f(x) = 2x fits the data well and it scales.", "The model f(x) = 2x fits … and it scales"),
    ],
)
def test_code_shaped_quote_with_only_typographic_changes_is_found(source: str, quote: str) -> None:
    assert verdict(quote, source)[0] == "found"


def test_annotation_bracket_in_a_quote_is_literal() -> None:
    # 'name : [type]' reads as code: the bracket must match the source's verbatim
    source = "The field choices : [string] lists the accepted values of the option."
    assert verdict("The field choices : [string] lists the accepted values", source) == FOUND
    assert verdict("The field choices : [int] lists the accepted values", source)[0] == "not_found"


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(_WORD, min_size=10, max_size=11, unique=True),
    at=st.integers(min_value=0, max_value=2),
    kind=st.integers(min_value=0, max_value=len(SOURCE_OPENERS) - 1),
)
def test_replacing_one_word_inside_the_source_bracket_never_stays_found(words, at, kind) -> None:
    before, after, inner, new = words[:3], words[3:6], words[6:9], words[9]
    opener, closer = SOURCE_OPENERS[kind], SOURCE_CLOSERS[kind]
    source = f"{' '.join(before)} {opener}{' '.join(inner)}{closer} {' '.join(after)}."
    changed = [*inner[:at], new, *inner[at + 1 :]]
    quote = f"{' '.join(before)} [{' '.join(changed)}] {' '.join(after)}"
    assert verdict(quote, source) == REFUSED


_SEPARATORS = [", ", ",", " : ", ".", " -> ", "::", " = "]


@settings(max_examples=60, deadline=None)
@given(
    words=st.lists(_WORD, min_size=5, max_size=5, unique=True),
    seps=st.lists(st.sampled_from(_SEPARATORS), min_size=4, max_size=4),
    at=st.integers(min_value=0, max_value=3),
    other=st.sampled_from(_SEPARATORS),
)
def test_changing_a_separator_of_a_call_never_stays_found(words, seps, at, other) -> None:
    def call(parts: list[str]) -> str:
        args = words[1] + "".join(p + w for p, w in zip(parts, words[2:], strict=False))
        return f"{words[0]}({args}) returns the value"

    changed = [*seps[:at], other, *seps[at + 1 :]]
    if "".join(changed).replace(" ", "") == "".join(seps).replace(" ", ""):
        return
    source = "Calling " + call(seps[:3]) + " at once."
    quote = "Calling " + call(changed[:3])
    if quote == "Calling " + call(seps[:3]):
        return
    assert verdict(quote, source)[0] != "found"


#: Sources writing optional parts in brackets fused to a name (code), as command and version syntax does.
OPTIONAL_PARTS = (
    "A version is written major.minor[.patch[.tweak]] where each part is a number.\n"
    "Pass --color[=WHEN] to the tool, or add build[,test] extras when it is installed.\n"
    "The rate[4] rose sharply in 2020 across the regions we measured.\n"
)


@pytest.mark.parametrize(
    "quote",
    [
        "A version is written major.minor.patch.tweak where each",  # the optional parts made required
        "A version is written major.minor[.patch][.tweak] where each",  # nested made independent
        "A version is written major.minor.patch[.tweak] where each",
        "Pass --color=WHEN to the tool",
        "add build,test extras when it is installed",
    ],
)
def test_a_quote_dropping_or_moving_a_source_codes_optional_brackets_is_refused(quote: str) -> None:
    # docs/audit-rules.md, "Brackets in code and values": a code-shaped source span keeps its punctuation
    assert verdict(quote, OPTIONAL_PARTS)[0] == "not_found"


@pytest.mark.parametrize(
    "quote",
    [
        "A version is written major.minor[.patch[.tweak]] where each",
        "Pass --color[=WHEN] to the tool",
        "The rate rose sharply in 2020 across",  # a footnote marker left out, as a quote may
        "The rate[4] rose sharply in 2020 across",
    ],
)
def test_the_source_codes_brackets_quoted_as_written_and_a_skipped_footnote_marker_are_found(quote: str) -> None:
    assert verdict(quote, OPTIONAL_PARTS)[0] == "found"
