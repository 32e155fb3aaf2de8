"""``claimgate audit --corpus``: a big corpus file is normalized partly by a helper forked before numpy; the
rows are the same bytes as ``--single-process`` writes (docs/audit-rules.md, "Indexing a big corpus file")."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from claimgate.runtime.helper_process import helper_available

from tests.audit.text.strategies import real_docstrings

from ..helpers import ROOT

#: Runs the command with this small corpus counted as big and small chunks; prints the status, what the
#: process was like at each fork (threads, numpy imported) and how many chunks the build took from the helper.
_RECORDING = """
import os, sys
from claimgate.audit.index import ahead
from claimgate.runtime import helper_process
ahead.AHEAD_FROM_BYTES = 0
started, taken = [], []
def small_chunks():  # in each process once it has forked: the build's module imports numpy
    from claimgate.audit.index import build
    build.CHUNK_CHARS = 20_000
class Recorded(helper_process.HelperStream):
    def __init__(self, *args):
        started.append((len(os.listdir('/proc/self/task')), 'numpy' in sys.modules))
        super().__init__(*args)
        small_chunks()
ahead.HelperStream = Recorded
body = ahead._chunks_from_the_end
def recorded_body(*args):
    small_chunks()
    yield from body(*args)
ahead._chunks_from_the_end = recorded_body
stop = ahead.ChunksAhead.stop
def recorded_stop(self):
    taken.append(self.taken)
    stop(self)
ahead.ChunksAhead.stop = recorded_stop
from claimgate.cli.main import main
status = main(sys.argv[1:])
print(status, started, bool(taken and taken[0] > 1))
"""


def _inputs(tmp_path):
    texts = real_docstrings(400)
    documents = {f"doc{i:03d}": t for i, t in enumerate(texts)}
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(documents), encoding="utf-8")
    rows = []
    for i, (doc_id, text) in enumerate(list(documents.items())[::7]):
        words = text.split()
        quote = " ".join(words[2:10]) if i % 3 else " ".join(words[:6]) + " not"
        cited = doc_id if i % 5 else "doc000"
        rows.append({"citation_id": f"c{i}", "doc_id": cited, "quote": quote, "claim": ""})
    citations = tmp_path / "citations.jsonl"
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return corpus, citations


def _audit(tmp_path, corpus, citations, name: str, *extra: str) -> tuple[str, bytes]:
    out = tmp_path / name
    argv = ["audit", "--corpus", str(corpus), "--citations", str(citations), "--output", str(out), "--quiet", *extra]
    done = subprocess.run(
        [sys.executable, "-c", _RECORDING, *argv], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    return done.stdout.strip().split("\n")[-1] + done.stderr, out.read_bytes()


@pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")
def test_a_big_corpus_file_is_normalized_partly_by_a_helper_forked_before_numpy_and_writes_the_same_rows(tmp_path):
    corpus, citations = _inputs(tmp_path)
    status, rows = _audit(tmp_path, corpus, citations, "ahead.jsonl")
    assert status.startswith("0 [(1, False)] True"), status  # one thread, numpy not yet imported; chunks taken
    alone, single = _audit(tmp_path, corpus, citations, "single.jsonl", "--single-process")
    assert alone.startswith("0 [] False"), alone  # no helper
    assert rows == single and b'"found"' in rows and b'"not_found"' in rows


def test_no_helper_with_a_cache_or_another_executor(tmp_path):
    corpus, citations = _inputs(tmp_path)
    status, _ = _audit(tmp_path, corpus, citations, "cached.jsonl", "--cache", str(tmp_path / "cache"))
    assert status.startswith("0 [] False"), status
    status, _ = _audit(tmp_path, corpus, citations, "mp.jsonl", "--executor", "multiprocessing")
    assert status.startswith("0 [] False"), status
