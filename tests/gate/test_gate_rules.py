"""The exact rules of docs/gate-rules.md, through the batch gate (``drivers.run_gate``) and the one-case reference.

Request checks and their order, directive errors, claim spans, ``document_revision``,
version selection, candidate order, and the batch gate equal to ``reference.decide_case``
field for field (on the fixtures and on a seeded random case table with bad rows). The
answer request's exact text and the result object of each status: ``test_result_object.py``.
"""

from __future__ import annotations

import hashlib
import json
import random
import shutil
from pathlib import Path

import pytest
from claimgate.errors import DirectiveError
from claimgate.execution import drivers
from claimgate.gate.directives import parse_directives
from claimgate.gate.reference import decide_case
from claimgate.gate.schema import load_schema

from ..helpers import FIXTURES, pin_sources
from .test_result_object import CLAIM_FIELDS

QUILL = load_schema()


def case(case_id: str, candidates: object, version: object = "1.0", key: object = "existing_path", **extra) -> dict:
    return {"case_id": case_id, "candidate_ids": candidates, "requested_version": version, "claim_key": key, **extra}


def run_cases(tmp_path: Path, rows: list, manifest: Path | None = None) -> dict:
    """Run the gate over ``rows`` (Quill fixtures unless ``manifest``); return ``{case_id: result}``."""
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(rows), encoding="utf-8")
    run = drivers.run_gate(manifest or FIXTURES / "manifest.json", cases)
    return dict(zip(run.results["case_id"], run.results["result"]))


def sources_of(run: drivers.GateRun) -> dict:
    return {record["source_id"]: record for record in run.verified_sources.to_dict("records")}


@pytest.fixture(scope="module")
def quill_with_bad_version(tmp_path_factory) -> Path:
    """A copy of the Quill fixtures whose manifest adds ``quill-rc`` pinned with version ``1.0-rc``."""
    copy = tmp_path_factory.mktemp("bad-version") / "fixtures"
    shutil.copytree(FIXTURES, copy)
    raw = b"# Quill release candidate\n\n@quill create_copy existing_path=refuse\n"
    (copy / "sources" / "quill-rc.md").write_bytes(raw)
    document = json.loads((copy / "manifest.json").read_text())
    document["sources"].append(
        {
            "source_id": "quill-rc",
            "version": "1.0-rc",
            "path": "sources/quill-rc.md",
            "url": "https://quill.invalid/teaching/1.0-rc/quill-rc",
            "sha256": hashlib.sha256(raw).hexdigest(),
        }
    )
    (copy / "manifest.json").write_text(json.dumps(document), encoding="utf-8")
    return copy / "manifest.json"


# ----------------------------------------------------------------------------- GateError reasons


GATE_ERROR_CASES = {
    "invalid_candidate_ids": [
        case("string", "quill-guide"),
        case("null", None),
        case("empty-string-id", ["quill-guide", ""]),
        case("non-string-id", ["quill-guide", 7]),
        case("nested", [["quill-guide"]]),
        {"case_id": "absent", "requested_version": "1.0", "claim_key": "existing_path"},
    ],
    "duplicate_candidate": [case("twice", ["quill-guide", "quill-reference", "quill-guide"])],
    "invalid_requested_version": [
        case("three-parts", ["quill-guide"], "1.0.0"),
        case("major-only", ["quill-guide"], "1"),
        case("v-prefix", ["quill-guide"], "v1.0"),
        case("number", ["quill-guide"], 1.0),
        case("trailing-newline", ["quill-guide"], "1.0\n"),
        case("spaces", ["quill-guide"], " 1.0"),
        case("arabic-indic-digits", ["quill-guide"], "١.٠"),
        case("missing", ["quill-guide"], None),
    ],
    "unsupported_requested_claim": [
        case("unknown-key", ["quill-guide"], key="retry_count"),
        case("key-number", ["quill-guide"], key=3),
        case("key-missing", ["quill-guide"], key=None),
        case("key-upper", ["quill-guide"], key="EXISTING_PATH"),
    ],
    "unknown_candidate": [case("ghost", ["quill-guide", "quill-ghost"])],
}


@pytest.fixture(scope="module")
def gate_error_results(tmp_path_factory) -> dict:
    """Every row of ``GATE_ERROR_CASES`` decided in one batch (one run, as a case table would be)."""
    rows = [row for rows in GATE_ERROR_CASES.values() for row in rows]
    return run_cases(tmp_path_factory.mktemp("gate-errors"), rows)


@pytest.mark.parametrize(
    "reason,row",
    [(reason, row) for reason, rows in GATE_ERROR_CASES.items() for row in rows],
    ids=[f"{reason}-{row['case_id']}" for reason, rows in GATE_ERROR_CASES.items() for row in rows],
)
def test_each_bad_request_is_refused_with_its_gate_error_reason(gate_error_results, fixture_run, reason, row):
    result = gate_error_results[row["case_id"]]
    assert result == {
        "status": "refused",
        "error": "GateError",
        "reason": reason,
        "answer_request": None,
        "decided_at": "validated_requests",
    }
    assert decide_case(row, sources_of(fixture_run), QUILL) == result


def test_a_selected_source_with_a_bad_version_is_invalid_source_version(tmp_path, quill_with_bad_version):
    results = run_cases(
        tmp_path,
        [case("rc", ["quill-guide", "quill-rc"]), case("rc-not-selected", ["quill-guide"])],
        quill_with_bad_version,
    )
    assert results["rc"]["reason"] == "invalid_source_version"
    assert results["rc"]["error"] == "GateError"
    assert results["rc-not-selected"]["status"] == "ready"  # only a selected source's version counts


GATE_ERROR_ORDER_CASES = [
    # (row failing two checks, the earlier reason it must report)
    (case("ids-and-version", "quill-guide", "1.0.0"), "invalid_candidate_ids"),
    (case("ids-and-key", [""], key="nope"), "invalid_candidate_ids"),
    (case("dup-and-version", ["quill-guide", "quill-guide"], "x"), "duplicate_candidate"),
    (case("dup-and-unknown", ["quill-ghost", "quill-ghost"]), "duplicate_candidate"),
    (case("version-and-key", ["quill-guide"], "1", key="nope"), "invalid_requested_version"),
    (case("version-and-unknown", ["quill-ghost"], "one"), "invalid_requested_version"),
    (case("key-and-unknown", ["quill-ghost"], key="nope"), "unsupported_requested_claim"),
    (case("key-and-bad-source-version", ["quill-rc"], key="nope"), "unsupported_requested_claim"),
    (case("unknown-and-bad-source-version", ["quill-rc", "quill-ghost"]), "unknown_candidate"),
]


@pytest.fixture(scope="module")
def order_results(tmp_path_factory, quill_with_bad_version) -> dict:
    rows = [row for row, _ in GATE_ERROR_ORDER_CASES]
    return run_cases(tmp_path_factory.mktemp("order"), rows, quill_with_bad_version)


@pytest.mark.parametrize(
    "row,reason", GATE_ERROR_ORDER_CASES, ids=[row["case_id"] for row, _ in GATE_ERROR_ORDER_CASES]
)
def test_a_row_failing_two_checks_reports_the_earlier(order_results, row, reason):
    result = order_results[row["case_id"]]
    assert (result["error"], result["reason"]) == ("GateError", reason)


# ----------------------------------------------------------------------------- DirectiveError reasons


DIRECTIVE_ERROR_TEXTS = {
    "malformed_directive": [
        "@quill create_copy existing_path = refuse\n",
        "@quill create_copy existing_path=refuse extra\n",
        "@quill  create_copy existing_path=refuse\n",
        " @quill create_copy existing_path=refuse\n",
        "@quill create_copy existing_path=refuse \n",
        "@quill create_copy existing_path=Refuse\n",
        "@quill create_copy\n",
        "@quillcreate_copy existing_path=refuse\n",
        "see @quill create_copy existing_path=refuse\n",
        "@param something\n",
        "   @ a stray at sign\n",
    ],
    "unsupported_operation": ["@quill delete_copy existing_path=refuse\n"],
    "unsupported_claim_key": ["@quill create_copy retry_count=yes\n"],
    "unknown_directive_value": [
        "@quill create_copy existing_path=rename\n",
        "@quill create_copy close_required=maybe\n",
    ],
    "duplicate_directive": [
        "@quill create_copy existing_path=refuse\nprose\n@quill create_copy existing_path=refuse\n",
        "@quill create_copy existing_path=refuse\n@quill create_copy existing_path=overwrite\n",
    ],
}


DIRECTIVE_ERROR_PARAMS = [(reason, text) for reason, texts in DIRECTIVE_ERROR_TEXTS.items() for text in texts]


@pytest.fixture(scope="module")
def directive_error_results(tmp_path_factory) -> dict:
    """One pinned page per bad text, one case per page, all decided in one batch."""
    folder = tmp_path_factory.mktemp("directive-errors")
    pages = {f"page-{n}": ("1.0", ("# page\n\n" + text).encode()) for n, (_, text) in enumerate(DIRECTIVE_ERROR_PARAMS)}
    manifest, _ = pin_sources(folder, pages)
    return run_cases(folder, [case(page, [page]) for page in pages], manifest)


@pytest.mark.parametrize("n,reason,text", [(n, r, t) for n, (r, t) in enumerate(DIRECTIVE_ERROR_PARAMS)])
def test_each_bad_directive_is_refused_with_its_directive_error_reason(directive_error_results, n, reason, text):
    with pytest.raises(DirectiveError) as info:
        parse_directives("# page\n\n" + text, QUILL, "page")
    assert info.value.reason == reason
    bad_line = 5 if reason == "duplicate_directive" and "prose" in text else 3 + text.count("\n") - 1
    assert info.value.detail.startswith(f"page:{bad_line}:")  # names the source and the 1-based line
    result = directive_error_results[f"page-{n}"]
    assert result == {
        "status": "refused",
        "error": "DirectiveError",
        "reason": reason,
        "answer_request": None,
        "decided_at": "directive_errors",
    }


def test_the_first_bad_line_in_line_order_decides_the_directive_error():
    text = "@quill create_copy existing_path=rename\n@quill create_copy existing_path = refuse\n"
    with pytest.raises(DirectiveError) as info:
        parse_directives(text, QUILL, "page")
    assert info.value.reason == "unknown_directive_value"
    assert "page:1" in info.value.detail


def test_a_directive_error_refuses_the_case_even_when_it_is_about_another_key(tmp_path):
    text = b"@quill create_copy close_required=maybe\n@quill create_copy existing_path=refuse\n"
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", text)})
    assert run_cases(tmp_path, [case("c", ["page"])], manifest)["c"]["reason"] == "unknown_directive_value"


def test_the_first_refused_source_in_source_id_order_decides_whatever_the_candidate_order(tmp_path):
    sources = {
        "b-unknown": ("1.0", b"@quill create_copy existing_path=rename\n"),
        "a-malformed": ("1.0", b"@quill create_copy existing_path = refuse\n"),
    }
    manifest, _ = pin_sources(tmp_path, sources)
    rows = [case("ab", ["a-malformed", "b-unknown"]), case("ba", ["b-unknown", "a-malformed"])]
    results = run_cases(tmp_path, rows, manifest)
    assert results["ab"]["reason"] == results["ba"]["reason"] == "malformed_directive"


def test_a_directive_error_in_an_ineligible_source_is_never_read(tmp_path):
    sources = {
        "good": ("1.0", b"@quill create_copy existing_path=refuse\n"),
        "broken-2": ("2.0", b"@quill create_copy existing_path = refuse\n"),
    }
    manifest, _ = pin_sources(tmp_path, sources)
    assert run_cases(tmp_path, [case("c", ["good", "broken-2"])], manifest)["c"]["status"] == "ready"


def test_prose_is_never_interpreted():
    text = (
        "Quill 1.0 refuses to overwrite: existing_path=overwrite is wrong.\n"
        "create_copy existing_path=overwrite\n"
        "Mail me@quill.invalid? No: that line contains the prefix.\n"
    )
    assert parse_directives(text.replace("me@quill.invalid? No: that line contains the prefix.", "x"), QUILL) == []
    with pytest.raises(DirectiveError) as info:
        parse_directives(text, QUILL)  # a line *containing* "@quill" is directive-like
    assert info.value.reason == "malformed_directive"


# ----------------------------------------------------------------------------- claims: spans, lines, provenance


def test_every_claim_of_every_fixture_source_slices_back_to_its_quote(fixture_run):
    checked = 0
    for record in fixture_run.verified_sources.to_dict("records"):
        try:
            directives = parse_directives(record["text"], QUILL, record["source_id"])
        except DirectiveError:
            continue
        lines = record["text"].splitlines()
        for claim in directives:
            assert record["text"][claim["start"] : claim["end"]] == claim["quote"]
            assert lines[claim["start_line"] - 1] == claim["quote"]  # 1-based
            assert claim["end_line"] == claim["start_line"]
            checked += 1
    assert checked == 6


def test_every_claim_in_every_fixture_result_slices_back_and_carries_its_provenance(fixture_run, fixture_results):
    sources = sources_of(fixture_run)
    claims = [claim for result in fixture_results.values() for claim in result.get("claims", [])]
    assert claims
    for claim in claims:
        assert list(claim) == CLAIM_FIELDS
        source = sources[claim["source_id"]]
        assert source["text"][claim["start"] : claim["end"]] == claim["quote"]
        assert claim["quote"] == f"@quill {claim['operation']} {claim['claim_key']}={claim['value']}"
        assert (claim["version"], claim["path"], claim["url"], claim["source_sha256"]) == (
            source["version"],
            source["path"],
            source["url"],
            source["sha256"],
        )


def test_line_numbers_are_one_based(fixture_results):
    (guide,) = fixture_results["compatible-agreement"]["claims"][:1]
    assert guide["source_id"] == "quill-guide"
    assert (guide["start_line"], guide["end_line"]) == (10, 10)
    reference = [c for c in fixture_results["missing-claim"]["claims"]]
    assert reference == []  # quill-guide declares no close_required
    ref_claims = parse_directives((FIXTURES / "sources" / "quill-reference.md").read_text(), QUILL)
    assert [(c["claim_key"], c["start_line"]) for c in ref_claims] == [("existing_path", 12), ("close_required", 13)]


def test_a_directive_on_the_first_line_is_line_one_offset_zero():
    (claim,) = parse_directives("@quill create_copy existing_path=refuse", QUILL)
    assert (claim["start_line"], claim["start"], claim["end"]) == (1, 0, 39)


def test_document_revision_is_the_sha256_of_the_sorted_compact_record_without_text(tmp_path):
    raw = b"@quill create_copy existing_path=refuse\n"
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", raw)})
    document = json.loads(manifest.read_text())
    document["sources"][0]["url"] = "https://quill.invalid/teaching/1.0/pâge-ü"  # non-ASCII: ensure_ascii=False
    manifest.write_text(json.dumps(document), encoding="utf-8")
    (claim,) = run_cases(tmp_path, [case("c", ["page"])], manifest)["c"]["claims"]
    record = {k: document["sources"][0][k] for k in ("source_id", "version", "path", "url", "sha256")}
    payload = json.dumps(record, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert claim["document_revision"] == hashlib.sha256(payload).hexdigest()
    escaped = json.dumps(record, sort_keys=True, separators=(",", ":")).encode("utf-8")
    assert claim["document_revision"] != hashlib.sha256(escaped).hexdigest()


def test_document_revision_of_every_fixture_claim_follows_the_formula(fixture_results):
    manifest = {e["source_id"]: e for e in json.loads((FIXTURES / "manifest.json").read_text())["sources"]}
    for result in fixture_results.values():
        for claim in result.get("claims", []):
            payload = json.dumps(
                manifest[claim["source_id"]], sort_keys=True, separators=(",", ":"), ensure_ascii=False
            )
            assert claim["document_revision"] == hashlib.sha256(payload.encode("utf-8")).hexdigest()


# ----------------------------------------------------------------------------- version selection and order


def test_newer_version_is_never_a_fallback(tmp_path):
    results = run_cases(tmp_path, [case("only-newer", ["quill-new-version"])])
    result = results["only-newer"]
    assert (result["status"], result["reason"]) == ("not_in_docs", "no_eligible_version")
    assert result["eligible_source_ids"] == [] and result["excluded_wrong_version_ids"] == ["quill-new-version"]
    assert result["claims"] == []


def test_newer_version_never_wins(fixture_results):
    result = fixture_results["newer-wrong-version-excluded"]
    assert result["agreed_value"] == "refuse"  # quill-new-version says overwrite
    assert result["eligible_source_ids"] == ["quill-guide"]
    assert result["excluded_wrong_version_ids"] == ["quill-new-version"]
    assert {c["source_id"] for c in result["claims"]} == {"quill-guide"}


def test_version_match_is_exact_string_equality(tmp_path):
    results = run_cases(tmp_path, [case("padded", ["quill-guide"], "1.00"), case("newer", ["quill-guide"], "1.1")])
    assert results["padded"]["reason"] == results["newer"]["reason"] == "no_eligible_version"


def test_empty_candidate_list_is_not_in_docs_no_eligible_version(tmp_path, fixture_run):
    row = case("nothing", [])
    result = run_cases(tmp_path, [row])["nothing"]
    assert result == {
        "requested_version": "1.0",
        "claim_key": "existing_path",
        "operation": "create_copy",
        "candidate_ids": [],
        "eligible_source_ids": [],
        "excluded_wrong_version_ids": [],
        "answer_request": None,
        "status": "not_in_docs",
        "reason": "no_eligible_version",
        "claims": [],
        "decided_at": "eligible_sources",
    }
    assert decide_case(row, sources_of(fixture_run), QUILL) == result


def _without_candidate_ids(result: dict) -> dict:
    return {k: v for k, v in result.items() if k != "candidate_ids"}


def test_candidate_order_permutation_gives_identical_decisions_and_claims(tmp_path):
    base = json.loads((FIXTURES / "cases.json").read_text())
    ids = ["quill-guide", "quill-reference", "quill-conflicting-guide", "quill-new-version", "quill-missing-claim"]
    base.append(case("five", ids))
    rng = random.Random(20240611)
    rows = []
    for row in base:
        for n in range(4):
            permuted = dict(
                row,
                case_id=f"{row['case_id']}#{n}",
                candidate_ids=rng.sample(row["candidate_ids"], k=len(row["candidate_ids"])),
            )
            rows.append(permuted)
    results = run_cases(tmp_path, rows)
    for row in base:
        variants = [_without_candidate_ids(results[f"{row['case_id']}#{n}"]) for n in range(4)]
        assert all(v == variants[0] for v in variants), row["case_id"]
    for row in rows:  # the request's own order is echoed, not reordered
        if "candidate_ids" in results[row["case_id"]]:
            assert results[row["case_id"]]["candidate_ids"] == row["candidate_ids"]


def test_one_bad_case_never_stops_the_others(tmp_path):
    good = json.loads((FIXTURES / "cases.json").read_text())
    bad = [
        "a string row",
        None,
        [1, 2],
        case("ghost", ["quill-ghost"]),
        case("bad-version", ["quill-guide"], "x"),
        {"case_id": "no-fields"},
    ]
    rows = [item for pair in zip(good, bad + bad[:2]) for item in pair]
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(rows), encoding="utf-8")
    run = drivers.run_gate(FIXTURES / "manifest.json", cases)
    assert len(run.results) == len(rows)
    expected = drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json").results
    got = run.results.iloc[::2].reset_index(drop=True)
    assert got["result"].tolist() == expected["result"].tolist()
    assert (run.results.iloc[1::2]["error"] == "GateError").all()


def test_silence_never_counts_as_agreement(tmp_path):
    sources = {
        "says": ("1.0", b"@quill create_copy existing_path=refuse\n"),
        "silent": ("1.0", b"This page says nothing, not even existing_path=refuse.\n"),
    }
    manifest, _ = pin_sources(tmp_path, sources)
    result = run_cases(tmp_path, [case("c", ["says", "silent"])], manifest)["c"]
    assert (result["status"], result["missing_claim_source_ids"]) == ("not_in_docs", ["silent"])


# ----------------------------------------------------------------------------- batch gate == reference


def test_default_fixture_results_equal_the_reference_field_for_field(fixture_run, fixture_results):
    sources = sources_of(fixture_run)
    for row in json.loads((FIXTURES / "cases.json").read_text()):
        expected = decide_case(row, sources, QUILL)
        assert fixture_results[row["case_id"]] == expected
        assert list(fixture_results[row["case_id"]]) == list(expected)


def random_case_table(seed: int, n: int) -> list:
    """A seeded random case table over the Quill fixtures plus ``quill-rc``, with bad rows of every kind."""
    rng = random.Random(seed)
    ids = [
        "quill-guide",
        "quill-reference",
        "quill-new-version",
        "quill-conflicting-guide",
        "quill-missing-claim",
        "quill-unknown-value",
        "quill-malformed",
        "quill-rc",
    ]
    rows: list = []
    for i in range(n):
        roll = rng.random()
        if roll < 0.04:
            rows.append(rng.choice([7, "row", None, ["quill-guide"], 1.5]))
            continue
        candidates: object = rng.sample(ids, k=rng.randint(0, 4))
        if roll < 0.08:
            candidates = candidates + candidates[:1]
        elif roll < 0.11:
            candidates = candidates + ["quill-ghost"]
        elif roll < 0.13:
            candidates = rng.choice(["quill-guide", None, [""], [3]])
        row = {
            "case_id": f"r{i}",
            "candidate_ids": candidates,
            "requested_version": rng.choice(["1.0"] * 6 + ["2.0", "2.0", "3.0", "1.00", "x", 1.0]),
            "claim_key": rng.choice(["existing_path"] * 5 + ["close_required"] * 2 + ["nope", None]),
        }
        if rng.random() < 0.15:
            row["operation"] = rng.choice(["create_copy", "create_copy", "delete", 5])
        rows.append(row)
    return rows


def test_batch_gate_equals_the_reference_on_a_random_table_with_bad_rows(tmp_path, quill_with_bad_version):
    rows = random_case_table(seed=7, n=600)
    cases = tmp_path / "random.json"
    cases.write_text(json.dumps(rows), encoding="utf-8")
    run = drivers.run_gate(quill_with_bad_version, cases)
    sources = sources_of(run)
    assert len(run.results) == len(rows)
    statuses = set()
    for row, result in zip(rows, run.results["result"]):
        expected = decide_case(row, sources, run.schema)
        assert result == expected, row
        assert list(result) == list(expected)
        statuses.add((result["status"], result["reason"]))
    # The table exercised every status and several reasons of each refusal kind.
    assert {s for s, _ in statuses} == {"ready", "conflict", "not_in_docs", "refused"}
    assert len(statuses) >= 12
