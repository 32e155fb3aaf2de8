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

def cli(capsys, *args: str) -> tuple[int, str, str]:
    """Run ``main(args)`` in-process; return ``(exit status, stdout, stderr)``."""
    capsys.readouterr()
    try:
        code = main(list(args))
    except SystemExit as exc:  # argparse usage errors
        code = exc.code
    out, err = capsys.readouterr()
    return code, out, err

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
