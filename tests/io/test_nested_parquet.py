"""Parquet results are queryable: claims, spans, requests and diagnoses are Arrow lists and structs, not JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest
from claimgate.gate.result_object import CLAIM_FIELDS
from claimgate.io.writers import GATE_CLAIM_FIELDS, audit_parquet_schema, write_audit_parquet

from ..helpers import FIXTURES, run_cli

SECOND = FIXTURES / "second_schema"


def _gate(tmp_path: Path, cases: Path, manifest: Path = FIXTURES / "manifest.json", *extra: str):
    """(Parquet table, JSON document) of one gate run written both ways."""
    for suffix in (".parquet", ".json"):
        args = ["gate", "--manifest", str(manifest), "--cases", str(cases), "--output", str(tmp_path / f"r{suffix}")]
        done = run_cli(*args, "--quiet", *extra)
        assert done.returncode == 0, done.stderr
    return pq.read_table(tmp_path / "r.parquet"), json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))


def _audit(tmp_path: Path, *extra: str):
    corpus, citations = FIXTURES / "audit" / "corpus.json", FIXTURES / "audit" / "citations.jsonl"
    for suffix in (".parquet", ".jsonl"):
        args = [
            "audit",
            "--corpus",
            str(corpus),
            "--citations",
            str(citations),
            "--output",
            str(tmp_path / f"a{suffix}"),
        ]
        done = run_cli(*args, "--quiet", *extra)
        assert done.returncode == 0, done.stderr
    lines = (tmp_path / "a.jsonl").read_text(encoding="utf-8").splitlines()
    return pq.read_table(tmp_path / "a.parquet"), [json.loads(line) for line in lines]


def test_the_claim_struct_has_the_fields_of_a_claim_record():
    assert GATE_CLAIM_FIELDS == CLAIM_FIELDS


def test_gate_claims_are_a_list_of_structs_whose_fields_can_be_queried(tmp_path):
    table, document = _gate(tmp_path, FIXTURES / "cases.json")
    assert table.schema.field("claims").type.value_type.field("start_line").type == pa.int64()
    assert pa.types.is_list(table.schema.field("candidate_ids").type)
    # which cases cite quill-reference, and on which line: a nested query, no JSON parsing
    flat = table.select(["case_id", "claims"]).to_pandas().explode("claims").dropna(subset=["claims"])
    cited = sorted(
        (row.case_id, row.claims["start_line"])
        for row in flat.itertuples()
        if row.claims["source_id"] == "quill-reference"
    )
    expected = sorted(
        (entry["case_id"], claim["start_line"])
        for entry in document["cases"]
        for claim in entry["result"].get("claims", [])
        if claim["source_id"] == "quill-reference"
    )
    assert cited == expected and cited
    claims = pc.list_flatten(table["claims"])
    assert pc.struct_field(claims, "quote").to_pylist() == [
        c["quote"] for e in document["cases"] for c in e["result"].get("claims", [])
    ]


def test_gate_answer_requests_are_structs_only_for_ready_cases(tmp_path):
    table, document = _gate(
        tmp_path, SECOND / "cases.json", SECOND / "manifest.json", "--schema", str(SECOND / "lumen_schema.toml")
    )
    roles = pc.struct_field(pc.list_flatten(pc.struct_field(table["answer_request"], "messages")), "role")
    ready = [e for e in document["cases"] if e["result"]["status"] == "ready"]
    assert roles.to_pylist() == ["system", "user"] * len(ready)
    rows = table.to_pylist()
    for record, entry in zip(rows, document["cases"]):
        assert record["answer_request"] == entry["result"]["answer_request"]
        assert record["operation"] == entry["result"].get("operation", entry.get("operation"))


def test_gate_refused_rows_keep_untyped_request_fields_as_given_in_request_json(tmp_path):
    cases = tmp_path / "cases.jsonl"
    rows = [
        {
            "case_id": "number-version",
            "candidate_ids": ["quill-guide"],
            "requested_version": 1.0,
            "claim_key": "existing_path",
        },
        {
            "case_id": "ids-not-a-list",
            "candidate_ids": "quill-guide",
            "requested_version": "1.0",
            "claim_key": "existing_path",
        },
        {
            "case_id": "lone-\ud800-surrogate",
            "candidate_ids": ["quill-guide"],
            "requested_version": "1.0",
            "claim_key": "existing_path",
        },
    ]
    cases.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    table, _ = _gate(tmp_path, cases)
    records = table.to_pylist()
    assert [r["status"] for r in records[:2]] == ["refused", "refused"]
    assert (
        records[0]["requested_version"] is None and json.loads(records[0]["request_json"])["requested_version"] == 1.0
    )
    assert (
        records[1]["candidate_ids"] is None and json.loads(records[1]["request_json"])["candidate_ids"] == "quill-guide"
    )
    assert records[2]["case_id"] == "lone-\\ud800-surrogate"  # written back as its escape, as the JSON outputs do


def test_gate_parquet_bytes_are_deterministic(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    _gate(tmp_path / "a", FIXTURES / "cases.json")
    _gate(tmp_path / "b", FIXTURES / "cases.json")
    assert (tmp_path / "a" / "r.parquet").read_bytes() == (tmp_path / "b" / "r.parquet").read_bytes()


def test_audit_parquet_holds_spans_and_diagnoses_as_structs(tmp_path):
    table, rows = _audit(tmp_path)
    assert table.column_names == list(rows[0])
    records = table.to_pylist()
    for record in records:  # a struct has every field: the optional ones are null where a row lacks them
        for optional in ("pieces", "occurs_in"):
            if record["diagnosis"] and record["diagnosis"][optional] is None:
                del record["diagnosis"][optional]
    assert records == [{**{c: None for c in table.column_names}, **row} for row in rows]
    kinds = pc.struct_field(table["diagnosis"], "kind").to_pylist()
    assert kinds == [(row.get("diagnosis") or {}).get("kind") for row in rows]
    ops = pc.struct_field(pc.list_flatten(pc.struct_field(table["diagnosis"], "edits")), "op").to_pylist()
    assert ops == [e["op"] for row in rows for e in (row.get("diagnosis") or {}).get("edits", [])] and ops
    lines = pc.struct_field(pc.list_flatten(table["spans"]), "start_line").to_pylist()
    assert lines == [s["start_line"] for row in rows for s in row["spans"]]


def test_audit_parquet_without_diagnosis_has_no_diagnosis_column(tmp_path):
    table, rows = _audit(tmp_path, "--no-diagnose")
    assert "diagnosis" not in table.column_names and "diagnosis" not in rows[0]


def test_audit_parquet_types_judge_elided_extractors_and_stitched_pieces(tmp_path):
    span = {"doc_id": "d", "start": 0, "end": 3, "start_line": 1, "end_line": 1, "text": "abc"}
    row = {
        "citation_id": "c1",
        "doc_id": "d",
        "verdict": "found",
        "reason": "verbatim_match",
        "gate_verdict": "found",
        "match_kind": "elided",
        "matched_doc_ids": ["d"],
        "spans": [span],
        "elided": [{"position": 0, **span}],
        "judge": {"reasoning": "ok", "verdict": "supported", "confidence": 0.5},
        "model_calls": 1,
        "extractors": {"d": "html"},
        "diagnosis": {
            "kind": "stitched",
            "nearest": span,
            "shared_tokens": None,
            "quote_tokens": 3,
            "edits": [],
            "pieces": [{"doc_id": "d", "quote_span": [0, 3], "source_span": [0, 3], "text": "abc"}],
        },
    }
    path = tmp_path / "a.parquet"
    write_audit_parquet(path, [row], list(row))
    (record,) = pq.read_table(path).to_pylist()
    assert record["extractors"] == [("d", "html")]
    assert record["judge"] == row["judge"] and record["elided"] == row["elided"]
    assert record["diagnosis"]["pieces"] == row["diagnosis"]["pieces"]
    assert record["diagnosis"]["occurs_in"] is None


@pytest.mark.parametrize("name", ["matched_doc_ids", "spans", "diagnosis", "judge"])
def test_no_result_column_of_the_audit_is_text(name):
    assert not pa.types.is_string(audit_parquet_schema([name]).field(name).type)
