"""``claimgate audit --ledger`` then ``claimgate recheck`` (docs/recheck-rules.md), through the command line."""

from __future__ import annotations

import json
from pathlib import Path

from ..helpers import cli, pin_sources

PAGES = {
    "install.md": "# Install\n\nThe cache keeps 40 entries by default.\n",
    "retries.md": "# Retries\n\nRetries are not enabled unless you set the flag.\n",
}
CITES = [
    {"citation_id": "cache", "doc_id": "install.md", "quote": "The cache keeps 40 entries"},
    {"citation_id": "retry", "doc_id": "retries.md", "quote": "Retries are not enabled unless"},
]


def folder(tmp_path: Path, pages: dict) -> Path:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    for name, text in pages.items():
        (docs / name).write_text(text, encoding="utf-8")
    return docs


def audited(capsys, tmp_path: Path) -> tuple[Path, Path]:
    docs = folder(tmp_path, PAGES)
    cites = tmp_path / "cites.jsonl"
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES), encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cites), "--output", str(tmp_path / "a.jsonl"),
        "--ledger", str(ledger), "--quiet",
    )  # fmt: skip
    assert code == 0, err
    return docs, ledger


def recheck(capsys, tmp_path: Path, ledger: Path, *options: str) -> tuple[int, list[dict], str]:
    output = tmp_path / "r.jsonl"
    code, _, err = cli(capsys, "recheck", "--ledger", str(ledger), "--output", str(output), "--quiet", *options)
    rows = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()] if code in (0, 1) else []
    return code, rows, err


def test_audit_ledger_then_recheck_unchanged_exits_0(capsys, tmp_path):
    docs, ledger = audited(capsys, tmp_path)
    code, rows, _ = recheck(capsys, tmp_path, ledger, "--corpus-dir", str(docs), "--fail-on", "invalid")
    assert code == 0 and [r["status"] for r in rows] == ["unchanged", "unchanged"]


def test_fail_on_invalid_exits_1_after_an_edit_and_the_summary_counts_the_diagnosis(capsys, tmp_path):
    docs, ledger = audited(capsys, tmp_path)
    (docs / "retries.md").write_text("# Retries\n\nRetries are enabled unless you set the flag.\n", encoding="utf-8")
    (docs / "install.md").write_text("# Install\n\nNew text.\n\nThe cache keeps 40 entries by default.\n")
    summary = tmp_path / "s.json"
    code, rows, _ = recheck(
        capsys, tmp_path, ledger, "--corpus-dir", str(docs), "--fail-on", "invalid", "--summary", str(summary)
    )
    assert code == 1 and [r["status"] for r in rows] == ["intact", "invalid"]
    (span,) = rows[0]["spans"]
    assert (docs / "install.md").read_text()[span["start"] : span["end"]] == "The cache keeps 40 entries"
    counts = json.loads(summary.read_text())
    assert counts["verdicts"]["invalid"]["count"] == 1 and counts["reasons"]["negation_changed"]["count"] == 1


def test_removed_page_is_invalid_and_the_report_escapes_ids(capsys, tmp_path):
    docs, ledger = audited(capsys, tmp_path)
    (docs / "retries.md").unlink()
    report = tmp_path / "r.html"
    code, rows, _ = recheck(capsys, tmp_path, ledger, "--corpus-dir", str(docs), "--report", str(report))
    assert code == 0 and rows[1]["diagnosis"] == {"kind": "document_removed"}
    page = report.read_text(encoding="utf-8")
    assert "document_removed" in page and "<script src" not in page
    assert "<label>status <select" in page  # the filter is over the rows' statuses


def test_recheck_against_a_re_pinned_manifest_with_renamed_ids_is_refused_in_one_line(capsys, tmp_path):
    manifest, _ = pin_sources(tmp_path / "v1", {"guide": ("1.0", b"Copying documents to a new path is refused.\n")})
    cites = tmp_path / "c.json"
    cites.write_text(json.dumps([{"citation_id": "c", "doc_id": "guide", "quote": "copying documents to a new path"}]))
    ledger = tmp_path / "l.jsonl"
    args = ("--citations", str(cites), "--output", str(tmp_path / "a.jsonl"), "--ledger", str(ledger), "--quiet")
    assert cli(capsys, "audit", "--manifest", str(manifest), *args)[0] == 0
    repinned, _ = pin_sources(tmp_path / "v2", {"guide-v2": ("2.0", b"Copying documents to a new path is refused.\n")})
    code, _, err = recheck(capsys, tmp_path, ledger, "--manifest", str(repinned))
    assert code == 3 and err.count("\n") == 1 and "ledger_renamed_source" in err and "guide-v2" in err
    same, _ = pin_sources(tmp_path / "v3", {"guide": ("2.0", b"Copying documents to a new path is refused now.\n")})
    code, rows, _ = recheck(capsys, tmp_path, ledger, "--manifest", str(same))
    assert code == 0 and rows[0]["status"] == "intact"


def test_ledger_must_end_in_jsonl(capsys, tmp_path):
    docs = folder(tmp_path, PAGES)
    cites = tmp_path / "cites.json"
    cites.write_text(json.dumps(CITES))
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cites), "--output", str(tmp_path / "a.jsonl"),
        "--ledger", str(tmp_path / "l.json"),
    )  # fmt: skip
    assert code == 2 and "--ledger must end in .jsonl" in err


def test_recheck_output_may_not_be_the_ledger(capsys, tmp_path):
    docs, ledger = audited(capsys, tmp_path)
    code, _, err = cli(capsys, "recheck", "--ledger", str(ledger), "--corpus-dir", str(docs), "--output", str(ledger))
    assert code == 2 and "--ledger" in err


def test_answer_command_appends_its_citations_to_the_ledger(capsys, tmp_path):
    docs = folder(tmp_path, PAGES)
    answer = tmp_path / "answer.json"
    quote = "The cache keeps 40 entries"
    answer.write_text(
        json.dumps({"text": "It keeps 40 [1].", "citations": [{"marker": "1", "doc_id": "install.md", "quote": quote}]})
    )
    ledger = tmp_path / "l.jsonl"
    code, _, err = cli(capsys, "answer", "--corpus-dir", str(docs), "--answer", str(answer), "--output",
                       str(tmp_path / "o.json"), "--ledger", str(ledger), "--quiet")  # fmt: skip
    assert code == 0, err
    code, rows, _ = recheck(capsys, tmp_path, ledger, "--corpus-dir", str(docs))
    assert [r["status"] for r in rows] == ["unchanged"]


def test_recheck_reads_the_manifest_of_the_project_file(capsys, tmp_path, monkeypatch):
    manifest, _ = pin_sources(tmp_path, {"guide": ("1.0", b"Copying documents to a new path is refused.\n")})
    cites = tmp_path / "c.json"
    cites.write_text(json.dumps([{"citation_id": "c", "doc_id": "guide", "quote": "copying documents to a new path"}]))
    ledger = tmp_path / "l.jsonl"
    args = ("--citations", str(cites), "--output", str(tmp_path / "a.jsonl"), "--ledger", str(ledger), "--quiet")
    assert cli(capsys, "audit", "--manifest", str(manifest), *args)[0] == 0
    (tmp_path / "claimgate.toml").write_text('manifest = "manifest.json"\n', encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    code, rows, err = recheck(capsys, tmp_path, ledger)
    assert code == 0, err
    assert [r["status"] for r in rows] == ["unchanged"]


def test_recheck_without_documents_or_a_project_file_is_a_usage_error(capsys, tmp_path, monkeypatch):
    docs, ledger = audited(capsys, tmp_path)
    monkeypatch.chdir(docs)
    code, _, err = cli(capsys, "recheck", "--ledger", str(ledger), "--output", str(tmp_path / "r.jsonl"))
    assert code == 2 and "--corpus" in err


def test_recheck_reads_the_folder_with_the_audits_glob_and_exclude(capsys, tmp_path):
    """``--glob``/``--exclude`` select today's pages as they selected the audit's: an excluded copy is never read."""
    docs = folder(tmp_path, PAGES)
    (docs / "_build").mkdir()
    (docs / "_build" / "install.md").write_text("# Install\n\nThe cache keeps 40 entries by default.\n")
    cites = tmp_path / "cites.jsonl"
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES), encoding="utf-8")
    ledger = tmp_path / "ledger.jsonl"
    selection = ("--corpus-dir", str(docs), "--exclude", "_build/**")
    code, _, err = cli(
        capsys, "audit", *selection, "--citations", str(cites), "--output", str(tmp_path / "a.jsonl"),
        "--ledger", str(ledger), "--quiet",
    )  # fmt: skip
    assert code == 0, err
    (docs / "_build" / "install.md").write_bytes(b"\xff not UTF-8: a page that is read would refuse the run\n")
    code, rows, err = recheck(capsys, tmp_path, ledger, *selection)
    assert code == 0, err
    assert [r["status"] for r in rows] == ["unchanged", "unchanged"]


def test_a_ledger_in_folders_that_do_not_exist_yet_is_made_there_as_an_output_is(capsys, tmp_path):
    docs = folder(tmp_path, PAGES)
    cites = tmp_path / "cites.jsonl"
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES), encoding="utf-8")
    ledger = tmp_path / "new" / "folders" / "ledger.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cites), "--output", str(tmp_path / "a.jsonl"),
        "--ledger", str(ledger), "--quiet",
    )  # fmt: skip
    assert (code, err) == (0, "")
    code, rows, _ = recheck(capsys, tmp_path, ledger, "--corpus-dir", str(docs))
    assert code == 0 and [r["status"] for r in rows] == ["unchanged", "unchanged"]


def test_a_ledger_that_cannot_be_made_is_a_usage_error_not_a_traceback(capsys, tmp_path):
    docs = folder(tmp_path, PAGES)
    cites = tmp_path / "cites.jsonl"
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES), encoding="utf-8")
    (tmp_path / "a-file").write_text("")
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cites), "--output", str(tmp_path / "a.jsonl"),
        "--ledger", str(tmp_path / "a-file" / "ledger.jsonl"), "--quiet",
    )  # fmt: skip
    assert code == 2 and "Traceback" not in err and "a-file is not a folder" in err and err.count("\n") <= 2


def test_a_fifo_ledger_is_refused_before_any_work_by_audit_and_at_once_by_recheck(capsys, tmp_path):
    import os
    import subprocess
    import sys

    docs = folder(tmp_path, PAGES)
    cites = tmp_path / "cites.jsonl"
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES), encoding="utf-8")
    fifo = tmp_path / "ledger.jsonl"
    os.mkfifo(fifo)
    output = tmp_path / "a.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cites), "--output", str(output),
        "--ledger", str(fifo), "--quiet",
    )  # fmt: skip
    assert code == 3 and "ledger_invalid" in err and "FIFO" in err and not output.exists()
    command = [sys.executable, "-m", "claimgate", "recheck", "--ledger", str(fifo), "--corpus-dir", str(docs)]
    done = subprocess.run([*command, "--output", str(tmp_path / "r.jsonl")], capture_output=True, text=True, timeout=30)
    assert done.returncode == 3 and "ledger_invalid" in done.stderr and "FIFO" in done.stderr
    assert done.stderr.count("\n") == 1 and not (tmp_path / "r.jsonl").exists()
