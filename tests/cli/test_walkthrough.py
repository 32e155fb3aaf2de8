"""The pin → verify → gate walkthrough of docs/using-your-docs.md, run as written with the ``claimgate`` command."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from ..helpers import ROOT

DOC = ROOT / "docs" / "using-your-docs.md"


def walkthrough_script() -> str:
    """The first ``sh`` block after the walkthrough heading, verbatim."""
    text = DOC.read_text(encoding="utf-8")
    section = text[text.index("## Walkthrough") :]
    match = re.search(r"^```sh\n(.*?)^```$", section, flags=re.S | re.M)
    assert match, "the walkthrough has no sh block"
    return match.group(1)


@pytest.fixture(scope="module")
def walked(tmp_path_factory):
    bin_dir = Path(sys.executable).parent
    if not (bin_dir / "claimgate").exists():
        pytest.skip("the claimgate console command is not installed in this environment")
    folder = tmp_path_factory.mktemp("acme")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}"}
    done = subprocess.run(
        ["bash", "-e", "-c", walkthrough_script()], cwd=folder, env=env, capture_output=True, text=True, timeout=600
    )
    return done, folder


def test_walkthrough_runs_to_the_end(walked):
    done, _ = walked
    assert done.returncode == 0, done.stderr


def test_walkthrough_gate_decides_as_the_page_says(walked):
    _, folder = walked
    document = json.loads((folder / "result.json").read_text())
    assert document["execution_mode"] == "acme-docs-gate"
    results = {entry["case_id"]: entry["result"] for entry in document["cases"]}
    ready = results["buffering-1.4"]
    assert (ready["status"], ready["agreed_value"]) == ("ready", "line")
    assert ready["excluded_wrong_version_ids"] == ["docs/2.0.0/streams.md"]
    assert ready["answer_request"]["messages"][0]["content"].startswith("Answer only from the supplied Acme SDK")
    assert results["buffering-1.4-short"]["reason"] == "invalid_requested_version"
    assert [(e["source_id"], e["rule"]) for e in document["ignored_directive_lines"]] == [
        ("docs/1.4.0/faq.md", "skip_fenced_code"),
        ("docs/1.4.0/faq.md", "scope_prefix"),
    ]


def test_walkthrough_verify_names_the_edited_page_and_repin_restores_it(walked):
    done, folder = walked
    assert "error: IngestionError: hash_mismatch: docs/1.4.0/streams.md: pinned " in done.stderr
    assert "verify refused the edited page (exit 3)" in done.stdout
    assert "re-pinned  docs/1.4.0/streams.md" in done.stdout
    assert done.stdout.rstrip().endswith("all 3 pins of manifest.json hold")
    urls = [s["url"] for s in json.loads((folder / "manifest.json").read_text())["sources"]]
    assert urls == [f"https://acme.invalid/docs/{p}" for p in ("1.4.0/faq.md", "1.4.0/streams.md", "2.0.0/streams.md")]
