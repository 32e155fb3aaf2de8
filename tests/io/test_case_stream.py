"""Reading a case table in chunks gives the lines, rows and case problems of the whole read."""

from __future__ import annotations

import pandas as pd
import pytest
from claimgate.io import case_stream, tables
from claimgate.io.case_stream import CaseChunks
from claimgate.io.tables import case_table_frame, read_case_rows
from hypothesis import given, settings
from hypothesis import strategies as st

PIECES = st.sampled_from(["a", "é", "日", "🙂", "\n", "\r", "\r\n", "\u2028", "\x85", "\x0c", " ", "{}", '"x"'])


@settings(max_examples=200, deadline=None)
@given(pieces=st.lists(PIECES, max_size=40), bom=st.booleans(), block=st.integers(1, 7))
def test_streamed_lines_equal_the_whole_read_lines_whatever_the_block_size(tmp_path_factory, pieces, bom, block):
    text = "".join(pieces)
    path = tmp_path_factory.mktemp("lines") / "t.jsonl"
    path.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8"))
    original = case_stream.BLOCK_BYTES
    case_stream.BLOCK_BYTES = block  # blocks that cut "\r\n" and multi-byte characters in two
    try:
        assert list(case_stream.jsonl_lines(path)) == list(tables._jsonl_lines(text))
    finally:
        case_stream.BLOCK_BYTES = original


@pytest.fixture(autouse=True)
def read_in_chunks(monkeypatch):
    """Every table is read in chunks here, however small (not whole, as tables up to 8 MiB are)."""
    monkeypatch.setattr(case_stream, "WHOLE_READ_BYTES", 0)


def _whole_frame(path) -> pd.DataFrame:
    return case_table_frame(read_case_rows(path))


@pytest.mark.parametrize("chunk_rows", [1, 2, 3, 100])
def test_chunks_concatenate_to_the_whole_case_table(tmp_path, chunk_rows):
    rows = [
        '{"case_id": "a", "candidate_ids": ["x"]}',
        '{"case_id": "b"}',
        "",
        "[1, 2]",
        '{"case_id": "a"}',  # repeats row 0, in a later chunk
        '{"case_id": ""}',
        '{"case_id": "b", "n": 123456789012345678901234567890}',
        '{"case_id": 7}',
        '{"case_id": "c", "k": "\\ud800"}',
    ]
    path = tmp_path / "cases.jsonl"
    path.write_text("\r\n".join(rows) + "\n", encoding="utf-8")
    chunks = list(CaseChunks(path, chunk_rows))
    assert all(len(chunk) <= chunk_rows for chunk in chunks)
    streamed = pd.concat(chunks, ignore_index=True)
    whole = _whole_frame(path)
    pd.testing.assert_frame_equal(streamed, whole)
    assert streamed["case_problem"].str.contains("repeats an earlier row").sum() == 2


def test_chunked_csv_keeps_line_numbers_of_errors(tmp_path):
    path = tmp_path / "cases.csv"
    path.write_text(
        "case_id,candidate_ids,requested_version,claim_key\na,x;y,1.0,existing_path\nb,x,1.0\n", encoding="utf-8"
    )
    with pytest.raises(Exception) as whole:
        read_case_rows(path)
    with pytest.raises(Exception) as streamed:
        CaseChunks(path, 1)
    assert str(streamed.value) == str(whole.value)
    assert "line 3" in str(whole.value)


def test_chunk_size_below_one_is_refused(tmp_path):
    with pytest.raises(ValueError):
        CaseChunks(tmp_path / "x.jsonl", 0)
