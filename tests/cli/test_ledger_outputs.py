"""``--ledger`` is an output like the others: never the same file as ``--output``, ``--report`` or ``--summary``.

Before, ``audit --output L.jsonl --ledger L.jsonl`` exited 0: the result rows replaced the ledger, then the
new ledger rows were appended, and every later recheck refused the file. Each command that takes
``--ledger`` (audit, answer, gate) refuses it now before any work, exit 2, and the earlier ledger is kept.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claimgate.io.ledger_append import append_ledger

from ..helpers import FIXTURES, cli

EARLIER = {"kind": "citation", "corpus_sha256": "0" * 64, "sources": {"d": "1" * 64}, "citation_id": "old",
           "doc_id": "d", "quote": "kept words", "verdict": "found", "spans": []}  # fmt: skip

PAGE = "# Install\n\nThe cache keeps 40 entries by default.\n"


def _command(tmp_path: Path, name: str) -> list[str]:
    docs = tmp_path / "docs"
    docs.mkdir(exist_ok=True)
    (docs / "install.md").write_text(PAGE, encoding="utf-8")
    if name == "audit":
        cites = tmp_path / "cites.jsonl"
        cites.write_text(json.dumps({"citation_id": "c", "doc_id": "install.md", "quote": "The cache keeps 40"}) + "\n")
        return ["audit", "--corpus-dir", str(docs), "--citations", str(cites)]
    if name == "answer":
        answer = tmp_path / "answer.json"
        cited = [{"marker": "1", "doc_id": "install.md", "quote": "The cache keeps 40 entries"}]
        answer.write_text(json.dumps({"text": "It keeps 40 [1].", "citations": cited}))
        return ["answer", "--corpus-dir", str(docs), "--answer", str(answer)]
    return ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json")]


CLASHES = [("audit", "same"), ("gate", "same"), ("audit", "dotted"), ("gate", "dotted")] + [
    (name, clash) for name in ("audit", "answer", "gate") for clash in ("output_link", "report_link")
]


@pytest.mark.parametrize("name, clash", CLASHES)
def test_the_ledger_may_not_be_another_output(capsys, tmp_path, name, clash):
    ledger = tmp_path / "ledger.jsonl"
    append_ledger(ledger, [EARLIER])
    earlier = ledger.read_bytes()
    output = tmp_path / ("o.json" if name == "answer" else "o.jsonl")
    link = tmp_path / ("link.html" if clash == "report_link" else output.name)
    if clash.endswith("_link"):
        link.symlink_to(ledger)  # the same file under an output's name
    options = {
        "same": ["--output", str(ledger)],
        "dotted": ["--output", str(tmp_path / "." / "ledger.jsonl")],
        "output_link": ["--output", str(link)],
        "report_link": ["--output", str(output), "--report", str(link)],
    }[clash]
    code, out, err = cli(capsys, *_command(tmp_path, name), *options, "--ledger", str(ledger), "--quiet")
    assert code == 2, err
    assert err.splitlines()[-1].startswith("error: cannot write ") and "it is another output" in err
    assert ledger.read_bytes() == earlier
    assert clash == "output_link" or not output.exists()


@pytest.mark.parametrize("name", ["audit", "answer", "gate"])
def test_a_ledger_beside_distinct_outputs_is_written(capsys, tmp_path, name):
    ledger = tmp_path / "ledger.jsonl"
    output = tmp_path / ("o.json" if name == "answer" else "o.jsonl")
    code, _, err = cli(capsys, *_command(tmp_path, name), "--output", str(output), "--ledger", str(ledger), "--quiet")
    assert code in (0, 1), err
    assert output.exists() and ledger.read_text(encoding="utf-8").count("\n") >= 1
