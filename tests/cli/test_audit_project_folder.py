"""``audit`` with no document option reads the project file's docs folder (docs/using-your-docs.md).

A project naming a manifest gives the pinned pages (verified); one naming only a docs folder gives that
folder as ``--corpus-dir``, with its ``glob`` and ``exclude``; several folders and no manifest is a usage error.
"""

from __future__ import annotations

import json
from pathlib import Path

from ..helpers import cli

PAGE = "# Retries\n\nRetries are **disabled** unless you set [the flag](flags.md).\n"


def _site(tmp_path: Path, project: str) -> Path:
    (tmp_path / "site" / "guide").mkdir(parents=True)
    (tmp_path / "site" / "guide" / "retries.md").write_text(PAGE, encoding="utf-8")
    (tmp_path / "site" / "_build").mkdir()
    (tmp_path / "site" / "_build" / "retries.md").write_text(
        "Retries are enabled unless you set the flag.\n", encoding="utf-8"
    )
    (tmp_path / "claimgate.toml").write_text(project, encoding="utf-8")
    cites = tmp_path / "c.json"
    quotes = {
        "honest": "Retries are disabled unless you set the flag",
        "changed": "Retries are enabled unless you set the flag",
    }
    cites.write_text(
        json.dumps([{"citation_id": k, "doc_id": "guide/retries.md", "quote": q} for k, q in quotes.items()])
    )
    return cites


def test_audit_reads_the_project_files_docs_folder_with_its_exclude(tmp_path, monkeypatch, capsys):
    cites = _site(tmp_path, 'docs = ["site"]\nexclude = ["_build/**"]\n')
    monkeypatch.chdir(tmp_path)
    out = tmp_path / "a.jsonl"
    code, _, err = cli(capsys, "audit", "--citations", str(cites), "--output", str(out), "--quiet")
    assert code == 0, err
    rows = {r["citation_id"]: r for r in map(json.loads, out.read_text().splitlines())}
    # The excluded build copy says "enabled": read, it would make the changed quote misattributed, not not_found.
    assert rows["honest"]["verdict"] == "found" and rows["changed"]["verdict"] == "not_found"
    (span,) = rows["honest"]["spans"]
    assert PAGE[span["start"] : span["end"]] == span["text"]  # rendered Markdown, spans into the file as written


def test_audit_with_several_project_folders_and_no_manifest_is_a_usage_error(tmp_path, monkeypatch, capsys):
    cites = _site(tmp_path, 'docs = ["site/guide", "site/_build"]\n')
    monkeypatch.chdir(tmp_path)
    code, _, err = cli(capsys, "audit", "--citations", str(cites), "--output", str(tmp_path / "a.jsonl"))
    assert code == 2 and "2 docs folders" in err


def test_audit_without_documents_or_project_says_what_is_needed(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "c.json").write_text("[]")
    code, _, err = cli(capsys, "audit", "--citations", "c.json", "--output", "a.jsonl")
    assert code == 2 and "docs folder" in err
