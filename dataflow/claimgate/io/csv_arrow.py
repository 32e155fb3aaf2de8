"""The fast path of the CSV table reader: ``pyarrow.csv``, used only where it gives exactly the standard library's rows.

Why: reading a case table of a million rows with ``csv.reader`` takes seconds; Arrow's
C++ parser reads it several times faster (``benchmarks/csv_read.py`` prints both).
What it must keep: ``tables.iter_csv_rows`` is the rule (docs/gate-rules.md, "Case
tables"): its rows, and its refusals with their 1-based physical line numbers. So this
module never refuses anything. ``arrow_csv_rows`` returns the rows when it can vouch
that ``iter_csv_rows`` would return the same ones, and ``None`` otherwise; the caller
then reads the text with the standard library, which either refuses it (explaining
where and why) or reads the rows that Arrow was stricter about.

Arrow is not asked when it could disagree:

- a quote that closes a quoted cell and is followed by anything but ``,`` or a line end
  (``"x"y``): the standard library refuses it in strict mode, Arrow reads ``xy``. A
  text holding ``"`` is first checked against ``STRICT_CSV`` (the strict grammar:
  a cell is ``"..."`` with ``""`` for a quote, or does not begin with a quote);
- a header naming a column twice (Arrow keeps the first value, ``dict(zip(...))`` the last);
- a cell or column name at least ``csv.field_size_limit()`` characters long (the
  standard library refuses it);
- a second byte-order mark, a header without the required columns, a row with the
  wrong number of fields, blank lines of spaces, a quoted empty line: Arrow raises or
  the header check fails, and the standard library decides.
"""

from __future__ import annotations

import csv
import gc
import re
from collections.abc import Iterator
from pathlib import Path

from claimgate.runtime.rows_ahead import arrow_threads_recorded

#: The strict CSV grammar of ``csv.reader(strict=True)`` with ``,`` and ``"``, as bytes: records of
#: cells separated by ``,``, ending at ``\\r\\n``, ``\\n`` or ``\\r``; a quoted cell may hold anything with
#: ``""`` for a quote and must be followed by ``,`` or a line end. Possessive, so a text that does not
#: match fails in linear time.
_CELL = rb'(?>"(?:[^"]|"")*+"|[^,"\r\n][^,\r\n]*+|)'
STRICT_CSV = re.compile(
    rb"(?:" + _CELL + rb"(?:," + _CELL + rb")*+(?:\r\n|\n|\r))*+" + _CELL + rb"(?:," + _CELL + rb")*+"
)
_BOM = b"\xef\xbb\xbf"


def strict_quotes(raw: bytes) -> bool:
    """Whether the quotes of ``raw`` (a UTF-8 table without its byte-order mark) follow the strict grammar."""
    return b'"' not in raw or STRICT_CSV.fullmatch(raw) is not None


def _names(source, parse_options) -> list[str]:
    """The header's column names as Arrow reads them (the first non-empty line) from a buffer or a path."""
    import pyarrow.csv as pacsv

    reader = pacsv.open_csv(source, parse_options=parse_options, read_options=pacsv.ReadOptions(block_size=1 << 16))
    return list(reader.schema.names)


def _parse_options():
    import pyarrow.csv as pacsv

    return pacsv.ParseOptions(
        delimiter=",",
        quote_char='"',
        double_quote=True,
        escape_char=False,
        newlines_in_values=True,
        ignore_empty_lines=True,
    )


def _convert_options(names: list[str]):
    """Every column a string, an empty cell ``""`` (never null), no value read as null."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    return pacsv.ConvertOptions(
        column_types={name: pa.string() for name in names},
        strings_can_be_null=False,
        quoted_strings_can_be_null=False,
        null_values=[],
        check_utf8=True,
    )


def _too_long(table, names: list[str]) -> bool:
    """Whether a cell or a name reaches the standard library's field size limit (characters)."""
    import pyarrow.compute as pc

    limit = csv.field_size_limit()
    if any(len(name) >= limit for name in names):
        return True
    for column in table.columns:
        if len(column) and pc.max(pc.utf8_length(column)).as_py() >= limit:
            return True
    return False


def arrow_csv_rows(raw: bytes, required: tuple[str, ...], case_rows: bool = False) -> list[dict] | None:
    """Rows of a comma-separated UTF-8 table (``raw``, its bytes as read, one byte-order mark allowed) by Arrow.

    Each row is a dict ``{column: cell}`` in header order, every cell a ``str``, as
    ``tables.iter_csv_rows`` gives them; ``None`` when Arrow cannot vouch for that
    (see the module docstring), and never an exception for a bad table: the caller reads
    it with the standard library then. ``raw`` must already be known to be UTF-8. With
    ``case_rows`` each row is made a case row as ``tables.csv_case_row`` makes it.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    body = raw[len(_BOM) :] if raw.startswith(_BOM) else raw
    if body.startswith(_BOM) or not strict_quotes(body):
        return None
    options = _parse_options()
    try:
        with arrow_threads_recorded():  # Arrow's pools start here; they survive a fork (runtime.rows_ahead)
            names = _names(pa.py_buffer(raw), options)
            if len(set(names)) != len(names) or any(name not in names for name in required):
                return None
            table = pacsv.read_csv(
                pa.py_buffer(raw),
                parse_options=options,
                convert_options=_convert_options(names),
                read_options=pacsv.ReadOptions(use_threads=True),
            )
    except (pa.ArrowInvalid, pa.ArrowKeyError, ValueError):
        return None
    if table.column_names != names or _too_long(table, names):
        return None
    return _rows(table, names, case_rows)


#: What ``str.strip()`` removes from ASCII text (``\x1c``-``\x1f`` are white space to Python too).
_ASCII_SPACE = " \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def _candidate_lists(column) -> list:
    """``candidate_ids`` cells as ``tables.csv_case_row`` splits them: on ``;``, each id stripped, blank: ``[]``.

    Done by Arrow for an ASCII column (whose white space ``_ASCII_SPACE`` spells exactly);
    a column with other characters is split by Python, cell by cell, as ``csv_case_row`` does.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    column = column.combine_chunks() if isinstance(column, pa.ChunkedArray) else column
    if len(column) == 0 or not pc.all(pc.string_is_ascii(column)).as_py():
        return [[part.strip() for part in cell.split(";")] if cell.strip() != "" else [] for cell in column.to_pylist()]
    parts = pc.split_pattern(column, ";")
    ids = pa.ListArray.from_arrays(parts.offsets, pc.utf8_trim(parts.flatten(), _ASCII_SPACE)).to_pylist()
    blank = pc.equal(pc.utf8_trim(column, _ASCII_SPACE), "").to_pylist()
    return [[] if empty else cell for empty, cell in zip(blank, ids)]


def _rows(table, names: list[str], case_rows: bool) -> list[dict]:
    """Row dicts of an Arrow table; ``case_rows``: made as ``tables.csv_case_row`` makes them.

    The cyclic garbage collector is paused meanwhile: these are millions of new, acyclic
    lists and dicts, and the collections their count triggers took most of the time.
    """
    paused = gc.isenabled()
    gc.disable()
    try:
        return _row_dicts(table, names, case_rows)
    finally:
        if paused:
            gc.enable()


def _row_dicts(table, names: list[str], case_rows: bool) -> list[dict]:
    columns = [
        _candidate_lists(column) if case_rows and name == "candidate_ids" else column.to_pylist()
        for name, column in zip(names, table.columns)
    ]
    rows = [dict(zip(names, values)) for values in zip(*columns)]
    if case_rows and "operation" in names:
        for row in rows:
            if row["operation"] == "":
                del row["operation"]
    return rows


class NotVouched(Exception):
    """Arrow cannot vouch for the standard library's rows of a streamed table: read it with the standard library."""


def _stream_vouchable(path: Path) -> bool:
    """Whether a streamed table may go to Arrow: no ``"`` anywhere (quotes are not checked in blocks), one BOM."""
    with open(path, "rb") as handle:
        head = handle.read(2 * len(_BOM))
        if head.startswith(_BOM + _BOM) or b'"' in head:
            return False
        while block := handle.read(1 << 20):
            if b'"' in block:
                return False
    return True


def arrow_csv_stream(
    path: Path, required: tuple[str, ...], case_rows: bool = False, block_bytes: int = 1 << 22
) -> Iterator[dict]:
    """Rows of a large comma-separated table read by Arrow in blocks, as ``arrow_csv_rows`` gives them.

    For ``io.case_stream``: a table holding ``"`` is not streamed by Arrow (a quote cannot
    be checked against ``STRICT_CSV`` block by block). Raises ``NotVouched`` (before or
    while rows are yielded) wherever ``arrow_csv_rows`` would return ``None``; the caller
    then reads the whole table again with the standard library. ``path`` must already be
    known to be UTF-8.
    """
    import pyarrow as pa
    import pyarrow.csv as pacsv

    if not _stream_vouchable(path):
        raise NotVouched(str(path))
    options = _parse_options()
    try:
        names = _names(str(path), options)
        if len(set(names)) != len(names) or any(name not in names for name in required):
            raise NotVouched(str(path))
        reader = pacsv.open_csv(
            str(path),
            parse_options=options,
            convert_options=_convert_options(names),
            read_options=pacsv.ReadOptions(block_size=block_bytes),
        )
        for batch in reader:
            if batch.schema.names != names or _too_long(batch, names):
                raise NotVouched(str(path))
            yield from _rows(batch, names, case_rows)
    except (pa.ArrowInvalid, pa.ArrowKeyError, ValueError):
        raise NotVouched(str(path)) from None
