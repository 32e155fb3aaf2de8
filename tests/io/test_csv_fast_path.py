"""The ``pyarrow.csv`` fast path reads exactly the rows of the standard-library reader, and never refuses on its own."""

from __future__ import annotations

import csv
import io

import pytest
from claimgate.errors import IngestionError
from claimgate.io import tables
from claimgate.io.csv_arrow import arrow_csv_rows
from claimgate.io.tables import CSV_CASE_COLUMNS, case_table_frame, csv_case_row, read_case_rows
from hypothesis import given, settings
from hypothesis import strategies as st

HEADER = ",".join(CSV_CASE_COLUMNS)
REASON = "invalid_case_table"


def stdlib_rows(raw: bytes, required=CSV_CASE_COLUMNS) -> list[dict]:
    """The reference: the standard-library reader over the decoded text (raises its refusal)."""
    lines = tables.physical_lines(io.StringIO(raw.decode("utf-8-sig"), newline=""))
    return list(tables.iter_csv_rows(lines, "c.csv", REASON, required))


def outcome(read, *args):
    try:
        return "rows", read(*args)
    except IngestionError as exc:
        return "refused", exc.reason, exc.detail


#: Pieces of cells: quotes, separators, every line end, white space Python strips (``\x1c``, U+3000), and
#: characters that end a line for ``str.splitlines`` but not for either CSV reader (U+0085, U+2028).
PIECES = (
    "a",
    "1.0",
    ";",
    " ",
    ",",
    '"',
    "\n",
    "\r",
    "\r\n",
    "é",
    "🙂",
    "\x00",
    "\t",
    "\x1c",
    "\u3000",
    "\x85",
    "\u2028",
)
CELL_TEXT = st.lists(
    st.sampled_from(PIECES),
    max_size=6,
).map("".join)


def encode_cell(text: str, quote: bool) -> str:
    """A cell as a CSV writer would put it: quoted when asked or needed, ``""`` for a quote."""
    needs = text[:1] == '"' or any(c in text for c in ",\r\n")
    if quote or needs:
        return '"' + text.replace('"', '""') + '"'
    return text


@st.composite
def csv_tables(draw) -> bytes:
    """Well-formed tables: the case header (maybe an extra column), quoted cells, embedded line ends, BOM, blanks."""
    columns = list(CSV_CASE_COLUMNS) + draw(st.sampled_from([[], ["operation"], ["note"]]))
    end = draw(st.sampled_from(["\n", "\r\n", "\r"]))
    lines = [",".join(encode_cell(c, draw(st.booleans())) for c in columns)]
    for _ in range(draw(st.integers(0, 6))):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", " ", "  \t"])))  # blank lines, with spaces or not
            continue
        lines.append(",".join(encode_cell(draw(CELL_TEXT), draw(st.booleans())) for _ in columns))
    text = end.join(lines) + draw(st.sampled_from(["", end]))
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8")


JUNK = st.lists(
    st.sampled_from([HEADER, ",", '"', '""', '"x"y', "\n", "\r\n", "\r", "a", " ", "\ufeff", "case_id", ";"]),
    max_size=16,
)


@settings(max_examples=300, deadline=None)
@given(raw=csv_tables())
def test_the_fast_path_gives_the_frame_of_the_standard_library_reader(raw):
    expected = stdlib_rows(raw)
    fast = arrow_csv_rows(raw, CSV_CASE_COLUMNS)
    if fast is not None:
        assert fast == expected
    reference = case_table_frame([csv_case_row(dict(r)) for r in expected])
    fast_cases = arrow_csv_rows(raw, CSV_CASE_COLUMNS, case_rows=True)  # ids split by Arrow
    assert (fast_cases is None) == (fast is None)
    if fast_cases is not None:
        assert case_table_frame(fast_cases).equals(reference)


@settings(max_examples=300, deadline=None)
@given(pieces=JUNK, bom=st.booleans())
def test_on_any_text_the_reader_refuses_or_reads_exactly_as_the_standard_library(tmp_path_factory, pieces, bom):
    raw = (b"\xef\xbb\xbf" if bom else b"") + "".join(pieces).encode("utf-8")
    path = tmp_path_factory.mktemp("junk") / "c.csv"
    path.write_bytes(raw)
    expected = outcome(stdlib_rows, raw)
    if expected[0] == "rows":
        expected = ("rows", [csv_case_row(r) for r in expected[1]])
    assert outcome(read_case_rows, path) == expected
    fast = arrow_csv_rows(raw, CSV_CASE_COLUMNS)
    assert fast is None or ("rows", [csv_case_row(r) for r in fast]) == expected


def test_the_fast_path_is_taken_for_quoted_cells_embedded_newlines_a_bom_and_empty_cells():
    raw = ("\ufeff" + HEADER + '\r\n"a,1","x;\r\ny",,"k ""q"""\n\nb,, 1.0,\n').encode("utf-8")
    rows = arrow_csv_rows(raw, CSV_CASE_COLUMNS)
    assert rows == stdlib_rows(raw)
    assert rows[0] == {"case_id": "a,1", "candidate_ids": "x;\r\ny", "requested_version": "", "claim_key": 'k "q"'}


def test_a_quote_followed_by_text_is_left_to_the_standard_library_which_refuses_it(tmp_path):
    raw = (HEADER + '\n"a"b,x,1.0,k\n').encode()
    assert arrow_csv_rows(raw, CSV_CASE_COLUMNS) is None  # Arrow alone would read "ab"
    path = tmp_path / "c.csv"
    path.write_bytes(raw)
    with pytest.raises(IngestionError) as caught:
        read_case_rows(path)
    assert caught.value.detail == "c.csv line 2: ',' expected after '\"'"


def test_a_header_naming_a_column_twice_is_read_by_the_standard_library_last_value_winning():
    raw = (HEADER + ",claim_key\na,x,1.0,first,last\n").encode()
    assert arrow_csv_rows(raw, CSV_CASE_COLUMNS) is None
    assert stdlib_rows(raw)[0]["claim_key"] == "last"


def test_a_cell_beyond_the_field_size_limit_is_refused_as_the_standard_library_refuses_it(tmp_path):
    previous = csv.field_size_limit(20)
    try:
        raw = (HEADER + "\na,x,1.0,a_claim_key_of_thirty_characters\n").encode()
        assert arrow_csv_rows(raw, CSV_CASE_COLUMNS) is None
        path = tmp_path / "c.csv"
        path.write_bytes(raw)
        with pytest.raises(IngestionError) as caught:
            read_case_rows(path)
        assert caught.value.detail.startswith("c.csv line 2: field larger than field limit")
    finally:
        csv.field_size_limit(previous)


@pytest.mark.parametrize(
    "body, line",
    [
        ("a,x,1.0\n", 2),  # too few fields
        ("a,x,1.0,k\nb,x,1.0,k,extra\n", 3),  # too many
        ('a,"x\n\n,1.0,k\nb,"y,1.0,k\n', 5),  # an unclosed quote after a multi-line cell
    ],
)
def test_refusals_keep_the_standard_library_line_numbers(tmp_path, body, line):
    path = tmp_path / "c.csv"
    path.write_bytes((HEADER + "\n" + body).encode())
    with pytest.raises(IngestionError) as caught:
        read_case_rows(path)
    assert caught.value.detail.startswith(f"c.csv line {line}: ")
    assert outcome(stdlib_rows, path.read_bytes())[2] == caught.value.detail


def test_whitespace_only_lines_arrow_rejects_are_skipped_as_the_standard_library_skips_them(tmp_path):
    path = tmp_path / "c.csv"
    path.write_bytes((" \n" + HEADER + "\n  \na,x,1.0,k\n").encode())
    assert arrow_csv_rows(path.read_bytes(), CSV_CASE_COLUMNS) is None
    assert read_case_rows(path) == [
        {"case_id": "a", "candidate_ids": ["x"], "requested_version": "1.0", "claim_key": "k"}
    ]


def _streamed(path, chunk_rows):
    import pandas as pd
    from claimgate.io.case_stream import CaseChunks

    return pd.concat(list(CaseChunks(path, chunk_rows)), ignore_index=True)


@settings(max_examples=150, deadline=None)
@given(raw=csv_tables() | JUNK.map(lambda p: "".join(p).encode()), chunk_rows=st.integers(1, 3))
def test_a_streamed_table_read_by_arrow_gives_the_whole_read_frame_or_its_refusal(
    tmp_path_factory, monkeypatch_module, raw, chunk_rows
):
    path = tmp_path_factory.mktemp("stream") / "c.csv"
    path.write_bytes(raw.replace(b'"', b"") if chunk_rows == 1 else raw)  # quote-free tables go to Arrow
    whole = outcome(lambda p: case_table_frame([csv_case_row(r) for r in stdlib_rows(p.read_bytes())]), path)
    streamed = outcome(_streamed, path, chunk_rows)
    assert streamed[0] == whole[0]
    if whole[0] == "rows":
        assert streamed[1].equals(whole[1])
    else:
        assert streamed == whole


def test_a_large_quote_free_table_is_streamed_by_arrow(tmp_path, monkeypatch_module):
    from claimgate.io import case_stream

    path = tmp_path / "c.csv"
    path.write_bytes((HEADER + "\n" + "".join(f"c{i},x;y,1.0,k\n" for i in range(7)) + "c3,x,1.0,k\n").encode())
    chunks = case_stream.CaseChunks(path, 3)
    assert chunks._arrow
    frame = _streamed(path, 3)
    assert frame.equals(case_table_frame([csv_case_row(r) for r in stdlib_rows(path.read_bytes())]))
    assert frame["case_problem"].iloc[-1] == "case_id 'c3' repeats an earlier row"


@pytest.fixture(scope="module")
def monkeypatch_module():
    """Every table streamed in chunks here, however small (not read whole, as tables up to 8 MiB are)."""
    from claimgate.io import case_stream

    patch = pytest.MonkeyPatch()
    patch.setattr(case_stream, "WHOLE_READ_BYTES", 0)
    yield patch
    patch.undo()


@pytest.mark.parametrize(
    "cell, ids",
    [
        ("a;b", ["a", "b"]),
        (" a ; b ", ["a", "b"]),
        ("a;;b", ["a", "", "b"]),
        ("  ", []),
        ("", []),
        ("\x1ca\x1f", ["a"]),  # white space to Python's str.strip, ASCII
        ("\u3000a;é", ["a", "é"]),  # not ASCII: split by Python
    ],
)
def test_candidate_ids_split_by_arrow_as_the_standard_library_splits_them(cell, ids):
    raw = f'{HEADER},operation\n"x","{cell}",1.0,k,\n'.encode()
    (row,) = arrow_csv_rows(raw, CSV_CASE_COLUMNS, case_rows=True)
    assert (
        row
        == csv_case_row(stdlib_rows(raw)[0])
        == {
            "case_id": "x",
            "candidate_ids": ids,
            "requested_version": "1.0",
            "claim_key": "k",
        }
    )
