"""Prepared requests in the ledger (docs/recheck-rules.md, "Prepared requests"): unchanged, intact, decision_changed."""

from __future__ import annotations

import json

from claimgate.api import Gate
from claimgate.io.ledger_lines import read_ledger

from ...helpers import cli, pin_sources

PAGE = b"# Copying\n\n@quill create_copy existing_path=refuse\n"
OTHER = b"# Other\n\n@quill create_copy close_required=yes\n"
CASES = [
    {"case_id": "copy", "candidate_ids": ["page"], "requested_version": "1.0", "claim_key": "existing_path"},
    {"case_id": "close", "candidate_ids": ["other"], "requested_version": "1.0", "claim_key": "close_required"},
    {"case_id": "later", "candidate_ids": ["page"], "requested_version": "2.0", "claim_key": "existing_path"},
]


def ledger_from_gate(tmp_path):
    manifest, _ = pin_sources(tmp_path / "v1", {"page": ("1.0", PAGE), "other": ("1.0", OTHER)})
    path = tmp_path / "ledger.jsonl"
    Gate.from_manifest(manifest).decide_many(CASES, ledger=path)
    return path


def recheck(capsys, tmp_path, ledger, sources, *options):
    manifest, _ = pin_sources(tmp_path / "v2", sources)
    output = tmp_path / "r.jsonl"
    code, _, err = cli(
        capsys, "recheck", "--ledger", str(ledger), "--manifest", str(manifest), "--output", str(output), *options
    )
    rows = [json.loads(line) for line in output.read_text().splitlines()] if code in (0, 1) else []
    return code, {r["case_id"]: r for r in rows}, err


def test_request_rows_record_the_manifest_sources_and_the_decision(tmp_path):
    rows = {r["case_id"]: r for r in read_ledger(ledger_from_gate(tmp_path))}
    assert rows["copy"]["kind"] == "request" and rows["copy"]["status"] == "ready"
    assert rows["copy"]["agreed_value"] == "refuse" and list(rows["copy"]["sources"]) == ["page"]
    assert rows["later"]["status"] == "not_in_docs"


def test_same_pins_are_unchanged(capsys, tmp_path):
    ledger = ledger_from_gate(tmp_path)
    code, rows, _ = recheck(capsys, tmp_path, ledger, {"page": ("1.0", PAGE), "other": ("1.0", OTHER)})
    assert code == 0 and {r["status"] for r in rows.values()} == {"unchanged"}


def test_an_edit_that_keeps_the_directive_is_intact(capsys, tmp_path):
    ledger = ledger_from_gate(tmp_path)
    edited = PAGE + b"\nA paragraph added in this release.\n"
    code, rows, _ = recheck(capsys, tmp_path, ledger, {"page": ("1.0", edited), "other": ("1.0", OTHER)})
    assert code == 0 and rows["copy"]["status"] == "intact" and rows["close"]["status"] == "unchanged"


def test_a_changed_value_is_decision_changed_and_fails_the_build(capsys, tmp_path):
    ledger = ledger_from_gate(tmp_path)
    edited = PAGE.replace(b"refuse", b"overwrite")
    sources = {"page": ("1.0", edited), "other": ("1.0", OTHER)}
    code, rows, _ = recheck(capsys, tmp_path, ledger, sources, "--fail-on", "decision_changed")
    row = rows["copy"]
    assert code == 1 and row["status"] == "decision_changed"
    assert (row["old_value"], row["new_value"], row["new_status"]) == ("refuse", "overwrite", "ready")


def test_a_new_version_pinned_changes_a_not_in_docs_decision(capsys, tmp_path):
    ledger = ledger_from_gate(tmp_path)
    code, rows, _ = recheck(capsys, tmp_path, ledger, {"page": ("2.0", PAGE), "other": ("1.0", OTHER)})
    assert rows["later"]["status"] == "decision_changed"
    assert (rows["later"]["old_status"], rows["later"]["new_status"]) == ("not_in_docs", "ready")
    assert rows["copy"]["new_status"] == "not_in_docs"


def test_renamed_source_ids_are_refused(capsys, tmp_path):
    ledger = ledger_from_gate(tmp_path)
    code, _, err = recheck(capsys, tmp_path, ledger, {"page-v2": ("1.0", PAGE), "other": ("1.0", OTHER)})
    assert code == 3 and "ledger_renamed_source" in err and err.count("\n") == 1


def test_gate_command_ledger_option(capsys, tmp_path):
    manifest, cases = pin_sources(tmp_path / "v1", {"page": ("1.0", PAGE)})
    ledger = tmp_path / "l.jsonl"
    output = tmp_path / "out.jsonl"
    args = ("gate", "--manifest", str(manifest), "--cases", str(cases), "--output", str(output), "--quiet")
    assert cli(capsys, *args, "--ledger", str(ledger))[0] == 0
    (row,) = read_ledger(ledger)
    assert row["kind"] == "request" and row["case_id"] == "one"


def test_requests_need_a_manifest(capsys, tmp_path):
    ledger = ledger_from_gate(tmp_path)
    (tmp_path / "c.json").write_text("{}")
    code, _, err = cli(capsys, "recheck", "--ledger", str(ledger), "--corpus", str(tmp_path / "c.json"), "--output",
                       str(tmp_path / "r.jsonl"))  # fmt: skip
    assert code == 2 and "--manifest" in err


SEMVER = b'prefix = "@quill"\n\n[versions]\npattern = "semver"\n\n[operations.create_copy]\nexisting_path = ["refuse", "overwrite"]\nclose_required = ["yes", "no"]\n'  # noqa: E501


def test_request_rows_record_the_schema_and_a_recheck_under_another_is_refused_in_one_line(capsys, tmp_path):
    from claimgate.gate.ledger_rows import schema_identity
    from claimgate.gate.schema import load_schema

    ledger = ledger_from_gate(tmp_path)  # under the default (Quill) schema
    assert {r["schema_sha256"] for r in read_ledger(ledger)} == {schema_identity(load_schema())}
    other = tmp_path / "semver.toml"
    other.write_bytes(SEMVER)
    sources = {"page": ("1.0", PAGE), "other": ("1.0", OTHER)}
    code, rows, err = recheck(capsys, tmp_path, ledger, sources, "--schema", str(other))
    assert (code, rows) == (3, {}) and err.count("\n") == 1
    assert "ledger_other_schema" in err and "ledger line 1" in err and "--schema" in err
    code, rows, _ = recheck(capsys, tmp_path, ledger, sources)  # the schema the gate run had
    assert code == 0 and {r["status"] for r in rows.values()} == {"unchanged"}


def test_a_request_row_written_before_the_schema_was_recorded_is_rechecked_as_before(capsys, tmp_path):
    from claimgate.io.ledger_file import canonical_bytes, sealed

    ledger = ledger_from_gate(tmp_path)
    rows = [{k: v for k, v in r.items() if k not in ("schema_sha256", "row_sha256")} for r in read_ledger(ledger)]
    ledger.write_bytes(b"".join(canonical_bytes(sealed(r)) + b"\n" for r in rows))
    code, rechecked, _ = recheck(capsys, tmp_path, ledger, {"page": ("1.0", PAGE), "other": ("1.0", OTHER)})
    assert code == 0 and {r["status"] for r in rechecked.values()} == {"unchanged"}


def test_the_schema_identity_follows_what_the_gate_decides_by_and_not_the_file_bytes():
    from claimgate.gate.ledger_rows import schema_identity
    from claimgate.gate.schema import schema_from_dict

    base = {"prefix": "@quill", "operations": {"create_copy": {"existing_path": ["refuse", "overwrite"]}}}
    same = schema_from_dict(json.loads(json.dumps(base)))
    assert schema_identity(schema_from_dict(base)) == schema_identity(same)
    changed = {**base, "operations": {"create_copy": {"existing_path": ["refuse"]}}}
    assert schema_identity(schema_from_dict(changed)) != schema_identity(schema_from_dict(base))
    versioned = {**base, "versions": {"pattern": "semver"}}
    assert schema_identity(schema_from_dict(versioned)) != schema_identity(schema_from_dict(base))
