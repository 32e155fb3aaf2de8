"""``claimgate recheck`` by its bulk path (read_ledger_lines, recheck_lines) writes the reference's bytes."""

from __future__ import annotations

import json
import subprocess
import sys

from claimgate.audit.recheck import recheck_citations
from claimgate.io.ledger_file import read_ledger_reference
from claimgate.io.writers import jsonl_line

from ..helpers import ROOT, cli

OLD = {
    "install": "Install the package with pip. The cache keeps 40 entries by default.",
    "retries": "Retries are not enabled unless you set the flag explicitly.",
    "limits": "Each request may upload at most 25 files at once.",
}
CITES = [
    {"citation_id": "cache", "doc_id": "install", "quote": "The cache keeps 40 entries"},
    {"citation_id": "retry", "doc_id": "retries", "quote": "Retries are not enabled unless"},
    {"citation_id": "limit", "doc_id": "limits", "quote": "upload at most 25 files"},
    {"citation_id": "ghost", "doc_id": "nowhere", "quote": "a page that was never there at all"},
]


def run(capsys, tmp_path, *args) -> tuple[int, str]:
    code, _, err = cli(capsys, *args, "--quiet")
    return code, err


def audited(capsys, tmp_path):
    """``(the corpus file, the ledger)`` of ``claimgate audit --ledger`` over ``OLD`` and ``CITES``."""
    corpus, cites, ledger = tmp_path / "v1.json", tmp_path / "c.jsonl", tmp_path / "ledger.jsonl"
    corpus.write_text(json.dumps(OLD), encoding="utf-8")
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES), encoding="utf-8")
    audit = ["audit", "--corpus", str(corpus), "--citations", str(cites), "--output", str(tmp_path / "a.jsonl")]
    assert run(capsys, tmp_path, *audit, "--ledger", str(ledger))[0] == 0
    return corpus, ledger


def test_recheck_writes_the_reference_rows_byte_for_byte(tmp_path, capsys):
    _, ledger = audited(capsys, tmp_path)
    today = {"install": "A new first line.\n\n" + OLD["install"], "retries": OLD["retries"].replace("not ", "")}
    (tmp_path / "v2.json").write_text(json.dumps(today), encoding="utf-8")
    out = tmp_path / "r.jsonl"
    code, err = run(capsys, tmp_path, "recheck", "--ledger", str(ledger), "--corpus", str(tmp_path / "v2.json"),
                    "--output", str(out))  # fmt: skip
    assert code == 0, err
    expected = recheck_citations(read_ledger_reference(ledger), today)
    assert out.read_bytes() == b"".join(jsonl_line(row) + b"\n" for row in expected)
    statuses = [json.loads(line)["status"] for line in out.read_text(encoding="utf-8").splitlines()]
    assert statuses == ["intact", "invalid", "invalid", "not_held"]


def test_an_edited_ledger_is_refused_in_one_line_by_the_bulk_path(tmp_path, capsys):
    corpus, ledger = audited(capsys, tmp_path)
    lines = ledger.read_bytes().splitlines(keepends=True)
    ledger.write_bytes(b"".join([*lines[:2], lines[2].replace(b"25 files", b"26 files"), *lines[3:]]))
    code, err = run(capsys, tmp_path, "recheck", "--ledger", str(ledger), "--corpus", str(corpus),
                    "--output", str(tmp_path / "r.jsonl"))  # fmt: skip
    assert code == 3 and err.strip().count("\n") == 0
    assert err.startswith("error: IngestionError: ledger_row_edited:") and ":3:" in err


def test_a_recheck_of_a_corpus_file_with_an_edited_page_imports_neither_pandas_nor_hamilton(tmp_path, capsys):
    _, ledger = audited(capsys, tmp_path)
    today = tmp_path / "v2.json"
    today.write_text(json.dumps({**OLD, "install": "A new first line.\n\n" + OLD["install"]}), encoding="utf-8")
    code = (
        "import sys\nfrom claimgate.cli.main import main\nstatus = main(sys.argv[1:])\n"
        "print(status, sorted({m.split('.')[0] for m in sys.modules} & {'pandas', 'hamilton'}))"
    )
    argv = ["recheck", "--ledger", str(ledger), "--corpus", str(today), "--output", str(tmp_path / "r.jsonl")]
    argv.append("--quiet")
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.split("\n")[-2] == "0 []", done.stderr
    assert [json.loads(line)["status"] for line in (tmp_path / "r.jsonl").read_text().splitlines()][0] == "intact"


def test_a_big_ledger_is_scanned_partly_by_a_helper_forked_before_numpy_and_writes_the_same_rows(tmp_path, capsys):
    _, ledger = audited(capsys, tmp_path)
    today = {**OLD, "install": "A new first line.\n\n" + OLD["install"]}
    (tmp_path / "v2.json").write_text(json.dumps(today), encoding="utf-8")
    code = (
        "import os, sys\nfrom claimgate.io import ledger_lines\nfrom claimgate.runtime import helper_process\n"
        "ledger_lines.HELPER_FROM_BYTES = 0  # this small ledger counts as big\nstarted = []\n"
        "class Recorded(helper_process.HelperProcess):\n"
        "    def __init__(self, *args):\n"
        "        started.append((len(os.listdir('/proc/self/task')), 'numpy' in sys.modules))\n"
        "        super().__init__(*args)\n"
        "ledger_lines.HelperProcess = Recorded\n"
        "from claimgate.cli.main import main\nstatus = main(sys.argv[1:])\nprint(status, started)"
    )
    out = tmp_path / "r.jsonl"
    argv = ["recheck", "--ledger", str(ledger), "--corpus", str(tmp_path / "v2.json"), "--output", str(out), "--quiet"]
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert done.stdout.split("\n")[-2] == "0 [(1, False)]", done.stderr  # one thread, numpy not yet imported
    expected = recheck_citations(read_ledger_reference(ledger), today)
    assert out.read_bytes() == b"".join(jsonl_line(row) + b"\n" for row in expected)
