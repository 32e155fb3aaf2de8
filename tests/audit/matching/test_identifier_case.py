"""A quote that changes the case of an identifier or of code is never found; prose case still folds.

Rule: docs/audit-rules.md, "Case" ("Identifiers and code keep their case"). Each kind of code run has
its examples (underscore, dotted name, call and its arguments, scope, assignment, option, path, URL
path, an environment variable in capitals, mixed with other words), the honest spellings that stay
found, and a property over generated identifier runs.
"""

from __future__ import annotations

import pytest
from claimgate.audit.matching.identifier_case import is_code_run
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from .verdicts import FOUND, verdict

CHANGED = ("not_found", "no_verbatim_match")

#: (what the document says, what the quote says) inside ``Set <run> before the first request.``
CASE_CHANGES = [
    # underscore identifiers
    ("read_timeout", "Read_Timeout"),
    ("read_timeout", "read_Timeout"),
    ("read_timeout", "READ_timeout"),
    ("Read_Timeout", "read_timeout"),
    ("max_Retries", "max_retries"),
    ("max_Retries", "Max_Retries"),
    # environment variables in capitals
    ("HTTP_PROXY", "http_proxy"),
    ("HTTP_PROXY", "Http_Proxy"),
    ("http_proxy", "HTTP_PROXY"),
    # dotted names
    ("np.float64", "np.Float64"),
    ("np.float64", "NP.float64"),
    ("os.getcwd()", "OS.getcwd()"),
    ("string.expandtabs()", "String.expandtabs()"),
    ("README.md", "readme.md"),
    # a call's arguments
    ("len(a)", "len(A)"),
    ("resize(width,Height)", "resize(width,height)"),
    # scope, member, assignment, option, path
    ("std::vector", "STD::vector"),
    ("node->next", "node->Next"),
    ("mode=fast", "mode=Fast"),
    ("-v", "-V"),
    ("--max-retries", "--Max-Retries"),
    ("/etc/hosts", "/etc/Hosts"),
    ("docs/v2/index", "docs/V2/index"),
    # a URL's path
    ("https://example.com/docs/v2/", "https://example.com/docs/V2/"),
    ("https://example.com/a?Key=1", "https://example.com/a?key=1"),
]


@pytest.mark.parametrize(("source_run", "quote_run"), CASE_CHANGES)
def test_identifier_changed_by_case_is_not_found(source_run: str, quote_run: str) -> None:
    source = f"Set {source_run} before the first request, then restart."
    assert verdict(f"Set {quote_run} before the first request", source) == CHANGED
    assert verdict(f"Set {source_run} before the first request", source) == FOUND


def test_identifier_changed_by_case_among_prose_with_brackets_and_ellipses_is_not_found() -> None:
    source = "To retry, set max_retries to three and read_timeout to ten seconds in the client file."
    assert verdict("set [the option] Max_Retries to three and read_timeout to ten seconds", source) == CHANGED
    assert verdict("set max_retries to three ... Read_Timeout to ten seconds in the client", source) == CHANGED
    assert verdict("set max_retries to three ... read_timeout to ten seconds in the client", source)[0] == "found"


def test_verbatim_identifier_after_a_case_variant_is_found() -> None:
    # the first placement differs by case; the search goes on to the verbatim one
    source = "The Read_Timeout class wraps the value. Set read_timeout before the first request."
    assert verdict("Set read_timeout before the first request", source) == FOUND
    assert verdict("set Read_Timeout before the first request", source) == CHANGED


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("the limit is five seconds for every worker.", "The limit is five seconds for every worker"),
        ("so e.g. the limit is five seconds for all.", "E.g. the limit is five seconds for all"),
        ("and/or the limit is five seconds for all.", "And/or the limit is five seconds for all"),
        ("see fig.3 for the limit of five seconds.", "See Fig.3 for the limit of five seconds"),
        ("THE LIMIT IS FIVE SECONDS FOR ALL.", "The limit is five seconds for all"),
        ("The limit is five seconds for all.", "THE LIMIT IS FIVE SECONDS FOR ALL"),
        ("Read https://Example.com/docs/v2/ for the limits.", "Read https://example.com/docs/v2/ for the limits"),
    ],
)
def test_prose_case_still_folds(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


@pytest.mark.parametrize(
    ("run", "code"),
    [
        ("read_timeout", True),
        ("np.float64,", True),
        ("(os.getcwd())", True),
        ("len(A)", True),
        ("a::b", True),
        ("x->y", True),
        ("k=v", True),
        ("--flag", True),
        ("/usr/bin", True),
        ("a/b/c", True),
        ("e.g.", False),
        ("U.S.A.", False),
        ("3.5", False),
        ("fig.3", False),
        ("and/or", False),
        ("well-known", False),
        ("_not_", False),
        ("The", False),
    ],
)
def test_code_runs_by_kind(run: str, code: bool) -> None:
    assert is_code_run(run) == code


_WORD = st.text("abcdefgkrtxyz", min_size=2, max_size=6)
_CASED_WORD = st.tuples(_WORD, st.sampled_from([str.lower, str.upper, str.title])).map(lambda t: t[1](t[0]))
_JOINERS = ["_", ".", "::", "->", "="]  # one slash between words is prose (and/or): paths below


@st.composite
def identifier_runs(draw) -> str:
    """A run of code: words joined by one joiner, a call of them, a path or an option."""
    words = draw(st.lists(_CASED_WORD, min_size=2, max_size=4))
    shape = draw(st.sampled_from(["joined", "call", "path", "option"]))
    if shape == "call":
        return f"{words[0]}({','.join(words[1:])})"
    if shape == "path":
        return "/" + "/".join(words)
    if shape == "option":
        return "--" + "-".join(words)
    return draw(st.sampled_from(_JOINERS)).join(words)


@settings(max_examples=200, deadline=None)
@given(identifier_runs(), st.data())
def test_any_identifier_run_changed_by_case_is_never_found(run: str, data) -> None:
    letters = [i for i, c in enumerate(run) if c.isalpha()]
    flips = data.draw(st.sets(st.sampled_from(letters), min_size=1))
    changed = "".join(c.swapcase() if i in flips else c for i, c in enumerate(run))
    assume(changed != run)
    source = f"Then set {run} before the first request of the day."
    assert verdict(f"set {run} before the first request", source) == FOUND
    assert verdict(f"set {changed} before the first request", source)[0] != "found"


@settings(max_examples=100, deadline=None)
@given(st.lists(_WORD, min_size=4, max_size=8))
def test_a_capital_at_a_sentence_start_of_prose_is_always_found(words: list[str]) -> None:
    source = "It said so. " + " ".join(words) + " in the end."
    quote = " ".join(words)
    assert verdict(quote[0].upper() + quote[1:], source) == FOUND
    assert verdict(quote.upper(), source) == FOUND
