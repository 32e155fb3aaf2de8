"""Helpers shared by the tests of every product: fixture paths, the command line, pinned sources."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from claimgate.cli.main import main

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``run_pipeline.py`` in a subprocess; returns the completed process (text mode)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "run_pipeline.py"), *args],
        cwd=cwd or ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )


def char_citation(quote: str, index: int, start: int, end: int | None = None) -> dict:
    """An Anthropic ``char_location`` citation of ``quote`` in the ``index``-th document sent, from ``start``."""
    end = start + len(quote) if end is None else end
    return {
        "type": "char_location",
        "cited_text": quote,
        "document_index": index,
        "start_char_index": start,
        "end_char_index": end,
    }


def cli(capsys, *args: str) -> tuple[int, str, str]:
    """Run ``main(args)`` in-process; return ``(exit status, stdout, stderr)``."""
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err


def audited_folder(capsys, tmp_path: Path, docs: Path, quotes: dict[str, tuple[str, str]]) -> dict[str, dict]:
    """``audit --corpus-dir docs`` in-process over ``quotes`` (citation id -> ``(doc_id, quote)``); the output
    rows by citation id (asserts exit 0)."""
    cites = tmp_path / "citations.jsonl"
    rows = [{"citation_id": c, "doc_id": d, "quote": q} for c, (d, q) in quotes.items()]
    cites.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    output = tmp_path / "audited.jsonl"
    code, _, err = cli(capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cites), "--output", str(output),
                       "--quiet")  # fmt: skip
    assert code == 0, err
    return {r["citation_id"]: r for r in map(json.loads, output.read_text(encoding="utf-8").splitlines())}


def pin_sources(folder: Path, sources: dict[str, tuple[str, bytes]], cases: list | None = None) -> tuple[Path, Path]:
    """Write ``sources`` (``source_id -> (version, raw bytes)``) under ``folder/sources`` and pin them.

    Returns ``(manifest_path, cases_path)``; the case table is ``cases`` or one case asking for
    every source at version 1.0 and ``existing_path``.
    """
    (folder / "sources").mkdir(parents=True, exist_ok=True)
    entries = []
    for source_id, (version, raw) in sources.items():
        (folder / "sources" / f"{source_id}.md").write_bytes(raw)
        entries.append(
            {
                "source_id": source_id,
                "version": version,
                "path": f"sources/{source_id}.md",
                "url": f"https://quill.invalid/teaching/{version}/{source_id}",
                "sha256": hashlib.sha256(raw).hexdigest(),
            }
        )
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({"sources": entries}, indent=2), encoding="utf-8")
    if cases is None:
        cases = [
            {"case_id": "one", "candidate_ids": list(sources), "requested_version": "1.0", "claim_key": "existing_path"}
        ]
    cases_path = folder / "cases.json"
    cases_path.write_text(json.dumps(cases), encoding="utf-8")
    return manifest, cases_path
