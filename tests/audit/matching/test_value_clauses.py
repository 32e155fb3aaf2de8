"""Alternative-value clauses: an ellipsis over ``, or None for no limit,`` is honest; every other elided negator
is still refused (docs/audit-rules.md, "Alternative-value clauses"). Each test names the failure mode it guards.
"""

from __future__ import annotations

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference
from claimgate.audit.matching.value_clauses import elides_whole_clauses, value_clause
from claimgate.audit.text.negation import negation_positions
from claimgate.audit.text.reference import normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st


def audit(quote, source):
    """Audit ``quote`` against one document holding ``source``, with both implementations agreeing."""
    index = build_corpus_index({"d": source})
    fast = audit_quote(quote, "d", index)
    assert fast == audit_quote_reference(quote, "d", index)
    return fast["verdict"], fast["reason"]


#: Honest: the ellipsis hides one whole clause saying what another value means.
HONEST = [
    (
        "timeout: seconds to wait for a reply, or None for no limit, before the call raises TimeoutError.",
        "seconds to wait for a reply … before the call raises TimeoutError",
    ),
    (
        "The read timeout in seconds (0 means no timeout) is applied to every request the client sends.",
        "The read timeout in seconds … is applied to every request the client sends",
    ),
    (
        "The queue holds this many items at once; use -1 for no cap; the producer blocks when it is full.",
        "The queue holds this many items at once … the producer blocks when it is full",
    ),
    (
        "The cache key prefix — or null for none — is prepended to every stored entry.",
        "The cache key prefix … is prepended to every stored entry",
    ),
    (
        "maxsize: entries kept in the cache. None means no bound. Older entries are evicted first.",
        "entries kept in the cache … Older entries are evicted first",
    ),
    (
        "retries: attempts before giving up, or `0` for no retries, counted per request.",
        "attempts before giving up … counted per request",
    ),
    (
        "The walk depth (an int, or None: no limit) sets how far the walker descends into folders.",
        "The walk depth (an int … sets how far the walker descends into folders",
    ),
    (
        "The buffer size in bytes, or -1 meaning no buffering, controls how the file is written.",
        "The buffer size in bytes … controls how the file is written",
    ),
    (
        "Set the number of worker threads (0 = no workers) before the pool starts.",
        "Set the number of worker threads … before the pool starts",
    ),
    (
        "Die Wartezeit in Sekunden (0 means no wait) gilt für jede Anfrage des Clients.",
        "Die Wartezeit in Sekunden … gilt für jede Anfrage des Clients",
    ),
]


@pytest.mark.parametrize(("source", "quote"), HONEST)
def test_ellipsis_over_a_whole_alternative_value_clause_is_found(source, quote):
    assert audit(quote, source) == ("found", "verbatim_match")


def test_trailing_ellipsis_over_an_alternative_value_clause_is_found():
    source = "The size of the connection pool, or 0 for no pooling."
    assert audit("The size of the connection pool …", source) == ("found", "verbatim_match")


def test_leading_ellipsis_before_the_rest_of_the_sentence_after_the_clause_is_found():
    source = "The limit is read from the file, or None for no limit, and applied once at start."
    assert audit("… and applied once at start", source)[0] == "found"


def test_clause_negation_kept_in_the_quote_still_matches_verbatim():
    source = "seconds to wait for a reply, or None for no limit, before the call raises TimeoutError."
    assert audit("seconds to wait for a reply, or None for no limit", source)[0] == "found"


def test_negation_outside_any_clause_under_an_ellipsis_is_still_refused():
    source = "This argument is required, but not when a default is set for the whole session."
    quote = "This argument is required … when a default is set for the whole session"
    assert audit(quote, source) == ("not_found", "elision_drops_negation")


def test_negator_between_commas_without_a_value_is_still_refused():
    source = "The key is never, or only rarely, read by the worker process at start."
    assert audit("The key is … read by the worker process at start", source) == ("not_found", "elision_drops_negation")


def test_eliding_only_the_tail_of_a_clause_is_refused():
    source = "seconds to wait for a reply, or None for no limit, before the call raises TimeoutError."
    quote = "seconds to wait for a reply, or None … before the call raises TimeoutError"
    assert audit(quote, source) == ("not_found", "elision_drops_negation")


def test_eliding_only_the_head_of_a_clause_is_refused():
    source = "seconds to wait for a reply, or None for no limit, before the call raises TimeoutError."
    quote = "seconds to wait for a reply … limit, before the call raises TimeoutError"
    assert audit(quote, source) == ("not_found", "elision_drops_negation")


def test_kept_text_continuing_an_independent_value_clause_is_refused():
    source = "Seconds to wait; 0 means no wait, and the call raises at once if the lock is taken."
    quote = "Seconds to wait … and the call raises at once if the lock is taken"
    assert audit(quote, source) == ("not_found", "elision_drops_negation")


def test_value_as_the_subject_of_a_negated_rule_is_refused():
    source = "The timeout in seconds; None is not accepted and the call raises TypeError."
    quote = "The timeout in seconds … accepted and the call raises TypeError"
    assert audit(quote, source) == ("not_found", "elision_drops_negation")


def test_comma_clause_without_or_is_not_an_alternative():
    source = "The timeout in seconds, None for no limit and not the default, is passed to the socket."
    assert audit("The timeout in seconds … is passed to the socket", source) == ("not_found", "elision_drops_negation")


def test_second_negation_beside_a_clause_in_one_elision_is_refused():
    source = "The option is read, or None for no limit, does not apply to the worker threads at all."
    quote = "The option is read … apply to the worker threads at all"
    assert audit(quote, source) == ("not_found", "elision_drops_negation")


def test_condition_inside_an_elided_clause_is_still_refused():
    source = "The cache size, or 0 for no cache unless debugging, is read once at start."
    assert audit("The cache size … is read once at start", source)[0] == "not_found"


def test_unclosed_parenthesis_is_no_clause():
    source = "The read timeout in seconds (0 means no timeout. It is applied to every request the client sends."
    quote = "The read timeout in seconds … It is applied to every request the client sends"
    assert audit(quote, source) == ("not_found", "elision_drops_negation")


def test_value_clause_finds_the_clause_span():
    text = normalize_text_reference("Wait this long, or None for no limit, then raise.")
    negations = negation_positions(text)
    clause = value_clause(text.tokens, text.original, text.starts, text.ends, frozenset(negations), negations[0])
    assert clause is not None
    assert " ".join(text.tokens[clause[0] : clause[1]]) == "or none for no limit"


def test_elides_whole_clauses_needs_the_clause_inside_the_gap():
    clauses = {6: (3, 8)}
    assert elides_whole_clauses([(0, 3), (8, 12)], clauses, 0, 0, 12)
    assert not elides_whole_clauses([(0, 4), (8, 12)], clauses, 0, 0, 12)  # kept text ends inside the clause
    assert not elides_whole_clauses([(0, 3), (7, 12)], clauses, 0, 0, 12)  # kept text resumes inside it
    assert elides_whole_clauses([(0, 3)], {4: (3, 8)}, 0, 3, 12)  # a trailing ellipsis over the clause
    assert not elides_whole_clauses([(0, 3)], {4: (2, 8)}, 0, 3, 12)  # the clause began in the kept text
    assert elides_whole_clauses([(5, 9)], {3: (1, 5)}, 3, 0, 12)  # a leading ellipsis over the clause
    assert not elides_whole_clauses([(5, 9)], {3: (1, 6)}, 3, 0, 12)


_WORDS = ("the", "client", "writer", "sends", "each", "request", "file", "folder", "once", "value", "reply", "pool",
          "stored", "entry", "worker", "reads", "keeps", "cache", "socket", "buffer")  # fmt: skip
_VALUES = ("None", "0", "-1", "`null`", "42", "`math.inf`")
_LINKS = ("for", "means", "meaning", "=", "indicates")
_NEGATORS = ("no", "none", "never")
_SHAPES = (", or {v} {l} {n} {w}, ", " ({v} {l} {n} {w}) ", "; use {v} {l} {n} {w}; ", " — or {v} {l} {n} {w} — ")
_words = st.lists(st.sampled_from(_WORDS), min_size=3, max_size=6)


@settings(max_examples=60, deadline=None)
@given(
    _words, _words, st.sampled_from(_SHAPES), st.sampled_from(_VALUES), st.sampled_from(_LINKS),
    st.sampled_from(_NEGATORS), st.sampled_from(_WORDS),
)  # fmt: skip
def test_property_any_honest_elision_of_a_whole_clause_is_found(before, after, shape, value, link, negator, word):
    clause = shape.format(v=value, l=link, n=negator, w=word)
    source = " ".join(before) + clause + " ".join(after) + "."
    assert audit(" ".join(before) + " … " + " ".join(after), source)[0] == "found"


@settings(max_examples=60, deadline=None)
@given(
    _words, _words, st.sampled_from(("not", "never", "no", "without", "hardly")), st.booleans(),
    st.sampled_from(_SHAPES), st.sampled_from(_VALUES),
)  # fmt: skip
def test_property_an_elided_negator_outside_a_clause_is_refused(before, after, negator, with_clause, shape, value):
    clause = shape.format(v=value, l="for", n="no", w="limit") if with_clause else " "
    source = " ".join(before) + clause + negator + " " + " ".join(after) + "."
    verdict, _ = audit(" ".join(before) + " … " + " ".join(after), source)
    assert verdict != "found"
