"""Progress of the streamed gate: a bar in cases with a total and an ETA, and a phase line while the
sources are verified; stderr only, and only when stderr is a terminal and ``--quiet`` is not given.
"""

from __future__ import annotations

import io
import json
import re

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from claimgate.execution import progress, streaming
from claimgate.execution.settings import RunSettings
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import FIXTURES, cli

ROWS = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))


class Terminal(io.StringIO):
    """A stderr that says it is a terminal."""

    def isatty(self) -> bool:
        return True


def _jsonl(tmp_path, rows, name="cases.jsonl", blank_lines=0, final_newline=True):
    path = tmp_path / name
    text = "\n".join(json.dumps(r) for r in rows) + "\n" * blank_lines
    path.write_text(text + ("\n" if final_newline else ""), encoding="utf-8")
    return path


# ----------------------------------------------------------------------------- the total


def test_the_total_of_a_jsonl_table_is_its_line_count(tmp_path):
    assert progress.estimated_cases(_jsonl(tmp_path, ROWS)) == len(ROWS)
    assert progress.estimated_cases(_jsonl(tmp_path, ROWS, "b.jsonl", final_newline=False)) == len(ROWS)


def test_the_total_of_a_csv_table_leaves_out_the_header(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("case_id,candidate_ids,requested_version,claim_key\na,x,1.0,k\nb,x,1.0,k\n", encoding="utf-8")
    assert progress.estimated_cases(path) == 2
    header_only = tmp_path / "h.csv"
    header_only.write_text("case_id,candidate_ids,requested_version,claim_key\n", encoding="utf-8")
    assert progress.estimated_cases(header_only) == 0


def test_the_total_of_a_parquet_table_is_its_footers_row_count(tmp_path):
    path = tmp_path / "p.parquet"
    pq.write_table(pa.table({"case_id": [f"c{i}" for i in range(37)]}), path)
    assert progress.estimated_cases(path) == 37


@pytest.mark.parametrize("name", ["cases.json", "missing.jsonl", "bad.parquet"])
def test_no_total_for_a_json_list_or_an_unreadable_table(tmp_path, name):
    (tmp_path / "cases.json").write_text(json.dumps(ROWS), encoding="utf-8")
    (tmp_path / "bad.parquet").write_bytes(b"not parquet")
    assert progress.estimated_cases(tmp_path / name) is None


@given(st.lists(st.text(alphabet="ab\n", max_size=12), max_size=30))
def test_the_jsonl_total_counts_every_line_ending_and_a_last_unterminated_line(tmp_path_factory, pieces):
    path = tmp_path_factory.mktemp("t") / "t.jsonl"
    data = "".join(pieces).encode()
    path.write_bytes(data)
    assert progress.estimated_cases(path) == len(data.splitlines())


# ----------------------------------------------------------------------------- the bar and the phase line


def test_a_small_total_is_shown_unscaled():
    bar = progress.case_bar(40, file=Terminal())
    bar.update(35)
    meter = str(bar)
    bar.close()
    assert " 35/40 [" in meter, meter


def test_the_case_bar_shows_cases_done_of_the_total_with_an_eta():
    bar = progress.case_bar(200_000, file=Terminal())
    bar.update(50_000)
    meter = str(bar)
    bar.close()
    assert re.search(r"50\.0k/200k \[\d\d:\d\d<\d\d:\d\d", meter), meter
    assert "cases/s" in meter


def test_the_phase_line_is_erased_when_the_phase_ends():
    stream = Terminal()
    with progress.phase("gate: verifying", True, stream):
        assert stream.getvalue() == "gate: verifying…"
    assert stream.getvalue() == "gate: verifying…\r\x1b[K"


@pytest.mark.parametrize("enabled, stream", [(False, Terminal()), (True, io.StringIO())], ids=["off", "no-terminal"])
def test_no_phase_line_when_off_or_not_a_terminal(enabled, stream):
    with progress.phase("gate: verifying", enabled, stream):
        pass
    assert stream.getvalue() == ""


# ----------------------------------------------------------------------------- the streamed gate


def _stream(tmp_path, monkeypatch, stderr, cases, **settings):
    monkeypatch.setattr("sys.stderr", stderr)
    output = tmp_path / "out.jsonl"
    streaming.stream_gate(FIXTURES / "manifest.json", cases, output, None, RunSettings(progress=True, **settings))
    return output.read_bytes()


def test_a_streamed_run_on_a_terminal_shows_the_phases_and_cases_of_the_total(tmp_path, monkeypatch):
    stderr = Terminal()
    cases = _jsonl(tmp_path, ROWS * 5)
    written = _stream(tmp_path, monkeypatch, stderr, cases, chunk_rows=7)
    shown = stderr.getvalue()
    assert "gate: verifying the pinned sources and parsing their directives…" in shown
    assert "gate: reading the case table…" in shown
    assert re.search(rf"\b\d+/{len(ROWS) * 5} \[\d\d:\d\d<\d\d:\d\d, ", shown), shown  # done/total [elapsed<ETA
    assert "cases/s" in shown
    monkeypatch.setattr("sys.stderr", io.StringIO())
    quiet = tmp_path / "quiet.jsonl"
    streaming.stream_gate(FIXTURES / "manifest.json", cases, quiet, None, RunSettings(chunk_rows=7))
    assert written == quiet.read_bytes()  # progress changes no byte


def test_an_estimate_above_the_true_count_is_corrected_at_the_end(tmp_path, monkeypatch):
    cases = _jsonl(tmp_path, ROWS, blank_lines=4)  # blank lines are skipped by the reader, counted by the estimate
    bars = []
    real = progress.case_bar

    def recording(total, desc="gate", file=None):
        bars.append(real(total, desc, file))
        return bars[-1]

    monkeypatch.setattr(progress, "case_bar", recording)
    _stream(tmp_path, monkeypatch, Terminal(), cases)
    assert bars and bars[0].total == bars[0].n == len(ROWS)


def test_a_streamed_run_shows_nothing_when_stderr_is_not_a_terminal(tmp_path, monkeypatch):
    stderr = io.StringIO()
    _stream(tmp_path, monkeypatch, stderr, _jsonl(tmp_path, ROWS), chunk_rows=3)
    assert stderr.getvalue() == ""


def test_the_command_shows_no_progress_with_quiet_even_on_a_terminal(tmp_path, capsys, monkeypatch):
    monkeypatch.setattr("sys.stderr.isatty", lambda: True, raising=False)
    cases = _jsonl(tmp_path, ROWS)
    args = ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(cases)]
    code, _, err = cli(capsys, *args, "--output", str(tmp_path / "o.jsonl"), "--quiet")
    assert code == 0 and err == ""
