"""Editor's marks may not hide a deciding word, move a number, or replace a value in code.

Each test names the failure mode it guards; the rules are in docs/audit-rules.md ("Deciding
words", "Brackets in code and values", "Negation", "Case").
"""

from __future__ import annotations

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference
from claimgate.audit.matching.deciding import LITERALS
from claimgate.audit.text.negation import DECIDING_WORDS_BY_LANGUAGE, deciding_words, negation_positions
from claimgate.audit.text.reference import normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st


def verdict(quote: str, source: str, **kw) -> tuple[str, str]:
    index = build_corpus_index({"d": source})
    fast = audit_quote(quote, "d", index, **kw)
    assert fast == audit_quote_reference(quote, "d", index, **kw)
    return fast["verdict"], fast["reason"]


FOUND = ("found", "verbatim_match")

# --- conditions and exceptions ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Refunds are paid within ten days except when the item was opened by the buyer.",
            "Refunds are paid within ten days ... when the item was opened by the buyer",
        ),
        (
            "The job is retried automatically provided that the queue has spare capacity left.",
            "The job is retried automatically ... the queue has spare capacity left",
        ),
        (
            "Der Zugang wird gewährt, es sei denn, das Konto wurde gesperrt durch den Admin.",
            "Der Zugang wird gewährt ... das Konto wurde gesperrt durch den Admin",
        ),
        (
            "Le service est gratuit sauf pour les comptes créés avant la mise à jour.",
            "Le service est gratuit ... pour les comptes créés avant la mise à jour",
        ),
        (
            "El envío es gratuito salvo cuando el paquete supera el peso permitido.",
            "El envío es gratuito ... cuando el paquete supera el peso permitido",
        ),
    ],
)
def test_elision_hiding_a_condition_or_exception_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source) == ("not_found", "elision_drops_condition")


def test_bracket_standing_for_a_condition_is_refused() -> None:
    source = "Backups run nightly unless the disk is nearly full on that host."
    assert verdict("Backups run nightly [when] the disk is nearly full", source) == (
        "not_found",
        "bracket_drops_condition",
    )
    assert verdict("Backups run nightly [unless] the disk is nearly full", source) == FOUND


# --- bounds and comparatives ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The cluster scales to at most 64 nodes in a single region.",
            "The cluster scales to ... 64 nodes in a single region",
        ),
        (
            "Each request may carry fewer than 100 items in its body.",
            "Each request may carry ... 100 items in its body",
        ),
        ("The warranty covers phones under 2 years old at the date of claim.", "... 2 years old at the date of claim"),
        (
            "Latency of reads stays below 5 ms for cached reads on every replica.",
            "Latency of reads stays ... 5 ms for cached reads on every replica",
        ),
        (
            "Der Speicher reicht für höchstens 40 Dateien pro Nutzer und Tag.",
            "Der Speicher reicht für ... 40 Dateien pro Nutzer und Tag",
        ),
    ],
)
def test_elision_hiding_a_bound_next_to_the_kept_text_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source) == ("not_found", "elision_drops_bound")


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Uploaded request bodies larger than 10 MB are rejected by the proxy.",
            "Uploaded request bodies ... 10 MB are rejected by the proxy",
        ),
        (
            "The cache is used when the file is newer than the index built last night.",
            "The cache is used when the file is ... the index built last night",
        ),
        (
            "Test builds running slower than the nightly baseline are flagged in the weekly report.",
            "Test builds running ... the nightly baseline are flagged in the weekly report",
        ),
        (  # the comparative hidden, ``than`` kept: any word before ``than`` is one
            "The quota must stay wider than the window of the account in use.",
            "The quota must stay ... than the window of the account in use",
        ),
        (
            "Retries start when the latency is > 200 ms for a single request.",
            "Retries start when the latency is ... 200 ms for a single request",
        ),
        ("The plugin supports versions ≥ 3 from now on.", "The plugin supports versions ... 3 from now on"),
    ],
)
def test_elision_hiding_a_comparative_or_a_comparison_sign_is_refused(source: str, quote: str) -> None:
    # docs/audit-rules.md, "Deciding words": a word before ``than``, ``≤ ≥``, and ``< >`` before a number
    assert verdict(quote, source) == ("not_found", "elision_drops_bound")


def test_angle_brackets_and_arrows_that_compare_nothing_are_no_bound() -> None:
    source = "Then pass the path <dir> as the folder of the build tree, and a map a -> b gives each key its value."
    assert verdict("Then pass the path ... as the folder of the build tree", source) == FOUND
    assert verdict("and a map a ... b gives each key its value", source) == FOUND


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["than", "greater", "x", "5", "<", ">", "≥", "of", "the"]), max_size=12))
def test_the_word_before_than_and_a_sign_before_a_number_are_bounds(tokens: list[str]) -> None:
    runs = {(first, end) for first, end, kind in deciding_words(tokens) if kind == "bound"}
    for p, token in enumerate(tokens):
        if token == "than" and p:
            assert any(first <= p - 1 and p < end for first, end in runs)
        if token in ("<", ">") and p + 1 < len(tokens) and tokens[p + 1] == "5":
            assert (p, p + 2) in runs
        if token in ("<", ">") and (p + 1 == len(tokens) or tokens[p + 1] not in ("5", "than")):
            assert not any(first == p for first, _ in runs)


def test_bracket_standing_for_a_bound_is_refused() -> None:
    source = "Plans include up to 40 seats for each workspace this year."
    assert verdict("Plans include [the] 40 seats for each workspace", source) == ("not_found", "bracket_drops_bound")


def test_bound_deep_inside_a_long_elision_is_allowed() -> None:
    source = (
        "The new parser reads the whole file, which takes more memory than the old streaming one did on "
        "large inputs, and then reports every error it finds in one pass."
    )
    assert verdict("The new parser reads the whole file ... and then reports every error it finds", source) == (
        "found",
        "verbatim_match",
    )


_ENGLISH = DECIDING_WORDS_BY_LANGUAGE["english"]["condition"]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(_ENGLISH))
def test_any_listed_condition_elided_between_fragments_is_never_found(phrase: str) -> None:
    source = f"The nightly export keeps every record {phrase} the table was archived by an operator."
    quote = "The nightly export keeps every record ... the table was archived by an operator"
    assert verdict(quote, source)[0] == "not_found"


# --- an ellipsis moving a number ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "The minimum supported version is now 3.4 (it was 3.1 before the spring release).",
            "The minimum supported version is now ... was 3.1 before the spring release",
        ),
        (
            "The default pool size is 8 connections; older releases used 4 per worker process.",
            "The default pool size is ... used 4 per worker process",
        ),
    ],
)
def test_elision_moving_a_number_onto_another_subject_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source) == ("not_found", "elision_moves_number")


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Slice models reuse mature 2D encoders by reading 3D volumes as sequences of 2D slices.",
            "Slice models reuse mature ... sequences of 2D slices",
        ),
        (
            "The cache holds 64 entries for reads and 64 entries for writes in each worker.",
            "The cache holds ... 64 entries for writes in each worker",
        ),
    ],
)
def test_elision_over_the_same_number_as_the_kept_one_moves_nothing(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


def test_elision_over_a_different_number_before_a_kept_one_is_still_refused() -> None:
    source = "The cache holds 64 entries for reads and 32 entries for writes in each worker."
    quote = "The cache holds ... 32 entries for writes in each worker"
    assert verdict(quote, source) == ("not_found", "elision_moves_number")


# --- brackets in code and values ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Set retry=False to stop the client from retrying failed calls.", "Set retry=[True] to stop the client"),
        (
            "Install with pip install tool[docs] to build the manual pages.",
            "Install with pip install tool[test] to build the manual",
        ),
        (
            "Read the field with row['name'] inside the loop body.",
            "Read the field with row['email'] inside the loop body",
        ),
        (
            "The option is `cache[size]` in the configuration file.",
            "The option is `cache[ttl]` in the configuration file",
        ),
    ],
)
def test_bracket_in_code_is_literal_text(source: str, quote: str) -> None:
    assert verdict(quote, source) == ("not_found", "no_verbatim_match")
    assert verdict(source.rstrip("."), source) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The flag defaults to False for every new project.", "The flag defaults to [True] for every new project"),
        ("The flag defaults to None for every new project.", "The flag defaults to [null] for every new project"),
        (
            "Tune the value of max_retries before the first deploy.",
            "Tune the value of [the retry limit] before the first deploy",
        ),
        (
            "Tune the value of readTimeout before the first deploy.",
            "Tune the value of [the timeout] before the first deploy",
        ),
        (
            "The package needs version 2.31 of the client library.",
            "The package needs [a recent version] of the client library",
        ),
        ("The fee is 20 € per seat for the whole year.", "The fee is 20 [dollars] per seat for the whole year"),
    ],
)
def test_bracket_replacing_a_value_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source) == ("not_found", "bracket_replaces_value")


def test_literals_are_single_tokens() -> None:
    assert all(normalize_text_reference(w).tokens == (w,) for w in LITERALS)


# --- None the code literal -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "source",
    [
        "max_size: the largest entry in bytes, or None for unlimited entries in the cache.",
        "Pass `none` to skip the check entirely and keep the old entries in the cache.",
        "The callback returns None when the worker has finished every job in the cache.",
    ],
)
def test_none_the_code_literal_is_not_a_negation(source: str) -> None:
    assert len(negation_positions(normalize_text_reference(source))) == 0
    words = source.rstrip(".").split()
    quote = " ".join(words[:4]) + " ... " + " ".join(words[-5:])
    assert verdict(quote, source) == FOUND


def test_none_starting_a_sentence_still_negates() -> None:
    source = "We ran the suite twice. None of the runs failed on the new build."
    assert len(negation_positions(normalize_text_reference(source))) == 1
    assert verdict("... of the runs failed on the new build", source) == ("not_found", "elision_drops_negation")


# --- a quote in capitals ----------------------------------------------------------------------------


def test_quote_in_capitals_matches_mixed_case_source_tokens() -> None:
    source = "We evaluate on ImageNet and report top-1 accuracy with LoRA adapters."
    assert verdict("WE EVALUATE ON IMAGENET AND REPORT TOP-1 ACCURACY WITH LORA ADAPTERS", source) == FOUND
    # a quote with lowercase letters keeps its case: the changed identifier is refused
    assert verdict("We evaluate on Imagenet and report top-1 accuracy", source) == ("not_found", "no_verbatim_match")


# --- a quote starting or ending right at a deciding word -------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Fewer than 5% of runs fail on the nightly build.", "5% of runs fail on the nightly build"),
        ("The key is not required for local development setups.", "required for local development setups"),
        ("Orders ship free unless they weigh over 20 kg in total.", "Orders ship free"),
        ("The cache keeps entries for up to ten minutes per key.", "ten minutes per key"),
    ],
)
def test_quote_at_a_deciding_word_is_found_with_a_context_warning(source: str, quote: str) -> None:
    assert verdict(quote, source, min_tokens=3) == ("found", "verbatim_match_at_deciding_word")


def test_quote_away_from_deciding_words_has_no_warning() -> None:
    source = "Fewer than 5% of runs fail on the nightly build of the main branch."
    assert verdict("fail on the nightly build", source) == FOUND


def test_bracket_standing_in_the_source_code_is_refused() -> None:
    source = "Call `configure(mode, level)` before the first request is made."
    quote = "Call configure [the mode] level before the first request"
    assert verdict(quote, source) == ("not_found", "bracket_replaces_value")
    fenced = "Run this:\n```\nclient.start(retries, backoff)\n```\nand wait for the reply."
    assert verdict("client start [the] backoff and wait for the reply", fenced)[0] == "not_found"
    assert verdict("The default mode of [the] client is strict", "The default mode of the client is strict.") == FOUND
