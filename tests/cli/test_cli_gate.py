"""The gate's command line (docs/using-your-docs.md): exit codes, one-line refusals, atomic and repeatable output.

Most checks call ``run_pipeline.main`` in-process (``cli``); a few run the real script in a
subprocess (``run_cli``) where the process boundary is the point: the default run, the exit
status seen by a shell, and the absence of a traceback.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from claimgate.execution import drivers
from claimgate.gate.reference import decide_case
from claimgate.resources import default_schema_path

from ..helpers import FIXTURES, cli, pin_sources, run_cli

MANIFEST = str(FIXTURES / "manifest.json")
CASES = str(FIXTURES / "cases.json")


def fixture_hashes() -> dict[str, str]:
    return {
        str(p.relative_to(FIXTURES)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(FIXTURES.rglob("*"))
        if p.is_file()
    }


def _hash_mismatch_manifest(tmp_path: Path) -> Path:
    manifest, _ = pin_sources(tmp_path, {"page": ("1.0", b"@quill create_copy existing_path=refuse\n")})
    (tmp_path / "sources" / "page.md").write_bytes(b"edited\n")
    return manifest


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.endswith(".tmp") or p.name.startswith("."))


# ----------------------------------------------------------------------------- the default run


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    """``python run_pipeline.py`` (output into a temporary folder) with fixture hashes before and after."""
    out = tmp_path_factory.mktemp("default") / "gate_result.json"
    before = fixture_hashes()
    done = run_cli("--output", str(out), "--no-pictures")
    return done, out, before, fixture_hashes()


def test_default_run_exits_0_and_prints_the_case_table(default_run):
    done, _, _, _ = default_run
    assert done.returncode == 0, done.stderr
    for case_id in ("newer-wrong-version-excluded", "malformed-directive"):
        assert case_id in done.stdout


def test_default_run_document_has_the_specified_fields(default_run):
    _, out, _, _ = default_run
    document = json.loads(out.read_text())
    assert document["execution_mode"] == "offline-explicit-synthetic-directive-gate"
    assert document["model_called"] is False
    assert document["grammar"] == "@quill <operation> <key>=<value>"
    for field in ("fixture_kind", "cases", "changed_source", "policy", "limit"):
        assert field in document
    for entry in document["cases"]:
        assert list(entry) == ["case_id", "candidate_ids", "requested_version", "claim_key", "result"]


def test_changed_source_is_refused_with_hash_mismatch_and_no_request(default_run):
    _, out, _, _ = default_run
    changed = json.loads(out.read_text())["changed_source"]
    assert changed == {
        "status": "refused",
        "error": "IngestionError",
        "reason": "hash_mismatch",
        "answer_request": None,
    }


def test_changed_source_scenario_never_touches_the_fixtures(default_run):
    _, _, before, after = default_run
    assert before == after
    assert "sources/quill-guide.md" in before


def test_default_run_results_equal_the_reference_field_for_field(default_run):
    _, out, _, _ = default_run
    document = json.loads(out.read_text())
    run = drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json")
    sources = {r["source_id"]: r for r in run.verified_sources.to_dict("records")}
    rows = json.loads((FIXTURES / "cases.json").read_text())
    assert [e["case_id"] for e in document["cases"]] == [r["case_id"] for r in rows]
    assert len(rows) == 8
    for row, entry in zip(rows, document["cases"]):
        expected = json.loads(json.dumps(decide_case(row, sources, run.schema)))
        assert entry["result"] == expected
        assert list(entry["result"]) == list(expected)
        assert (entry["candidate_ids"], entry["requested_version"], entry["claim_key"]) == (
            row["candidate_ids"],
            row["requested_version"],
            row["claim_key"],
        )


# ----------------------------------------------------------------------------- exit codes and stderr


def test_a_completed_run_exits_0_whatever_the_statuses(tmp_path, capsys):
    code, out, err = cli(capsys, "gate", "--manifest", MANIFEST, "--cases", CASES, "--output", str(tmp_path / "o.json"))
    # The one line on stderr says which schema the run fell back to (docs/using-your-docs.md, "A project file").
    assert (code, err) == (
        0,
        f"note: no --schema and no project schema: used Quill's schema ({default_schema_path()})\n",
    )
    assert "refused" in out and "conflict" in out


@pytest.mark.parametrize(
    "args",
    [
        ["gate", "--cases", CASES, "--output", "o.json"],  # no --manifest
        ["gate", "--manifest", MANIFEST, "--cases", CASES, "--output", "o.txt"],  # unknown output format
        ["gate", "--manifest", MANIFEST, "--cases", CASES, "--output", "o.json", "--max-source-bytes", "many"],
        ["gate", "--manifest", MANIFEST, "--cases", CASES, "--output", "o.json", "--executor", "threads"],
        ["frobnicate"],
        ["--output", "o.parquet"],  # the default run writes .json only
    ],
    ids=[
        "missing-manifest-flag",
        "output-extension",
        "max-bytes-not-int",
        "unknown-executor",
        "unknown-command",
        "default-parquet",
    ],
)
def test_a_usage_error_exits_2(tmp_path, capsys, monkeypatch, args):
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, *args)
    assert code == 2
    assert "error:" in err and "Traceback" not in err
    assert not (tmp_path / "o.json").exists() and not (tmp_path / "o.txt").exists()


def test_a_refused_input_exits_3_with_exactly_one_line_and_no_traceback(tmp_path):
    output = tmp_path / "out.json"
    done = run_cli(
        "gate", "--manifest", str(_hash_mismatch_manifest(tmp_path)), "--cases", CASES, "--output", str(output)
    )
    assert done.returncode == 3
    assert done.stderr.startswith("error: IngestionError: hash_mismatch: page: ")
    assert done.stderr.endswith("\n") and done.stderr.count("\n") == 1
    assert "Traceback" not in done.stderr
    assert not output.exists()


def test_debug_shows_the_traceback(tmp_path, capsys):
    manifest = _hash_mismatch_manifest(tmp_path)
    args = ["gate", "--manifest", str(manifest), "--cases", CASES, "--output", str(tmp_path / "o.json")]
    code, _, err = cli(capsys, *args, "--debug")
    assert code == 3
    assert "Traceback (most recent call last)" in err
    assert err.rstrip("\n").splitlines()[-1].startswith("error: IngestionError: hash_mismatch: ")


@pytest.mark.parametrize(
    "setup,reason",
    [
        (lambda d: (d / "m.json").write_text("{"), "invalid_manifest"),
        (lambda d: (d / "m.json").write_text('{"sources": [{"source_id": "a"}]}'), "invalid_manifest"),
        (lambda d: pin_sources(d, {"a": ("1.0", b"caf\xe9")})[0].rename(d / "m.json"), "invalid_encoding"),
        (lambda d: pin_sources(d, {"a": ("1.0", b"x" * 100)})[0].rename(d / "m.json"), "source_too_large"),
    ],
    ids=["not-json", "missing-field", "latin-1", "too-large"],
)
def test_every_ingestion_refusal_is_one_line_error_kind_reason_detail(tmp_path, capsys, setup, reason):
    setup(tmp_path)
    args = ["gate", "--manifest", str(tmp_path / "m.json"), "--cases", CASES, "--output", str(tmp_path / "o.json")]
    code, out, err = cli(capsys, *args, "--max-source-bytes", "64")
    assert code == 3
    assert err.startswith(f"error: IngestionError: {reason}: ")
    assert err.count("\n") == 1 and len(err.split(": ", 3)[3].strip()) > 0
    assert out == ""


def test_max_source_bytes_flag_sets_the_limit(tmp_path, capsys):
    raw = b"@quill create_copy existing_path=refuse\n"
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", raw)})
    base = ["gate", "--manifest", str(manifest), "--cases", str(cases), "--output", str(tmp_path / "o.json"), "--quiet"]
    assert cli(capsys, *base, "--max-source-bytes", str(len(raw)))[0] == 0
    code, _, err = cli(capsys, *base, "--max-source-bytes", str(len(raw) - 1))
    assert code == 3 and err.startswith("error: IngestionError: source_too_large: page: ")


def test_a_refused_case_table_exits_3(tmp_path, capsys):
    (tmp_path / "c.jsonl").write_text('{"case_id": "a"}\n{broken\n')
    args = ["gate", "--manifest", MANIFEST, "--cases", str(tmp_path / "c.jsonl"), "--output", str(tmp_path / "o.json")]
    code, _, err = cli(capsys, *args)
    assert code == 3
    assert err.startswith("error: IngestionError: invalid_case_table: c.jsonl line 2: ")


# ----------------------------------------------------------------------------- atomic output


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".parquet"])
def test_a_refused_run_creates_no_output_file_and_leaves_no_temporary(tmp_path, capsys, suffix):
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    output = out_dir / f"result{suffix}"
    manifest = _hash_mismatch_manifest(tmp_path / "in")
    code, _, _ = cli(capsys, "gate", "--manifest", str(manifest), "--cases", CASES, "--output", str(output))
    assert code == 3
    assert list(out_dir.iterdir()) == []


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".parquet"])
def test_a_refused_run_leaves_an_existing_output_byte_identical(tmp_path, capsys, suffix):
    output = tmp_path / f"result{suffix}"
    assert cli(capsys, "gate", "--manifest", MANIFEST, "--cases", CASES, "--output", str(output), "--quiet")[0] == 0
    before = output.read_bytes()
    stat = output.stat()
    manifest = _hash_mismatch_manifest(tmp_path / "in")
    assert cli(capsys, "gate", "--manifest", str(manifest), "--cases", CASES, "--output", str(output))[0] == 3
    assert output.read_bytes() == before
    assert output.stat().st_mtime_ns == stat.st_mtime_ns
    assert _leftovers(tmp_path) == []


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    from claimgate.io.writers import write_jsonl

    output = tmp_path / "rows.jsonl"
    output.write_bytes(b"old\n")

    def rows():
        yield {"a": 1}
        raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        write_jsonl(output, rows())
    assert output.read_bytes() == b"old\n"
    assert os.listdir(tmp_path) == ["rows.jsonl"]


def test_a_successful_run_leaves_no_temporary_beside_the_output(tmp_path, capsys):
    for suffix in (".json", ".jsonl", ".parquet"):
        cli(
            capsys,
            "gate",
            "--manifest",
            MANIFEST,
            "--cases",
            CASES,
            "--output",
            str(tmp_path / f"r{suffix}"),
            "--quiet",
        )
    assert sorted(os.listdir(tmp_path)) == ["r.json", "r.jsonl", "r.parquet"]


# ----------------------------------------------------------------------------- determinism


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".parquet"])
def test_two_runs_give_byte_identical_output(tmp_path, capsys, suffix):
    first, second = tmp_path / f"a{suffix}", tmp_path / f"b{suffix}"
    for output in (first, second):
        assert cli(capsys, "gate", "--manifest", MANIFEST, "--cases", CASES, "--output", str(output), "--quiet")[0] == 0
    assert first.read_bytes() == second.read_bytes()


def test_the_partitioned_executor_gives_the_same_bytes_as_the_local_run(tmp_path, capsys):
    rows = json.loads((FIXTURES / "cases.json").read_text()) * 1
    rows += [dict(r, case_id=r["case_id"] + "-again") for r in rows] + ["bad row"]
    cases = tmp_path / "cases.json"
    cases.write_text(json.dumps(rows))
    local, parted = tmp_path / "local.json", tmp_path / "parted.json"
    base = ["gate", "--manifest", MANIFEST, "--cases", str(cases), "--quiet"]
    assert cli(capsys, *base, "--output", str(local))[0] == 0
    args = [*base, "--output", str(parted), "--executor", "multiprocessing", "--partition-rows", "5"]
    assert cli(capsys, *args)[0] == 0
    assert local.read_bytes() == parted.read_bytes()


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])
def test_an_empty_case_table_prints_no_cases_not_an_empty_dataframe(capsys, tmp_path, suffix):
    table = tmp_path / "cases.csv"
    table.write_text("case_id,candidate_ids,requested_version,claim_key\n")
    out = tmp_path / f"r{suffix}"
    code, stdout, err = cli(capsys, "gate", "--manifest", MANIFEST, "--cases", str(table), "--output", str(out))
    assert code == 0, err
    assert stdout == f"no cases\nwrote {out}\n"
