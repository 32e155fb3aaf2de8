"""A streamed gate run writes the bytes of the whole-table run, whatever the chunk size and executor.

The whole-table run (``drivers.run_gate`` + ``writers.write_jsonl``) is the reference.
The streamed run reads the case table in chunks (``io.case_stream``), decides each
chunk through the same driver with the table-wide values computed once
(``execution.streaming``) and writes the lines as chunks complete. Refusals of the
case table keep their order and wording, and nothing is written when a run is refused.
"""

from __future__ import annotations

import importlib.util

import pytest
from claimgate.cli import main as run_pipeline
from claimgate.cli.documents import case_entries
from claimgate.errors import IngestionError
from claimgate.execution import drivers, streaming
from claimgate.execution.settings import RunSettings
from claimgate.gate import stages
from claimgate.io import case_stream
from claimgate.io.writers import write_jsonl
from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

from ..helpers import FIXTURES, pin_sources


@pytest.fixture(autouse=True)
def read_in_chunks(monkeypatch):
    """Every table is read in chunks here, however small (not whole, as tables up to 8 MiB are)."""
    monkeypatch.setattr(case_stream, "WHOLE_READ_BYTES", 0)


def whole_table_bytes(manifest, cases, folder) -> bytes:
    """What the whole-table run writes as JSONL for ``cases``."""
    run = drivers.run_gate(manifest, cases)
    path = folder / "whole.jsonl"
    write_jsonl(path, case_entries(run))
    return path.read_bytes()


def streamed_bytes(manifest, cases, folder, **settings) -> bytes:
    path = folder / "streamed.jsonl"
    streaming.stream_gate(manifest, cases, path, settings=RunSettings(**settings))
    return path.read_bytes()


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """40 sources and 3,000 cases (bad rows, repeated case ids); the whole-table run's bytes."""
    folder = tmp_path_factory.mktemp("streaming")
    manifest = write_sources(folder / "docs", n_sources=40, seed=5, mean_bytes=1200)
    rows = case_rows(manifest, 3000, seed=5, bad_rate=0.1)
    rows.append(dict(rows[1]))  # the last row repeats a case id from the first chunk
    cases = write_case_table(folder / "cases.jsonl", rows)
    return manifest, cases, whole_table_bytes(manifest, cases, folder), folder


@pytest.mark.parametrize("chunk_rows", [97, 1000, 3001])
def test_streamed_run_writes_the_whole_table_bytes(table, tmp_path, chunk_rows):
    manifest, cases, whole, _ = table
    assert b"repeats an earlier row" not in whole  # the reason is in the result, not in the entry line
    assert streamed_bytes(manifest, cases, tmp_path, chunk_rows=chunk_rows) == whole


def test_repeated_case_id_in_a_later_chunk_is_refused_as_in_the_whole_run(table, tmp_path):
    manifest, cases, whole, _ = table
    path = tmp_path / "s.jsonl"
    summary = streaming.stream_gate(manifest, cases, path, settings=RunSettings(chunk_rows=500))
    last = path.read_bytes().splitlines()[-1]
    assert b'"reason":"invalid_case"' in last
    assert summary.cases == 3001
    assert summary.counts[("refused", "invalid_case")] >= 1


def test_csv_table_streamed_in_chunks_writes_the_whole_table_bytes(tmp_path):
    manifest = write_sources(tmp_path / "docs", n_sources=30, seed=6, mean_bytes=800)
    rows = case_rows(manifest, 400, seed=6, bad_rate=0.1, portable=True)
    rows.append(dict(rows[0]))
    cases = write_case_table(tmp_path / "cases.csv", rows)
    assert streamed_bytes(manifest, cases, tmp_path, chunk_rows=37) == whole_table_bytes(manifest, cases, tmp_path)


def test_short_page_shape_streams_the_whole_table_bytes(tmp_path):
    manifest = write_sources(tmp_path / "docs", n_sources=60, shape="short")
    cases = write_case_table(tmp_path / "cases.jsonl", case_rows(manifest, 800, shape="short"))
    assert streamed_bytes(manifest, cases, tmp_path, chunk_rows=150) == whole_table_bytes(manifest, cases, tmp_path)


def test_json_list_table_is_cut_into_chunks_with_the_same_bytes(tmp_path):
    manifest, cases = FIXTURES / "manifest.json", FIXTURES / "cases.json"
    assert streamed_bytes(manifest, cases, tmp_path, chunk_rows=3) == whole_table_bytes(manifest, cases, tmp_path)


def test_each_source_is_parsed_once_for_a_table_of_many_chunks(table, tmp_path, monkeypatch):
    manifest, cases, whole, _ = table
    parsed: list[str] = []
    original = stages.parse_directives

    def counting(text, schema, source_id=""):
        parsed.append(source_id)
        return original(text, schema, source_id)

    monkeypatch.setattr(stages, "parse_directives", counting)
    assert streamed_bytes(manifest, cases, tmp_path, chunk_rows=200) == whole
    assert len(parsed) == len(set(parsed)) == 40


def test_empty_table_writes_an_empty_file(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert streamed_bytes(FIXTURES / "manifest.json", empty, tmp_path, chunk_rows=5) == b""


@pytest.mark.parametrize(
    "content",
    [
        b'{"case_id": "a"}\n\n{"case_id": \n',  # a bad JSON line after several good ones
        b'{"case_id": "a"}\n{"case_id": "b"}\n\xff\n',  # not UTF-8
        b'\xef\xbb\xbf{"case_id": "a"}\r\n{"case_id": "\xe2\x80\xa8"}\r\n{"case_id": "c"\r\n',  # CRLF, BOM
    ],
)
def test_refused_table_gives_the_whole_read_error_and_writes_nothing(tmp_path, content):
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(content)
    with pytest.raises(IngestionError) as whole:
        drivers.run_gate(FIXTURES / "manifest.json", cases)
    output = tmp_path / "out.jsonl"
    with pytest.raises(IngestionError) as streamed:
        streaming.stream_gate(FIXTURES / "manifest.json", cases, output, settings=RunSettings(chunk_rows=1))
    assert streamed.value.one_line() == whole.value.one_line()
    assert not output.exists()


def test_bad_table_is_refused_before_a_bad_manifest_as_in_the_whole_run(tmp_path):
    cases = tmp_path / "cases.jsonl"
    cases.write_bytes(b'{"case_id": "a"}\n{oops\n')
    manifest = tmp_path / "manifest.json"
    manifest.write_text("{}")
    with pytest.raises(IngestionError) as whole:
        drivers.run_gate(manifest, cases)
    with pytest.raises(IngestionError) as streamed:
        streaming.stream_gate(manifest, cases, tmp_path / "o.jsonl", settings=RunSettings(chunk_rows=1))
    assert streamed.value.reason == whole.value.reason == "invalid_case_table"


def test_failed_run_leaves_an_existing_output_untouched(table, tmp_path, monkeypatch):
    manifest, cases, _, _ = table
    output = tmp_path / "out.jsonl"
    output.write_bytes(b"before\n")
    calls = []

    def failing(case_table, constants):
        calls.append(1)
        if len(calls) == 3:
            raise RuntimeError("worker lost")
        return original(case_table, constants)

    original = streaming.decided_chunk
    monkeypatch.setattr(streaming, "decided_chunk", failing)
    with pytest.raises(RuntimeError):
        streaming.stream_gate(manifest, cases, output, settings=RunSettings(chunk_rows=500))
    assert output.read_bytes() == b"before\n"


NEEDS_RAY = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="the optional ray extra")


@pytest.mark.parametrize("executor", ["dask", "multiprocessing", pytest.param("ray", marks=NEEDS_RAY)])
def test_workers_decide_chunks_and_the_output_keeps_the_local_bytes(table, tmp_path, executor):
    manifest, cases, whole, _ = table
    # window 2: chunks finish out of order on two workers, and the driver holds at most two.
    assert streamed_bytes(manifest, cases, tmp_path, chunk_rows=400, executor=executor, window=2) == whole


def test_command_line_streams_jsonl_and_prints_the_whole_run_summary(tmp_path, capsys):
    argv = ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json")]
    assert run_pipeline.main([*argv, "--output", str(tmp_path / "a.jsonl")]) == 0
    streamed_out = capsys.readouterr().out
    assert run_pipeline.main([*argv, "--output", str(tmp_path / "a.json")]) == 0
    whole_out = capsys.readouterr().out
    assert streamed_out.replace("a.jsonl", "a.json") == whole_out
    assert "same_version_directives_disagree" in streamed_out


def test_small_table_read_whole_writes_the_same_bytes(table, tmp_path, monkeypatch):
    manifest, cases, whole, _ = table
    monkeypatch.setattr(case_stream, "WHOLE_READ_BYTES", 8 << 20)
    assert streamed_bytes(manifest, cases, tmp_path, chunk_rows=700) == whole


def test_schema_opt_ins_stream_the_same_bytes_and_report_the_same_ignored_lines(tmp_path, capsys):
    page = b"# Copying\n@quill create_copy existing_path=refuse\n\n```\n@quill create_copy existing_path=overwrite\n"
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", page), "b": ("1.0", b"x\n")})
    schema = tmp_path / "schema.toml"
    schema.write_text(
        'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse", "overwrite"]\n'
        "[directives]\nskip_fenced_code = true\n"
    )
    argv = ["gate", "--manifest", str(manifest), "--cases", str(cases), "--schema", str(schema)]
    assert run_pipeline.main([*argv, "--output", str(tmp_path / "s.jsonl")]) == 0
    streamed_out = capsys.readouterr().out
    assert run_pipeline.main([*argv, "--output", str(tmp_path / "s.json")]) == 0
    whole_out = capsys.readouterr().out
    assert "not read as directives" in streamed_out
    assert streamed_out.replace("s.jsonl", "s.json") == whole_out
    run = drivers.run_gate(manifest, cases, schema)
    write_jsonl(tmp_path / "whole.jsonl", case_entries(run))
    assert (tmp_path / "s.jsonl").read_bytes() == (tmp_path / "whole.jsonl").read_bytes()
