"""Quote audit: each test names the failure mode or editorial mark it guards."""

from __future__ import annotations

import pickle
import random
import time

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

DOCS = {
    "supply": (
        "Terms of sale.\n"
        "The supplier is not entitled to raise prices during the term of this agreement.\n"
        "Deliveries are made within 30 days of the order."
    ),
    "trial": (
        "We enrolled adults aged 18\u201165 with a BMI ≥ 30 in the trial.\n"
        "Mean weight change was net −4 kg at week 12, and 125 patients completed follow-up.\n"
        "The drug may reduce blood pressure in some patients."
    ),
    "history": (
        "During his pontifi-\ncate the city grew. It was a well-\nknown fact that trade\n"
        "expanded in low-\nand high-level markets. The arms trade was regulated."
    ),
    "model": (
        "It improves accuracy by 3.5 points on the benchmark. The model was trained on public data.\n"
        "Our method outperforms the baseline on every dataset we tested."
    ),
    "cjk": "人工\n\n智能 的 研究 进展 很 快",
    "copy": "Our method outperforms the baseline on every dataset we tested, as reported before.",
    "typo": (
        "The e\ufb03cient algo\u00adrithm runs in linear\u00a0time on large graphs.\r\n"
        "It uses ТНЕ Cyrillic letters, sоme with о."
    ),
}


@pytest.fixture(scope="module")
def index():
    return build_corpus_index(DOCS)


def audit(quote, cited, index, **kw):
    """Audit with both implementations and require they agree."""
    fast = audit_quote(quote, cited, index, **kw)
    slow = audit_quote_reference(quote, cited, index, **kw)
    assert fast == slow
    for span in fast["spans"]:
        assert DOCS[span["doc_id"]][span["start"] : span["end"]] == span["text"]
    return fast


def assert_found(result, kind="exact"):
    assert result["verdict"] == "found", result
    assert result["reason"] == "verbatim_match"
    assert result["match_kind"] == kind
    assert result["spans"]


def assert_not_found(result, reason="no_verbatim_match"):
    assert result["verdict"] == "not_found", result
    assert result["reason"] == reason
    assert result["spans"] == [] and result["match_kind"] is None and result["matched_doc_ids"] == []


# --- verdicts ----------------------------------------------------------------------


def test_exact_quote_is_found_with_span_and_lines(index):
    r = audit("The supplier is not entitled to raise prices", "supply", index)
    assert_found(r)
    assert r["matched_doc_ids"] == ["supply"]
    (span,) = r["spans"]
    assert span["text"] == "The supplier is not entitled to raise prices"
    assert (span["start_line"], span["end_line"]) == (2, 2)
    assert list(r) == ["verdict", "reason", "match_kind", "matched_doc_ids", "spans"]
    assert list(span) == ["doc_id", "start", "end", "start_line", "end_line", "text"]


def test_fabricated_quote_is_not_found(index):
    assert_not_found(audit("The supplier may double prices every week", "supply", index))


def test_frankenquote_is_not_found(index):
    # first half of sentence 1 + second half of sentence 2, no ellipsis
    assert_not_found(audit("The supplier is not entitled to raise within 30 days of the order", "supply", index))


def test_misattributed_lists_matched_docs(index):
    r = audit("Our method outperforms the baseline on every dataset", "supply", index)
    assert r["verdict"] == "misattributed"
    assert r["reason"] == "found_in_other_document"
    assert r["matched_doc_ids"] == ["copy", "model"]
    assert r["spans"][0]["doc_id"] == "copy"


def test_unknown_cited_doc_is_never_found(index):
    r = audit("Our method outperforms the baseline on every dataset", "nope", index)
    assert r["verdict"] == "misattributed" and r["reason"] == "unknown_cited_document"
    assert_not_found(audit("a quote that exists nowhere at all", "nope", index), "unknown_cited_document")


def test_number_swap_is_not_found(index):
    assert_not_found(audit("It improves accuracy by 4.5 points", "model", index))
    assert_not_found(audit("It improves accuracy by 3 points", "model", index))


def test_inserted_negation_is_not_found(index):
    assert_not_found(audit("The drug may not reduce blood pressure", "trial", index))


def test_dropped_hedge_is_not_found(index):
    assert_not_found(audit("The drug reduce blood pressure in some patients", "trial", index))


def test_boundary_25_not_inside_125(index):
    assert_not_found(audit("and 25 patients completed follow-up", "trial", index))
    assert_found(audit("and 125 patients completed follow-up", "trial", index))


def test_arm_not_inside_arms(index):
    assert_not_found(audit("The arm trade was regulated", "history", index))


def test_insufficient_short_quote(index):
    r = audit("raise prices", "supply", index)
    assert r == {"verdict": "insufficient_quote", "reason": "too_few_tokens", "match_kind": None,
                 "matched_doc_ids": [], "spans": []}  # fmt: skip


def test_insufficient_empty_quote(index):
    for q in ("", "   ", "...", "—!"):
        assert audit(q, "supply", index)["reason"] == "empty_quote"
        assert audit(q, "supply", index)["verdict"] == "insufficient_quote"


def test_insufficient_short_fragment(index):
    r = audit("The supplier is not entitled ... prices", "supply", index)
    assert (r["verdict"], r["reason"]) == ("insufficient_quote", "fragment_too_short")


@given(n_words=st.integers(1, 6), min_tokens=st.integers(1, 6))
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
def test_without_an_ellipsis_min_tokens_alone_decides_and_with_one_each_fragment_needs_its_own(
    index, n_words, min_tokens
):
    # docs/audit-rules.md, "Minimum evidence": the per-fragment minimum is for ellipsis fragments only.
    words = "supplier is not entitled to raise".split()[:n_words]
    r = audit(" ".join(words), "supply", index, min_tokens=min_tokens)
    assert (r["verdict"] == "found") == (n_words >= min_tokens)
    if n_words < min_tokens:
        assert r["reason"] == "too_few_tokens"
    elided = audit(" ".join(words) + " ... during the term of this agreement", "supply", index, min_tokens=min_tokens)
    assert (elided["verdict"] == "found") == (n_words >= 3)  # the default min_fragment_tokens
    if n_words < 3:
        assert elided["reason"] == "fragment_too_short"


def test_min_tokens_is_a_parameter(index):
    assert audit("raise prices", "supply", index, min_tokens=2, min_fragment_tokens=2)["verdict"] == "found"


# --- editorial marks ---------------------------------------------------------------


@pytest.mark.parametrize("mark", ["...", "…", ". . .", "[...]", "[…]"])
def test_each_ellipsis_spelling_is_elided(index, mark):
    r = audit(f"The supplier is not {mark} during the term of this agreement", "supply", index)
    assert_found(r, "elided")
    assert [s["text"] for s in r["spans"]] == ["The supplier is not", "during the term of this agreement"]


def test_bracket_sic_is_bracketed(index):
    assert_found(audit("Deliveries are made [sic] within 30 days", "supply", index), "bracketed")


def test_bracket_stands_for_source_words(index):
    r = audit("[The method] improves accuracy by 3.5 points", "model", index)
    assert_found(r, "bracketed")
    assert r["spans"][0]["text"] == "improves accuracy by 3.5 points"
    # an inserted bound adds a fact (docs/audit-rules.md, "Ellipses and brackets")
    r = audit("accuracy by [about] 3.5 points on the benchmark", "model", index)
    assert (r["verdict"], r["reason"]) == ("not_found", "bracket_inserts_bound")
    assert_found(audit("The model [the system] trained on public data", "model", index), "bracketed")


def test_bracket_the_model_stands_for_it():
    idx = build_corpus_index({"d": "In our tests it improves recall on long documents."})
    r = audit_quote("In our tests [the model] improves recall on long documents", "d", idx)
    assert (r["verdict"], r["match_kind"]) == ("found", "bracketed")
    assert r["spans"][0]["text"] == "In our tests it improves recall on long documents"


def test_bracket_for_more_than_four_words_is_not_found(index):
    assert_not_found(audit("It improves [x] benchmark. The model was trained", "model", index))


def test_bracketed_letter_fused_to_word(index):
    r = audit("[T]he model was trained on public data", "model", index)
    assert_found(r, "bracketed")
    assert r["spans"][0]["text"] == "The model was trained on public data"
    assert_not_found(audit("[X]he model was trained on public data", "model", index))


def test_brackets_that_are_the_sources_own_match_literally():
    idx = build_corpus_index({"d": "We store a join-index column J[c]=p per segment pair, as in [12] and [13]."})
    assert audit_quote("a join-index column J[c]=p per segment", "d", idx)["verdict"] == "found"
    assert audit_quote("column J[c]=p per segment pair, as in [12]", "d", idx)["verdict"] == "found"
    assert audit_quote("column J[d]=p per segment pair", "d", idx)["verdict"] == "not_found"
    # an editorial bracket next to a bracket of the source's own
    assert audit_quote("a join-index column [sic] J[c]=p per segment", "d", idx)["verdict"] == "found"


def test_ellipsis_that_is_the_sources_own_matches_literally():
    idx = build_corpus_index({"d": "Let a, b, ..., z be the letters of the alphabet."})
    # editorially 'a, b' would be a fragment too short; read literally it is contiguous
    r = audit_quote("a, b, ..., z be the letters", "d", idx)
    # the ellipsis is the source's own, matched literally first: no editor's mark is left
    assert (r["verdict"], r["match_kind"]) == ("found", "exact")
    assert [s["text"] for s in r["spans"]] == ["a, b, ..., z be the letters"]
    assert audit_quote("a, c, ..., z be the letters", "d", idx)["reason"] == "fragment_too_short"


def test_ellipsis_and_brackets_together_are_elided(index):
    r = audit("[T]he supplier is not ... during the term of this agreement", "supply", index)
    assert_found(r, "elided")


def test_reversed_fragments_not_found(index):
    assert_not_found(audit("during the term of this agreement ... The supplier is not", "supply", index))


def test_cross_document_fragments_not_found(index):
    assert_not_found(audit("The supplier is not ... on every dataset we tested", "supply", index))


def test_elision_drops_negation(index):
    r = audit("The supplier is … entitled to raise prices", "supply", index)
    assert_not_found(r, "elision_drops_negation")


def test_elision_drops_contraction_negation():
    idx = build_corpus_index({"d": "The new tenant isn't allowed to keep any pets inside."})
    r = audit_quote("The new tenant ... allowed to keep any pets", "d", idx)
    assert (r["verdict"], r["reason"]) == ("not_found", "elision_drops_negation")


def test_bracket_hiding_negation_is_not_found(index):
    r = audit("The supplier is [truly] entitled to raise prices", "supply", index)
    assert_not_found(r, "bracket_drops_negation")
    # a bracket that keeps the negation may stand for it
    assert_found(audit("The supplier [is not] entitled to raise prices", "supply", index), "bracketed")


def test_elision_prefers_placement_without_negation():
    text = "Retail prices are not fixed by law. Retail prices are, in practice, fixed by law."
    idx = build_corpus_index({"d": text})
    r = audit_quote("Retail prices are ... fixed by law", "d", idx)
    assert r["verdict"] == "found"
    assert r["spans"][0]["start"] == text.index("Retail prices are,")


def test_window_limit(index):
    long_doc = "Alpha beta gamma delta. " + "filler words here. " * 200 + "Epsilon zeta eta theta."
    idx = build_corpus_index({"d": long_doc})
    q = "Alpha beta gamma ... Epsilon zeta eta"
    assert audit_quote(q, "d", idx)["verdict"] == "not_found"
    r = audit_quote(q, "d", idx, window_chars=len(long_doc))
    assert r["verdict"] == "found" and len(r["spans"]) == 2
    assert r["spans"][1]["end"] - r["spans"][0]["start"] <= len(long_doc)


# --- brackets may not change a number or a negation -----------------------------------

TRIAL = {
    "os": "Overall survival was 25 months in the treated arm and 19 months in the control arm.",
    "diff": "The difference was \u22122.2 days between the two groups in the trial.",
    "prior": "Some patients without prior therapy responded well to the drug.",
    "adults": "In the study the treatment was effective in most adults.",
    "unsafe": "It was deemed unsafe for use in children under five.",
}


@pytest.fixture(scope="module")
def trial_index():
    return build_corpus_index(TRIAL)


def audit_trial(quote, cited, trial_index):
    fast = audit_quote(quote, cited, trial_index)
    assert fast == audit_quote_reference(quote, cited, trial_index)
    return fast


def test_bracket_changes_number(trial_index):
    r = audit_trial("Overall survival was [125] months in the treated arm", "os", trial_index)
    assert_not_found(r, "bracket_changes_number")
    # the bracket may restate the number it stands for
    assert_found(audit_trial("Overall survival was [25] months in the treated arm", "os", trial_index), "bracketed")


def test_bracket_changes_sign_of_number(trial_index):
    r = audit_trial("The difference was [+2.2] days between the two groups", "diff", trial_index)
    assert_not_found(r, "bracket_changes_number")
    r = audit_trial("The difference was [\u22122.2] days between the two groups", "diff", trial_index)
    assert_found(r, "bracketed")


def test_unanchored_bracket_with_number_changes_number(trial_index):
    # a bracket before the first literal word stands for no source token
    r = audit_trial("[125] months in the treated arm and 19 months", "os", trial_index)
    assert_not_found(r, "bracket_changes_number")


def test_bracket_inserts_negation(trial_index):
    r = audit_trial("the treatment was [not] effective in most adults", "adults", trial_index)
    assert_not_found(r, "bracket_inserts_negation")


def test_unanchored_bracket_inserts_negation(trial_index):
    r = audit_trial("[No] patients without prior therapy responded well", "prior", trial_index)
    assert_not_found(r, "bracket_inserts_negation")


def test_bracket_word_substitution_is_accepted_by_design_but_not_a_dropped_negating_prefix(trial_index):
    # bracketed text is the editor's own words; whether it supports the claim is the judge's call
    risky = "It was deemed [risky] for use in children under five"
    assert_found(audit_trial(risky, "unsafe", trial_index), "bracketed")
    # ...but "[safe]" for "unsafe" drops the prefix that reverses the word (docs/audit-rules.md, "Negation")
    r = audit_trial("It was deemed [safe] for use in children under five", "unsafe", trial_index)
    assert (r["verdict"], r["reason"]) == ("not_found", "bracket_drops_negation")


def test_honest_brackets_stay_found(index):
    assert_found(audit("Deliveries are made [sic] within 30 days", "supply", index), "bracketed")
    assert_found(audit("[T]he model was trained on public data", "model", index), "bracketed")
    assert_found(audit("The model was trained [emphasis added] on public data", "model", index), "bracketed")
    assert_found(audit("The model was trained on public data [emphasis added]", "model", index), "bracketed")
    idx = build_corpus_index({"d": "In our tests it improves recall on long documents."})
    r = audit_quote("In our tests [the model] improves recall on long documents", "d", idx)
    assert (r["verdict"], r["match_kind"]) == ("found", "bracketed")


def test_bracket_prefers_gap_that_keeps_the_number():
    # gap 1 would cover '12', gap 2 covers '12 of 25' which holds the bracket's 25; a bracket may
    # not replace a number either, so '[25]' for '12 of 25' is refused (docs/audit-rules.md,
    # "Brackets in code and values") while '[12 of 25]' for it stands
    idx = build_corpus_index({"d": "In the cohort 12 of 25 patients responded within a week."})
    r = audit_quote("In the cohort [25] patients responded within a week", "d", idx)
    assert (r["verdict"], r["reason"]) == ("not_found", "bracket_replaces_value")
    assert audit_quote("In the [12 of 25] patients responded within a week", "d", idx)["verdict"] == "found"


# --- an edge ellipsis may not hide a negation -----------------------------------------


def test_leading_ellipsis_hiding_negation_is_not_found():
    idx = build_corpus_index({"d": "No patients had serious adverse events during the follow-up period."})
    r = audit_quote("... patients had serious adverse events during the follow-up period", "d", idx)
    assert (r["verdict"], r["reason"]) == ("not_found", "elision_drops_negation")
    assert r == audit_quote_reference("... patients had serious adverse events during the follow-up period", "d", idx)


def test_trailing_ellipsis_hiding_negation_is_not_found():
    idx = build_corpus_index({"d": "Under this contract the supplier is not entitled to raise prices."})
    for mark in ("...", "…", "[...]"):
        r = audit_quote(f"Under this contract the supplier is {mark}", "d", idx)
        assert (r["verdict"], r["reason"]) == ("not_found", "elision_drops_negation"), mark


def test_edge_ellipsis_checks_three_tokens_only():
    idx = build_corpus_index({"d": "No, said the board: patients had serious adverse events during follow-up."})
    # 'no' is four tokens before the fragment: outside the checked edge
    r = audit_quote("... patients had serious adverse events during follow-up", "d", idx)
    assert (r["verdict"], r["match_kind"]) == ("found", "elided")


def test_edge_ellipsis_at_document_start_is_found():
    idx = build_corpus_index({"d": "Patients had serious adverse events during follow-up, not later."})
    r = audit_quote("... Patients had serious adverse events during follow-up", "d", idx)
    assert r["verdict"] == "found"
    # 'not' is right after the fragment: a trailing ellipsis would hide it
    r = audit_quote("Patients had serious adverse events during follow-up ...", "d", idx)
    assert (r["verdict"], r["reason"]) == ("not_found", "elision_drops_negation")


def test_edge_ellipsis_prefers_placement_without_negation():
    text = "No patients had serious adverse events. In the open phase, patients had serious adverse events."
    idx = build_corpus_index({"d": text})
    r = audit_quote("... patients had serious adverse events", "d", idx)
    assert r["verdict"] == "found"
    assert r["spans"][0]["start"] == text.rindex("patients had")  # the second one: no 'No' before it


def test_edge_ellipsis_is_editorial_in_the_literal_reading_too():
    # read literally (ellipsis as the source's punctuation) the quote is a plain substring;
    # the leading ellipsis still elides the source's 'No'
    idx = build_corpus_index({"d": "No patients had serious adverse events, we found."})
    r = audit_quote("… patients had serious adverse events", "d", idx)
    assert (r["verdict"], r["reason"]) == ("not_found", "elision_drops_negation")


# --- matching cost is bounded ----------------------------------------------------------

REPETITIVE = "alpha beta gamma " * 3000


def test_bracketed_quote_on_repetitive_document_is_not_exponential():
    # the tester's case: each '[x y]' can stand for 0 or 3 tokens, 2**25 gap choices per start
    idx = build_corpus_index({"d": REPETITIVE})
    quote = " [x y] ".join(["alpha beta gamma"] * 25) + " [x] zzz"
    t0 = time.perf_counter()
    assert audit_quote(quote, "d", idx)["reason"] == "no_verbatim_match"
    assert time.perf_counter() - t0 < 5  # loose: the machine may be shared
    # 'zzz' in the document (so no shortcut): still decided within segments x starts x 5 steps
    idx = build_corpus_index({"d": "zzz " + REPETITIVE})
    r = audit_quote(quote, "d", idx, max_steps=25 * 3000 * 5 + 3000)
    assert (r["verdict"], r["reason"]) == ("not_found", "no_verbatim_match")


def test_many_ellipses_on_repetitive_document_are_bounded():
    quote = " ... ".join(["alpha beta gamma"] * 60)
    idx = build_corpus_index({"d": "alpha beta gamma not " * 3000})
    r = audit_quote(quote, "d", idx, max_steps=60 * 3000 * 3)  # placements, strict and loose chains
    assert (r["verdict"], r["reason"]) == ("not_found", "elision_drops_negation")
    idx = build_corpus_index({"d": REPETITIVE + "filler " * 400 + "delta epsilon zeta"})
    t0 = time.perf_counter()
    r = audit_quote(quote + " ... delta epsilon zeta", "d", idx, max_steps=61 * 3000 * 2)
    assert (r["verdict"], r["reason"]) == ("not_found", "no_verbatim_match")  # every chain is too wide
    assert time.perf_counter() - t0 < 5


def test_match_over_step_budget_fails_closed(index):
    q = "The supplier is not entitled to raise prices"
    assert audit(q, "supply", index)["verdict"] == "found"
    assert_not_found(audit(q, "supply", index, max_steps=0), "match_too_complex")
    # another document over the budget counts as not matching: never misattributed from it
    r = audit("Our method outperforms the baseline on every dataset", "supply", index, max_steps=0)
    assert_not_found(r, "no_verbatim_match")


def test_three_citations_of_the_tester_finish():
    idx = build_corpus_index({"d": "zzz " + REPETITIVE})
    quote = " [x y] ".join(["alpha beta gamma"] * 25) + " [x] zzz"
    t0 = time.perf_counter()
    assert [audit_quote(quote, "d", idx)["verdict"] for _ in range(3)] == ["not_found"] * 3
    assert time.perf_counter() - t0 < 15


# --- normalization through the audit ------------------------------------------------


def test_cjk_across_blank_lines(index):
    r = audit("人工智能的研究", "cjk", index)
    assert_found(r)
    assert r["spans"][0]["text"] == "人工\n\n智能 的 研究"
    assert (r["spans"][0]["start_line"], r["spans"][0]["end_line"]) == (1, 3)


def test_cyrillic_lookalikes(index):
    assert_found(audit("It uses ТНЕ Cyrillic letters", "typo", index))  # same capitals as the source
    assert_found(audit("Cyrillic letters, some with o", "typo", index))  # Latin o for Cyrillic о
    assert_found(audit("The suppliеr is nоt entitled", "supply", index))  # Cyrillic е, о in the quote


def test_symbols_ge_equals_ascii(index):
    assert_found(audit("with a BMI >= 30 in the trial", "trial", index))


def test_symbols_le_is_not_ge(index):
    assert_not_found(audit("with a BMI ≤ 30 in the trial", "trial", index))


def test_symbols_dropped_comparison_is_not_found(index):
    assert_not_found(audit("with a BMI 30 in the trial", "trial", index))


def test_symbols_net_minus_4_is_not_net_4(index):
    assert_found(audit("Mean weight change was net -4 kg", "trial", index))
    assert_not_found(audit("Mean weight change was net 4 kg", "trial", index))


def test_symbols_non_breaking_hyphen_range(index):
    assert_found(audit("We enrolled adults aged 18-65", "trial", index))


def test_line_end_hyphen_typesetter_reading(index):
    assert_found(audit("During his pontificate the city grew", "history", index))


def test_line_end_hyphen_real_hyphen_reading(index):
    assert_found(audit("It was a well-known fact", "history", index))
    assert_found(audit("expanded in low- and high-level markets", "history", index))


def test_line_end_hyphen_in_the_quote(index):
    assert_found(audit("The model was trai-\nned on public data", "model", index))
    assert_found(audit("Our method out-\nperforms the baseline", "model", index))
    assert_found(audit("It was a well-\nknown fact", "history", index))


def test_ligatures(index):
    assert_found(audit("The efficient algorithm runs", "typo", index))
    assert_found(audit("The eﬃcient algorithm runs", "typo", index))


def test_soft_hyphens(index):
    assert_found(audit("The efficient algorithm runs in linear time", "typo", index))
    assert_found(audit("large gra\u00adphs. It uses", "typo", index))


def test_nbsp(index):
    assert_found(audit("runs in linear time on large graphs", "typo", index))
    assert_found(audit("The\u00a0supplier\u00a0is\u00a0not entitled", "supply", index))


def test_crlf(index):
    r = audit("on large graphs. It uses", "typo", index)
    assert_found(r)
    assert "\r\n" in r["spans"][0]["text"] and r["spans"][0]["end_line"] == 2


def test_case_and_smart_typography(index):
    assert_found(audit("“THE SUPPLIER IS NOT ENTITLED — TO RAISE PRICES”", "supply", index))


def test_index_is_picklable(index):
    again = pickle.loads(pickle.dumps(index))
    q = "Our method outperforms the baseline on every dataset"
    assert audit_quote(q, "supply", again) == audit_quote(q, "supply", index)


def test_audit_is_deterministic(index):
    q = "The supplier is … entitled to raise prices"
    assert [audit_quote(q, "supply", index) for _ in range(3)] == [audit_quote(q, "supply", index)] * 3


def test_empty_corpus_fails_closed():
    idx = build_corpus_index({})
    assert audit_quote("some quote with enough words", "x", idx)["verdict"] == "not_found"


# --- generated corpora: properties and agreement -------------------------------------

WORDS = ["alpha", "beta", "gamma", "delta", "model", "data", "not", "3.5", "25", "125", "arm", "arms", "the", "of"]
OUTSIDE = ["zzyzx", "quux", "frobnicate"]

doc_text = st.lists(st.sampled_from(WORDS + [",", ".", "\n", "-", "—"]), min_size=6, max_size=60).map(" ".join)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc_text, min_size=1, max_size=4), data=st.data())
def test_honest_contiguous_quote_is_always_found(docs, data):
    corpus = {f"d{k}": t for k, t in enumerate(docs)}
    idx = build_corpus_index(corpus)
    k = data.draw(st.integers(0, len(docs) - 1))
    doc = idx.docs[k]
    n = len(doc.starts)
    if n < 4:
        return
    i = data.draw(st.integers(0, n - 4))
    j = data.draw(st.integers(i + 4, n))
    quote = doc.original[doc.starts[i] : doc.ends[j - 1]]
    r = audit_quote(quote, f"d{k}", idx)
    assert r["verdict"] == "found", (quote, r)
    for span in r["spans"]:
        assert corpus[span["doc_id"]][span["start"] : span["end"]] == span["text"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(docs=st.lists(doc_text, min_size=1, max_size=4), data=st.data())
def test_one_replaced_word_is_never_found(docs, data):
    corpus = {f"d{k}": t for k, t in enumerate(docs)}
    idx = build_corpus_index(corpus)
    doc = idx.docs[0]
    n = len(doc.starts)
    if n < 4:
        return
    i = data.draw(st.integers(0, n - 4))
    j = data.draw(st.integers(i + 4, n))
    r_pos = data.draw(st.integers(i, j - 1))
    text = doc.original
    outside = data.draw(st.sampled_from(OUTSIDE))
    quote = text[doc.starts[i] : doc.starts[r_pos]] + outside + text[doc.ends[r_pos] : doc.ends[j - 1]]
    r = audit_quote(quote, "d0", idx)
    assert r["verdict"] != "found"
    assert r == audit_quote_reference(quote, "d0", idx)


@settings(max_examples=80, deadline=None)
@given(docs=st.lists(st.text(min_size=0, max_size=200), min_size=1, max_size=3), quote=st.text(max_size=80))
def test_every_span_slices_back_to_the_original(docs, quote):
    corpus = {f"d{k}": t for k, t in enumerate(docs)}
    idx = build_corpus_index(corpus)
    r = audit_quote(quote, "d0", idx, min_tokens=1, min_fragment_tokens=1)
    assert r == audit_quote_reference(quote, "d0", idx, min_tokens=1, min_fragment_tokens=1)
    for span in r["spans"]:
        assert corpus[span["doc_id"]][span["start"] : span["end"]] == span["text"]
        assert 1 <= span["start_line"] <= span["end_line"]


def test_indexed_and_scan_agree_on_generated_mix():
    rng = random.Random(7)
    vocab = [f"w{k}" for k in range(60)] + ["not", "never", "3.5", "≥", "−4", "well-\nknown", "pontifi-\ncate"]
    corpus = {}
    for k in range(120):
        words = [rng.choice(vocab) for _ in range(rng.randint(20, 80))]
        corpus[f"doc{k:03d}"] = " ".join(words)
    idx = build_corpus_index(corpus)
    ids = sorted(corpus)
    verdicts = set()
    for c in range(400):
        d = rng.choice(ids)
        w = corpus[d].split(" ")
        i = rng.randrange(0, max(1, len(w) - 12))
        kind = c % 6
        if kind == 0:
            q = " ".join(w[i : i + 8])
        elif kind == 1:
            q = " ".join(w[i : i + 4]) + " ... " + " ".join(w[i + 6 : i + 10])
        elif kind == 2:
            q = " ".join(w[i : i + 4]) + " [sic] " + " ".join(w[i + 4 : i + 8])
        elif kind == 3:
            q = " ".join(rng.choice(vocab) for _ in range(6))
        elif kind == 4:
            q = " ".join(w[i + 6 : i + 10]) + " ... " + " ".join(w[i : i + 4])
        else:
            q = " ".join(w[i : i + 5]).replace("pontifi-\ncate", "pontificate")
        cited = d if c % 3 else rng.choice(ids)
        a = audit_quote(q, cited, idx)
        assert a == audit_quote_reference(q, cited, idx), (q, cited)
        verdicts.add(a["verdict"])
    assert {"found", "misattributed", "not_found"} <= verdicts
