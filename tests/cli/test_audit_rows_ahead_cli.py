"""``claimgate audit``: a forked helper audits and diagnoses the citations from the last back while the command
goes forward; the rows are the same bytes as ``--single-process`` writes, cold and with ``--cache``
(docs/audit-rules.md, "Auditing rows from both ends")."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from claimgate.runtime.helper_process import helper_available

from ..helpers import ROOT
from .test_audit_ahead_cli import _inputs

#: Runs the command with every citation table counted as big and blocks of two rows; the command's own blocks
#: are slowed (so the helper's arrive first). Prints the status, then per loop the blocks taken from the helper.
_RECORDING = """
import os, sys, time
from claimgate.runtime import rows_ahead
rows_ahead.no_blas_threads()  # as the command does first, before this script imports numpy with the audit
import claimgate.audit.stages as stages
rows_ahead.MIN_ROWS, rows_ahead.BLOCK_ROWS = 0, 2
stages.ROW_HELPER_MAX_CHARS = int(os.environ.get("MAX_CHARS", stages.ROW_HELPER_MAX_CHARS))
command, taken = os.getpid(), []
values_of = rows_ahead._values_of
def recorded_values_of(*args):
    values = values_of(*args)
    taken[-1] += values is not None
    return values
rows_ahead._values_of = recorded_values_of
both_ends = stages.rows_from_both_ends
def recorded_both_ends(n, compute, *args, **kwargs):
    def slowed(rows):
        if os.getpid() == command:
            time.sleep(0.01)
        return compute(rows)
    taken.append(0)
    return both_ends(n, slowed, *args, **kwargs)
stages.rows_from_both_ends = recorded_both_ends
from claimgate.cli.main import main
status = main(sys.argv[1:])
print(status, taken)
"""


def _audit(tmp_path, corpus, citations, name: str, *extra: str, max_chars: int | None = None) -> tuple[str, bytes]:
    out = tmp_path / name
    argv = ["audit", "--corpus", str(corpus), "--citations", str(citations), "--output", str(out), "--quiet", *extra]
    env = {**os.environ, **({"MAX_CHARS": str(max_chars)} if max_chars is not None else {})}
    done = subprocess.run(
        [sys.executable, "-c", _RECORDING, *argv], capture_output=True, text=True, cwd=ROOT, timeout=300, env=env
    )
    return done.stdout.strip().split("\n")[-1] + done.stderr, out.read_bytes()


def _taken(status: str) -> list[int]:
    code, _, counts = status.partition(" ")
    assert code == "0", status
    return [int(n) for n in counts.strip("[]").split(",") if n.strip()]


@pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")
def test_the_helpers_rows_are_the_rows_of_one_process_cold_and_warm(tmp_path):
    corpus, citations = _inputs(tmp_path)
    alone, single = _audit(tmp_path, corpus, citations, "single.jsonl", "--single-process")
    assert _taken(alone) == [0, 0]  # matching, then diagnosis: no helper
    status, rows = _audit(tmp_path, corpus, citations, "cold.jsonl")
    matched, diagnosed = _taken(status)
    assert matched > 0 and diagnosed > 0, status
    assert rows == single and b'"found"' in rows and b'"not_found"' in rows and b'"diagnosis"' in rows
    cache = str(tmp_path / "cache")
    _audit(tmp_path, corpus, citations, "fill.jsonl", "--cache", cache)
    status, warm = _audit(tmp_path, corpus, citations, "warm.jsonl", "--cache", cache)
    assert min(_taken(status)) > 0 and warm == single, status


def test_no_row_helper_on_another_executor(tmp_path):
    corpus, citations = _inputs(tmp_path)
    status, rows = _audit(tmp_path, corpus, citations, "mp.jsonl", "--executor", "multiprocessing", "--no-diagnose")
    assert sum(_taken(status)) == 0, status
    assert b'"found"' in rows


@pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")
def test_no_row_helper_for_a_corpus_over_the_size_bound(tmp_path):
    corpus, citations = _inputs(tmp_path)
    chars = len(corpus.read_text(encoding="utf-8"))  # the JSON file: a little more than its texts
    status, rows = _audit(tmp_path, corpus, citations, "big.jsonl", max_chars=chars // 2)
    assert _taken(status) == [0, 0], status
    status, same = _audit(tmp_path, corpus, citations, "fits.jsonl", max_chars=chars)
    assert min(_taken(status)) > 0 and same == rows, status


@pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")
def test_a_csv_citation_table_gets_the_helper_too(tmp_path):
    import csv
    import json

    corpus, citations = _inputs(tmp_path)
    rows = [json.loads(line) for line in citations.read_text(encoding="utf-8").splitlines()]
    table = tmp_path / "citations.csv"
    with table.open("w", encoding="utf-8", newline="") as out:
        writer = csv.DictWriter(out, fieldnames=["citation_id", "doc_id", "quote", "claim"])
        writer.writeheader()
        writer.writerows(rows)
    alone, single = _audit(tmp_path, corpus, table, "single.jsonl", "--single-process")
    status, cold = _audit(tmp_path, corpus, table, "cold.jsonl")
    assert min(_taken(status)) > 0, status  # pyarrow's CSV reader left its pools running: they are fork-safe
    assert cold == single and b'"found"' in cold
