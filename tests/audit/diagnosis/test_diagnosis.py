"""Near-miss diagnosis of rejected citations: each test names the kind or the failure mode it guards."""

from __future__ import annotations

import json

import pytest
from claimgate.audit.diagnosis.diagnose import citation_diagnosis, diagnosis_with_steps
from claimgate.audit.diagnosis.kinds import DIAGNOSIS_KINDS, DIAGNOSIS_STEP_LIMIT
from claimgate.audit.diagnosis.nearest_passage import PassageIndex
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ...helpers import run_cli

ENROLLED = "We enrolled 412 adults aged 18 to 65 years in the trial."
RESULTS = "Monthly migraine days fell by 4.1 days with the drug and by 1.9 days with placebo."
NAUSEA = "Nausea was reported by 14% of participants receiving the drug."
POWERED = "The trial was not powered to assess rare adverse events in older adults."
DOCS = {
    "trial": f"Methods. {ENROLLED}\nResults. {RESULTS} {NAUSEA}\nConclusion. {POWERED}\n",
    "summary": "Evidence for adolescents was limited to two small trials and remains uncertain.",
}

# (kind, quote, the source sentence(s) it damages)
CASES = [
    ("number_changed", "Monthly migraine days fell by 4.7 days with the drug", [RESULTS]),
    ("number_changed", "Monthly migraine days fell by -4.1 days with the drug", [RESULTS]),
    ("number_changed", "We enrolled 412 adults aged 18 to years in the trial", [ENROLLED]),
    ("negation_changed", "The trial was powered to assess rare adverse events", [POWERED]),
    ("negation_changed", "Nausea was not reported by 14% of participants", [NAUSEA]),
    ("negation_changed", "... powered to assess rare adverse events", [POWERED]),
    ("unmarked_elision", "The trial was not powered to assess adverse events in older adults", [POWERED]),
    ("light_edit", "The trial was not designed to assess rare adverse events", [POWERED]),
    (
        "stitched",
        "Monthly migraine days fell by 4.1 days with the drug to assess rare adverse events",
        [RESULTS, POWERED],
    ),
    ("stitched", "The trial was not powered to assess monthly migraine days fell by 4.1 days", [RESULTS, POWERED]),
    ("paraphrase", "Monthly migraine days went down by 4.1 days for people on the drug", [RESULTS]),
    ("fabricated", "Patients preferred the new inhaler over tablets in every age group", []),
]


@pytest.fixture(scope="module")
def index():
    return build_corpus_index(DOCS)


@pytest.fixture(scope="module")
def passages(index):
    return PassageIndex(index)


def diagnose(quote, cited, index, passages, **kw):
    match = audit_quote(quote, cited, index)
    return match, citation_diagnosis(quote, cited, match, passages, **kw)


def assert_spans_slice_the_originals(quote: str, diagnosis: dict) -> None:
    nearest = diagnosis["nearest"]
    if nearest is not None:
        doc = DOCS[nearest["doc_id"]]
        assert doc[nearest["start"] : nearest["end"]] == nearest["text"]
        assert 1 <= nearest["start_line"] <= nearest["end_line"]
    for edit in diagnosis["edits"]:
        qs, qe = edit["quote_span"]
        ss, se = edit["source_span"]
        assert quote[qs:qe] == edit["quote"]
        assert DOCS[nearest["doc_id"]][ss:se] == edit["source"]
        assert (qs < qe) or (ss < se)


@pytest.mark.parametrize("kind, quote, damaged", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_each_kind_is_recognised_and_nearest_overlaps_the_damaged_sentence(index, passages, kind, quote, damaged):
    match, diagnosis = diagnose(quote, "trial", index, passages)
    assert match["verdict"] == "not_found"
    assert diagnosis["kind"] == kind, diagnosis
    assert diagnosis["quote_tokens"] > 0
    assert_spans_slice_the_originals(quote, diagnosis)
    if kind == "fabricated":
        assert diagnosis["nearest"] is None and diagnosis["edits"] == []
        assert 2 * diagnosis["shared_tokens"] < diagnosis["quote_tokens"]
        return
    nearest = diagnosis["nearest"]
    assert 2 * diagnosis["shared_tokens"] >= diagnosis["quote_tokens"] or kind == "stitched"
    spans = [(DOCS["trial"].index(s), DOCS["trial"].index(s) + len(s)) for s in damaged]
    assert any(nearest["start"] < end and nearest["end"] > start for start, end in spans), (nearest, damaged)
    if kind == "stitched":  # and every damaged sentence gave a piece
        pieces = [piece["source_span"] for piece in diagnosis["pieces"]]
        assert all(any(ps < end and pe > start for ps, pe in pieces) for start, end in spans)


def test_changed_number_edit_names_both_numbers_with_their_spans(index, passages):
    quote = "Monthly migraine days fell by 4.7 days with the drug"
    _, diagnosis = diagnose(quote, "trial", index, passages)
    assert diagnosis["edits"] == [
        {
            "op": "replace",
            "quote": "4.7",
            "source": "4.1",
            "quote_span": [30, 33],
            "source_span": [DOCS["trial"].index("4.1 days"), DOCS["trial"].index("4.1 days") + 3],
        }
    ]
    assert diagnosis["shared_tokens"] == diagnosis["quote_tokens"] - 1


@pytest.mark.parametrize(
    "source, quote",
    [
        (
            "The effect held at p < 10\u207b\u2075 in all cohorts of the study.",
            "The effect held at p < 10\u207b\u2074 in all cohorts",
        ),
        ("Yields rose to 3.2e-4 mol in the second batch of runs.", "Yields rose to 3.2e-5 mol in the second batch"),
        (
            "Mean weight change was net \u22124 kg at week 12 in the trial.",
            "Mean weight change was net 4 kg at week 12",
        ),
    ],
    ids=["superscript-exponent", "e-notation-exponent", "sign"],
)
def test_changed_exponent_or_sign_is_number_changed(source, quote):
    idx = build_corpus_index({"d": source})
    match = audit_quote(quote, "d", idx)
    assert match["verdict"] == "not_found"
    diagnosis = citation_diagnosis(quote, "d", match, PassageIndex(idx))
    assert diagnosis["kind"] == "number_changed", diagnosis
    assert len(diagnosis["edits"]) == 1


def test_dropped_negation_is_a_delete_edit_at_the_quote_point(index, passages):
    quote = "The trial was powered to assess rare adverse events"
    _, diagnosis = diagnose(quote, "trial", index, passages)
    (edit,) = diagnosis["edits"]
    assert edit["op"] == "delete" and edit["source"] == "not" and edit["quote"] == ""
    assert edit["quote_span"] == [len("The trial was"), len("The trial was")]


def test_stitched_quote_lists_its_verbatim_pieces(index, passages):
    quote = "The trial was not powered to assess monthly migraine days fell by 4.1 days"
    _, diagnosis = diagnose(quote, "trial", index, passages)
    pieces = diagnosis["pieces"]
    assert len(pieces) == 2
    assert [p["text"] for p in pieces] == [
        "The trial was not powered to assess",
        "Monthly migraine days fell by 4.1 days",
    ]
    for piece in pieces:
        assert DOCS["trial"][slice(*piece["source_span"])] == piece["text"]


def test_misattributed_quote_names_where_it_occurs_and_the_near_passage_of_the_cited_document(index, passages):
    quote = "Evidence for adolescents was limited to two small trials"
    match, diagnosis = diagnose(quote, "trial", index, passages)
    assert match["verdict"] == "misattributed"
    assert diagnosis["occurs_in"] == ["summary"]
    assert diagnosis["kind"] == "fabricated"  # nothing like it in the cited document
    near = "The trial was not powered to assess rare adverse events for adolescents"
    docs = {**DOCS, "elsewhere": near}
    idx = build_corpus_index(docs)
    match, diagnosis = diagnose(near, "trial", idx, PassageIndex(idx))
    assert match["verdict"] == "misattributed" and diagnosis["occurs_in"] == ["elsewhere"]
    assert diagnosis["kind"] == "light_edit"
    assert diagnosis["nearest"]["doc_id"] == "trial"


def test_found_and_invalid_citations_have_no_diagnosis(index, passages):
    match, diagnosis = diagnose(RESULTS, "trial", index, passages)
    assert match["verdict"] == "found" and diagnosis is None
    assert citation_diagnosis(None, "trial", {"verdict": "invalid_citation"}, passages) is None


def test_short_quote_gets_a_diagnosis_only_when_a_differing_passage_is_near(index, passages):
    match, diagnosis = diagnose("rare adverse", "trial", index, passages)
    assert match["reason"] == "too_few_tokens" and diagnosis is None  # verbatim: the reason says it all
    match, diagnosis = diagnose("rare bad events", "trial", index, passages)
    assert match["reason"] == "too_few_tokens"
    assert diagnosis["kind"] == "light_edit" and diagnosis["edits"][0]["source"] == "adverse"
    match, diagnosis = diagnose("purple inhaler", "trial", index, passages)
    assert match["reason"] == "too_few_tokens" and diagnosis is None


def test_unknown_cited_document_is_diagnosed_against_the_closest_document(index, passages):
    match, diagnosis = diagnose("The trial was powered to assess rare adverse events", "nope", index, passages)
    assert match["reason"] == "unknown_cited_document"
    assert diagnosis["kind"] == "negation_changed" and diagnosis["nearest"]["doc_id"] == "trial"


def test_step_limit_falls_back_to_unknown_at_the_exact_step_count(index, passages):
    quote = "Monthly migraine days fell by 4.7 days with the drug"
    match = audit_quote(quote, "trial", index)
    diagnosis, steps = diagnosis_with_steps(quote, "trial", match, passages)
    assert diagnosis["kind"] == "number_changed" and 0 < steps < DIAGNOSIS_STEP_LIMIT
    enough, _ = diagnosis_with_steps(quote, "trial", match, passages, max_steps=steps)
    assert enough == diagnosis
    short, spent = diagnosis_with_steps(quote, "trial", match, passages, max_steps=steps - 1)
    assert short == {"kind": "unknown", "nearest": None, "shared_tokens": None, "quote_tokens": 10, "edits": []}
    assert spent > steps - 1


def test_pathological_quote_with_many_near_passages_is_unknown_within_the_step_limit():
    sentence = "the model was trained on public data and evaluated on held out benchmarks"
    docs = {"big": " ".join(f"{sentence} run {k}." for k in range(3000))}
    idx = build_corpus_index(docs)
    quote = " ".join([sentence] * 40) + " with zero cost"
    match = audit_quote(quote, "big", idx)
    assert match["verdict"] == "not_found"
    diagnosis, steps = diagnosis_with_steps(quote, "big", match, PassageIndex(idx))
    assert diagnosis["kind"] == "unknown"
    # the budget is charged before occurrences are materialized: the step that crossed it is one lookup
    assert steps > DIAGNOSIS_STEP_LIMIT


def test_document_lookups_stay_bounded_and_give_the_same_diagnosis_when_rebuilt(index):
    small = PassageIndex(index, max_documents=1)
    quote = "The trial was powered to assess rare adverse events"
    first = diagnose(quote, "trial", index, small)[1]
    diagnose("Evidence for adolescents was limited to two trials", "summary", index, small)  # evicts "trial"
    assert len(small._grams) == 1 and len(small._lines) <= 1
    assert diagnose(quote, "trial", index, small)[1] == first


def test_diagnosis_is_deterministic_and_json_ready(index, passages):
    for _, quote, _ in CASES:
        first = diagnose(quote, "trial", index, passages)[1]
        again = diagnose(quote, "trial", build_corpus_index(DOCS), PassageIndex(build_corpus_index(DOCS)))[1]
        assert first == again
        assert json.loads(json.dumps(first)) == first
        assert first["kind"] in DIAGNOSIS_KINDS


WORDS = RESULTS.rstrip(".").split()


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    at=st.integers(min_value=1, max_value=len(WORDS) - 2),
    op=st.sampled_from(["replace", "delete", "insert"]),
)
def test_one_token_edit_of_a_sentence_is_never_far_from_it(index, passages, at, op):
    words = list(WORDS)
    if op == "replace":
        words[at] = "zyzzyva"
    elif op == "delete":
        del words[at]
    else:
        words.insert(at, "zyzzyva")
    quote = " ".join(words)
    match, diagnosis = diagnose(quote, "trial", index, passages)
    assert match["verdict"] == "not_found"
    assert diagnosis["kind"] in ("number_changed", "negation_changed", "unmarked_elision", "light_edit")
    assert diagnosis["shared_tokens"] >= diagnosis["quote_tokens"] - 1
    assert_spans_slice_the_originals(quote, diagnosis)
    start = DOCS["trial"].index(RESULTS)
    assert start <= diagnosis["nearest"]["start"] < diagnosis["nearest"]["end"] <= start + len(RESULTS)


def _citations_file(tmp_path):
    path = tmp_path / "citations.jsonl"
    rows = [{"citation_id": f"c{i}", "claim": "", "doc_id": "trial", "quote": q} for i, (_, q, _) in enumerate(CASES)]
    rows.append({"citation_id": "honest", "claim": "", "doc_id": "trial", "quote": RESULTS})
    rows.append({"citation_id": "short", "claim": "", "doc_id": "trial", "quote": "rare"})
    rows.append({"citation_id": "no-doc", "claim": "", "quote": RESULTS})
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(DOCS))
    return path, corpus


def test_verdicts_are_identical_with_and_without_diagnosis(tmp_path):
    citations, corpus = _citations_file(tmp_path)
    on = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(corpus)))
    off = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(corpus), diagnose=False))
    assert all("diagnosis" not in row for row in off)
    assert [{k: v for k, v in row.items() if k != "diagnosis"} for row in on] == off
    kinds = [row.get("diagnosis", {}).get("kind") for row in on]
    assert kinds == [kind for kind, _, _ in CASES] + [None, None, None]


def test_partitioned_audit_gives_the_same_diagnoses(tmp_path):
    citations, corpus = _citations_file(tmp_path)
    local = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(corpus)))
    parts = drivers.audit_rows(
        drivers.run_audit(
            citations, drivers.CorpusFile(corpus), settings=RunSettings(executor="multiprocessing", partition_rows=4)
        )
    )
    assert parts == local


def test_no_diagnose_flag_writes_the_rows_without_diagnosis_and_counts_kinds_otherwise(tmp_path):
    citations, corpus = _citations_file(tmp_path)
    base = ["audit", "--corpus", str(corpus), "--citations", str(citations)]
    on = run_cli(*base, "--output", str(tmp_path / "on.jsonl"))
    off = run_cli(*base, "--output", str(tmp_path / "off.jsonl"), "--no-diagnose")
    assert on.returncode == 0 and off.returncode == 0, on.stderr + off.stderr
    rows_on = [json.loads(line) for line in (tmp_path / "on.jsonl").read_text().splitlines()]
    stripped = [json.dumps({k: v for k, v in r.items() if k != "diagnosis"}) for r in rows_on]
    assert stripped == [json.dumps(json.loads(line)) for line in (tmp_path / "off.jsonl").read_text().splitlines()]
    table = on.stdout.split("diagnosis")[1].split("wrote")[0]
    counts = dict(line.split() for line in table.splitlines()[2:] if line.strip())
    assert counts == {kind: str(sum(c[0] == kind for c in CASES)) for kind, _, _ in CASES}
    assert "diagnosis" not in off.stdout
    csv_off = run_cli(*base, "--output", str(tmp_path / "off.csv"), "--no-diagnose", "--quiet")
    assert csv_off.returncode == 0
    assert (tmp_path / "off.csv").read_text().splitlines()[0].split(",")[-1] == "model_calls"


TEXT = st.lists(
    st.one_of(
        st.sampled_from(" ".join(DOCS.values()).split()),
        st.sampled_from(
            ["...", "…", "[sic]", "[not]", "n't", "-4.1", "4.7", "not", "\u00ad", "ﬁ", "\n", "「」", "人工"]
        ),
        st.text(max_size=6),
    ),
    max_size=30,
).map(" ".join)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(quote=TEXT, cited=st.sampled_from(["trial", "summary", "nope"]))
def test_any_quote_gets_a_well_formed_diagnosis_or_none_and_never_raises(index, passages, quote, cited):
    match, diagnosis = diagnose(quote, cited, index, passages)
    if match["verdict"] == "found":
        assert diagnosis is None
    if diagnosis is None:
        return
    assert diagnosis["kind"] in DIAGNOSIS_KINDS
    assert diagnosis["quote_tokens"] > 0
    if diagnosis["shared_tokens"] is not None:
        assert 0 <= diagnosis["shared_tokens"] <= diagnosis["quote_tokens"]
    assert_spans_slice_the_originals(quote, diagnosis)
    assert ("occurs_in" in diagnosis) == (match["verdict"] == "misattributed")
