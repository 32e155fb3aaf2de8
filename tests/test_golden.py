"""Golden outputs: what the default run, ``gate`` and ``audit`` write is byte-identical to the recorded files.

The files in ``tests/golden/expected/`` were written by the code before the package
layout changed (the flat ``dataflow`` modules); a change to any result byte must be
deliberate and re-recorded here with the reason in the commit. DAG pictures are not
guarded here: what they highlight is tested in ``tests/test_pictures.py``. The
benchmark inputs are guarded by SHA-256 (``benchmark_inputs.sha256``): the inputs the
generators write, and the outputs of ``gate`` and ``audit`` over them.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest
from claimgate.synthetic.audit_inputs import make_citations, make_corpus
from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

from .helpers import FIXTURES, run_cli

EXPECTED = Path(__file__).resolve().parent / "golden" / "expected"
SECOND = FIXTURES / "second_schema"


def _same_bytes(written: Path, expected_name: str) -> None:
    assert written.read_bytes() == (EXPECTED / expected_name).read_bytes(), f"{written.name} differs from the golden"


def test_default_run_writes_the_golden_results(tmp_path: Path) -> None:
    done = run_cli("--output", str(tmp_path / "gate_result.json"), "--no-pictures", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    _same_bytes(tmp_path / "gate_result.json", "default_gate_result.json")
    _same_bytes(tmp_path / "audit_result.jsonl", "default_audit_result.jsonl")
    # Added on purpose by the answer audit: the demo answer's result and its review page.
    _same_bytes(tmp_path / "answer_result.json", "default_answer_result.json")
    _same_bytes(tmp_path / "answer_report.html", "default_answer_report.html")


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".parquet"])
@pytest.mark.parametrize(
    "name, manifest, cases, schema",
    [
        ("quill", FIXTURES / "manifest.json", FIXTURES / "cases.json", None),
        ("second", SECOND / "manifest.json", SECOND / "cases.json", SECOND / "lumen_schema.toml"),
    ],
)
def test_gate_writes_the_golden_results(tmp_path: Path, name, manifest, cases, schema, suffix) -> None:
    out = tmp_path / f"{name}{suffix}"
    args = ["gate", "--manifest", str(manifest), "--cases", str(cases), "--output", str(out), "--quiet"]
    done = run_cli(*args, *(["--schema", str(schema)] if schema else []))
    assert done.returncode == 0, done.stderr
    _same_bytes(out, out.name)


@pytest.mark.parametrize("suffix", [".jsonl", ".json", ".csv"])
def test_audit_writes_the_golden_results(tmp_path: Path, suffix) -> None:
    out = tmp_path / f"audit{suffix}"
    corpus, citations = FIXTURES / "audit" / "corpus.json", FIXTURES / "audit" / "citations.jsonl"
    done = run_cli("audit", "--corpus", str(corpus), "--citations", str(citations), "--output", str(out), "--quiet")
    assert done.returncode == 0, done.stderr
    _same_bytes(out, out.name)


def test_audit_over_a_manifest_writes_the_golden_results(tmp_path: Path) -> None:
    out = tmp_path / "audit_manifest.jsonl"
    citations = FIXTURES / "audit" / "citations.jsonl"
    done = run_cli(
        "audit",
        "--manifest",
        str(FIXTURES / "manifest.json"),
        "--citations",
        str(citations),
        "--output",
        str(out),
        "--quiet",
    )
    assert done.returncode == 0, done.stderr
    _same_bytes(out, out.name)


def test_benchmark_inputs_and_their_results_are_golden(tmp_path: Path) -> None:
    manifest = write_sources(tmp_path / "src", n_sources=150, seed=4, mean_bytes=3000)
    write_case_table(tmp_path / "cases.jsonl", case_rows(manifest, 3000))
    write_case_table(tmp_path / "cases.csv", case_rows(manifest, 500, portable=True))
    docs, doc_words, vocab, weights = make_corpus(400, 0)
    (tmp_path / "corpus.json").write_text(json.dumps(docs, ensure_ascii=False))
    with open(tmp_path / "citations.jsonl", "w") as handle:
        for i, (kind, quote, doc_id) in enumerate(make_citations(300, doc_words, vocab, weights, 0)):
            row = {"citation_id": f"c{i}", "claim": kind, "doc_id": doc_id, "quote": quote}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    runs = [
        (
            "gate",
            "--manifest",
            str(manifest),
            "--cases",
            str(tmp_path / "cases.jsonl"),
            "--output",
            str(tmp_path / "bench_gate.jsonl"),
        ),
        (
            "gate",
            "--manifest",
            str(manifest),
            "--cases",
            str(tmp_path / "cases.csv"),
            "--output",
            str(tmp_path / "bench_gate_csv.json"),
        ),
        (
            "audit",
            "--corpus",
            str(tmp_path / "corpus.json"),
            "--citations",
            str(tmp_path / "citations.jsonl"),
            "--output",
            str(tmp_path / "bench_audit.jsonl"),
        ),
    ]
    for args in runs:
        done = run_cli(*args, "--quiet")
        assert done.returncode == 0, done.stderr
    expected = dict(line.split() for line in (EXPECTED / "benchmark_inputs.sha256").read_text().splitlines())
    actual = {name: hashlib.sha256((tmp_path / name).read_bytes()).hexdigest() for name in expected}
    assert actual == expected
