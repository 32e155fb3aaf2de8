"""Hostile and broken inputs found by trying the tool as a new user: each refused cleanly, nothing half-written."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys

import pytest
from claimgate.audit.judge import judge_citation
from claimgate.audit.stages import AUDIT_COLUMNS
from claimgate.cli import main as run_pipeline
from claimgate.errors import IngestionError
from claimgate.execution import drivers

from ..helpers import FIXTURES, ROOT, run_cli

DEMO = FIXTURES / "audit"


def cli(*args: str) -> int:
    """Run the command line in-process; returns its exit status."""
    return run_pipeline.main(list(args))


def gate_args(output) -> list[str]:
    return [
        "gate",
        "--manifest",
        str(FIXTURES / "manifest.json"),
        "--cases",
        str(FIXTURES / "cases.json"),
        "--output",
        str(output),
        "--quiet",
    ]


def test_output_path_that_is_a_folder_is_a_usage_error_not_a_traceback(tmp_path, capsys):
    folder = tmp_path / "taken.json"
    folder.mkdir()
    assert cli(*gate_args(folder)) == 2
    err = capsys.readouterr().err
    assert "error: cannot write" in err and "Traceback" not in err
    assert folder.is_dir() and not any(folder.iterdir())


def test_output_under_a_file_is_a_usage_error(tmp_path, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    assert cli(*gate_args(blocker / "r.json")) == 2
    assert "error: cannot write" in capsys.readouterr().err
    assert blocker.read_text() == "x"


def test_output_keeps_the_mode_of_the_file_it_replaces(tmp_path):
    out = tmp_path / "r.json"
    out.write_text("old")
    out.chmod(0o644)
    assert cli(*gate_args(out)) == 0
    assert stat.S_IMODE(out.stat().st_mode) == 0o644
    assert json.loads(out.read_text())["cases"]


def test_new_output_follows_the_umask_not_0600(tmp_path):
    out = tmp_path / "new.json"
    previous = os.umask(0o022)
    try:
        assert cli(*gate_args(out)) == 0
    finally:
        os.umask(previous)
    assert stat.S_IMODE(out.stat().st_mode) == 0o644


def test_case_ids_with_dots_keep_their_own_pictures(tmp_path):
    cases = [
        {"case_id": cid, "candidate_ids": ["quill-guide"], "requested_version": "1.0", "claim_key": "existing_path"}
        for cid in ("check.a", "check.b", "release.1.0")
    ]
    table = tmp_path / "cases.json"
    table.write_text(json.dumps(cases))
    out = tmp_path / "out" / "r.json"
    assert (
        cli(
            "gate",
            "--manifest",
            str(FIXTURES / "manifest.json"),
            "--cases",
            str(table),
            "--output",
            str(out),
            "--pictures",
            "--quiet",
        )
        == 0
    )
    names = sorted(p.name for p in (out.parent / "cases").glob("*.dot"))
    assert names == ["check.a.dot", "check.b.dot", "release.1.0.dot"]


def test_refusal_details_name_the_source_and_line_beside_the_exact_results(tmp_path):
    out = tmp_path / "r.json"
    assert cli(*gate_args(out)) == 0
    document = json.loads(out.read_text())
    details = {d["case_id"]: d for d in document["refusal_details"]}
    assert set(details) == {"unknown-directive-value", "malformed-directive"}
    assert details["malformed-directive"]["detail"].startswith("quill-malformed:6: ")
    refused = next(c["result"] for c in document["cases"] if c["case_id"] == "malformed-directive")
    assert set(refused) == {"status", "error", "reason", "answer_request", "decided_at"}


def test_lone_surrogate_in_a_case_id_is_written_back_as_its_json_escape(tmp_path):
    table = tmp_path / "cases.jsonl"
    table.write_text(
        '{"case_id": "bad\\ud800id", "candidate_ids": ["quill-guide"], "requested_version": "1.0", '
        '"claim_key": "existing_path"}\n'
    )
    for suffix in (".json", ".jsonl", ".parquet"):
        out = tmp_path / f"r{suffix}"
        assert (
            cli(
                "gate",
                "--manifest",
                str(FIXTURES / "manifest.json"),
                "--cases",
                str(table),
                "--output",
                str(out),
                "--quiet",
            )
            == 0
        )
    assert json.loads((tmp_path / "r.jsonl").read_text())["case_id"] == "bad\ud800id"
    assert b"bad\\ud800id" in (tmp_path / "r.json").read_bytes()


@pytest.mark.parametrize(
    "extra, message",
    [
        (["--scheduler", "tcp://127.0.0.1:8786"], "--scheduler needs --executor dask or ray"),
        (["--max-source-bytes", "-1"], "--max-source-bytes must be at least 1"),
        (["--partition-rows", "0"], "--partition-rows must be at least 1"),
    ],
)
def test_meaningless_options_are_usage_errors(tmp_path, capsys, extra, message):
    assert cli(*gate_args(tmp_path / "r.json"), *extra) == 2
    err = capsys.readouterr().err
    assert err.splitlines()[-1] == f"error: {message}"
    assert err.splitlines()[0].startswith("usage: claimgate gate")  # the sub-command's usage line
    assert not (tmp_path / "r.json").exists()


@pytest.mark.parametrize("option", ["--min-tokens", "--window-chars"])
def test_audit_thresholds_below_one_are_usage_errors(tmp_path, capsys, option):
    status = cli(
        "audit",
        "--corpus",
        str(DEMO / "corpus.json"),
        "--citations",
        str(DEMO / "citations.jsonl"),
        "--output",
        str(tmp_path / "a.jsonl"),
        option,
        "0",
    )
    assert status == 2
    assert capsys.readouterr().err.splitlines()[0].startswith("usage: claimgate audit")


def test_corpus_listing_a_document_twice_is_invalid_corpus(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text('{"a": "first text of a", "a": "second text of a"}')
    with pytest.raises(IngestionError) as caught:
        drivers.run_audit(DEMO / "citations.jsonl", drivers.CorpusFile(corpus))
    assert (caught.value.reason, caught.value.detail) == ("invalid_corpus", "document 'a' is listed twice")


def test_manifest_repeating_a_key_is_invalid_manifest(tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text('{"sources": [], "sources": []}')
    with pytest.raises(IngestionError) as caught:
        drivers.run_gate(manifest, FIXTURES / "cases.json")
    assert caught.value.reason == "invalid_manifest"
    assert "repeats the key 'sources'" in caught.value.detail


def test_an_integer_citation_id_is_an_invalid_citation_like_an_integer_case_id(tmp_path):
    citations = tmp_path / "c.jsonl"
    citations.write_text(
        json.dumps({"citation_id": 5, "doc_id": "trial-report", "quote": "Monthly migraine days fell by 4.1 days"})
        + "\n"
    )
    row = drivers.audit_rows(drivers.run_audit(citations, drivers.CorpusFile(DEMO / "corpus.json")))[0]
    assert (row["citation_id"], row["verdict"]) == (None, "invalid_citation")


def test_empty_audit_csv_still_has_its_header(tmp_path):
    citations = tmp_path / "c.jsonl"
    citations.write_text("")
    out = tmp_path / "a.csv"
    assert (
        cli(
            "audit",
            "--corpus",
            str(DEMO / "corpus.json"),
            "--citations",
            str(citations),
            "--output",
            str(out),
            "--quiet",
        )
        == 0
    )
    assert out.read_text() == ",".join([*AUDIT_COLUMNS, "diagnosis"]) + "\n"


@pytest.mark.parametrize("failure", [SystemExit(0), GeneratorExit()])
def test_a_judge_that_exits_is_a_failed_judgment_not_an_ended_run(failure):
    def judge(system, user):
        raise failure

    judgment = judge_citation(judge, "claim", "quote", "doc", "text", [])
    assert judgment["verdict"] == "unrelated" and judgment["confidence"] == 0.0
    assert judgment["reasoning"].startswith("judge_failed: exception: ")


def test_a_keyboard_interrupt_in_the_judge_still_stops_the_run():
    def judge(system, user):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        judge_citation(judge, "claim", "quote", "doc", "text", [])


def test_quiet_default_run_prints_nothing(tmp_path):
    done = run_cli("--output", str(tmp_path / "g.json"), "--no-pictures", "--quiet")
    assert done.returncode == 0, done.stderr
    assert done.stdout == ""
    assert (tmp_path / "audit_result.jsonl").exists()


def test_a_closed_stdout_does_not_end_in_a_traceback(tmp_path):
    command = f'"{sys.executable}" run_pipeline.py --output "{tmp_path}/g.json" --no-pictures | head -c 10'
    done = subprocess.run(command, shell=True, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert "Traceback" not in done.stderr
    assert json.loads((tmp_path / "g.json").read_text())["cases"]


def test_telemetry_is_off_even_when_the_environment_turns_it_on():
    script = "import os; import claimgate; print(os.environ['HAMILTON_TELEMETRY_ENABLED'])"
    env = {**os.environ, "HAMILTON_TELEMETRY_ENABLED": "true"}
    done = subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True, cwd=ROOT)
    assert done.stdout.strip() == "false"


def test_audit_command_refuses_a_50_mb_quote_fast(tmp_path, capsys):
    import time

    from ..helpers import cli

    rows = [json.loads(line) for line in (DEMO / "citations.jsonl").read_text(encoding="utf-8").splitlines()]
    huge = {**rows[0], "citation_id": "huge", "quote": "word " * (10 * 2**20)}  # 50 MiB
    citations = tmp_path / "citations.jsonl"
    citations.write_text("".join(json.dumps(r) + "\n" for r in [rows[0], huge]), encoding="utf-8")
    out = tmp_path / "out.jsonl"
    started = time.perf_counter()
    code, _, err = cli(capsys, "audit", "--corpus", str(DEMO / "corpus.json"), "--citations", str(citations),
                       "--output", str(out), "--quiet")  # fmt: skip
    assert code == 0 and time.perf_counter() - started < 10, err
    written = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (written[1]["verdict"], written[1]["reason"]) == ("invalid_citation", "quote_too_long")
    assert written[0]["verdict"] != "invalid_citation" and out.stat().st_size < 100_000  # the quote is not copied
