"""Reading a case table in consecutive chunks, with the same rows, checks and refusals as a whole read.

Why: a table of millions of cases does not fit in memory as raw rows, frames and
results at once. ``CaseChunks`` yields the table as ``tables.case_table_frame``
frames of at most ``chunk_rows`` rows, in table order, positions continuing from
chunk to chunk, so the gate can decide and write one chunk at a time.

What it keeps equal to ``tables.read_case_rows`` + ``tables.case_table_frame`` (tested):

- the same rows read by ``pyarrow.csv`` where it can vouch for them (``io.csv_arrow``: a
  ``.csv`` without quotes), else by the standard library;
- the same refusals, in the same order: a file that is absent, unreadable or not
  UTF-8 anywhere is refused before any row is parsed (the whole file is decoded
  once first, as the whole read decodes before parsing); then the first line that is
  not JSON, or the first bad CSV line, is refused before any chunk is returned;
- the same lines (JSONL: ``\\n`` ends a line, one ``\\r`` before it is dropped, also when
  the two fall in different blocks; CSV: the physical lines of ``tables.iter_csv_rows``)
  and the same decoded values (``tables.iter_jsonl_rows``, ``tables.iter_csv_rows``);
- the same ``case_problem`` for a repeated ``case_id`` anywhere in the table.

Repeated case ids are found exactly with memory that does not hold every id: a
first pass records each id's 64-bit ``hash`` (8 bytes per row, in a NumPy array);
only ids whose hash occurs more than once are kept as strings while chunks are made.
A table that fits in one chunk, or of at most ``WHOLE_READ_BYTES``, is read once,
without that pass.

``.jsonl`` and ``.csv`` are streamed; a ``.json`` list and ``.parquet`` are read whole
(one JSON document, one Parquet file) and then cut into chunks, so their memory grows
with the table.
"""

from __future__ import annotations

import codecs
import io
import os
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pandas as pd

from claimgate.errors import IngestionError
from claimgate.io.csv_arrow import NotVouched, arrow_csv_stream
from claimgate.io.files import NotRegularFileError, open_regular, read_utf8_text
from claimgate.io.tables import (
    CSV_CASE_COLUMNS,
    case_table_frame,
    csv_case_row,
    iter_csv_rows,
    iter_jsonl_rows,
    physical_lines,
    read_case_rows,
)

REASON = "invalid_case_table"
BLOCK_BYTES = 1 << 20  # read 1 MiB at a time
#: A ``.jsonl``/``.csv`` table up to this size is read whole, once (its raw rows take about 60 MB at
#: most); a larger one is read in chunks, after a first pass over its case ids.
WHOLE_READ_BYTES = 8 << 20


def _open_binary(path: Path) -> io.BufferedReader:
    """The table opened for reading as the whole read opens it (a regular file, without blocking).

    On any refusal the whole read (``files.read_utf8_text``) is repeated to raise
    exactly its ``IngestionError`` (absent, not a regular file, unreadable).
    """
    try:
        fd, _ = open_regular(path)
    except (OSError, NotRegularFileError):
        read_utf8_text(path, REASON, "table")
        raise IngestionError(REASON, f"cannot read {path}") from None  # the file changed meanwhile
    return os.fdopen(fd, "rb")


def _decoded_blocks(path: Path) -> Iterator[tuple[str, bool]]:
    """``(text, last)`` blocks of the file, decoded as ``utf-8-sig`` (one leading byte-order mark dropped).

    On a decoding or read error the whole read is repeated to raise exactly its
    ``IngestionError`` (an error path only: it reads the whole file).
    """
    decoder = codecs.getincrementaldecoder("utf-8-sig")()
    with _open_binary(path) as handle:
        try:
            while True:
                block = handle.read(BLOCK_BYTES)
                yield decoder.decode(block, final=not block), not block
                if not block:
                    return
        except (UnicodeDecodeError, OSError):
            pass
    read_utf8_text(path, REASON, "table")
    raise IngestionError(REASON, f"cannot read {path}")  # the file changed while it was read


def check_utf8(path: Path) -> None:
    """Raise the whole read's ``IngestionError`` if ``path`` is absent, not a regular file or not UTF-8."""
    for _ in _decoded_blocks(path):
        pass


def jsonl_lines(path: Path) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of the decoded file as ``tables._jsonl_lines`` gives them for the whole text.

    Lines end at ``\\n`` only; one trailing ``\\r`` is dropped; the text after the last
    ``\\n`` is a line too (empty when the file ends with one). Line numbers are 1-based.
    """
    carry = ""
    number = 0
    for block, last_block in _decoded_blocks(path):
        pieces = (carry + block).split("\n")
        carry = pieces.pop() if not last_block else ""
        for line in pieces:
            number += 1
            yield number, line[:-1] if line.endswith("\r") else line


def _text_stream(path: Path) -> io.TextIOWrapper:
    """A text stream for the CSV reader: ``utf-8-sig``, no newline translation (as ``StringIO(text, newline="")``)."""
    return io.TextIOWrapper(_open_binary(path), encoding="utf-8-sig", newline="")


def case_rows_stream(path: Path) -> Iterator[object]:
    """Raw case rows of a ``.jsonl`` or ``.csv`` table, read lazily (after ``check_utf8``)."""
    if path.suffix.lower() == ".jsonl":
        yield from iter_jsonl_rows(jsonl_lines(path), path.name, REASON)
        return
    with _text_stream(path) as stream:
        for row in iter_csv_rows(physical_lines(stream), path.name, REASON, CSV_CASE_COLUMNS):
            yield csv_case_row(row)


class _HashedIds:
    """A container of case ids known by their 64-bit hashes (``hash(case_id) in self``)."""

    def __init__(self, hashes: set[int]) -> None:
        self.hashes = hashes

    def __contains__(self, case_id: object) -> bool:
        return hash(case_id) in self.hashes


def _repeated_hashes(rows: Iterator[object]) -> _HashedIds:
    """Hashes of the string case ids that occur in more than one row (one pass, 8 bytes per row)."""
    hashes: list[np.ndarray] = []
    block: list[int] = []
    for row in rows:
        case_id = row.get("case_id") if isinstance(row, dict) else None
        if isinstance(case_id, str):
            block.append(hash(case_id))
            if len(block) == 65_536:
                hashes.append(np.array(block, dtype=np.int64))
                block = []
    hashes.append(np.array(block, dtype=np.int64))
    values, counts = np.unique(np.concatenate(hashes), return_counts=True)
    return _HashedIds(set(values[counts > 1].tolist()))


class CaseChunks:
    """A case table as consecutive ``case_table_frame`` chunks of at most ``chunk_rows`` rows.

    Constructing it reads and checks the table (so a refused table is refused here,
    before anything else is loaded): ``IngestionError`` ``invalid_case_table`` as
    ``tables.read_case_rows`` raises it. Iterating yields the chunks (at least one,
    maybe empty); it can be iterated more than once. ``ValueError`` when
    ``chunk_rows`` < 1.
    """

    def __init__(self, cases_path: str | Path, chunk_rows: int) -> None:
        if chunk_rows < 1:
            raise ValueError("chunk_rows must be at least 1")
        self.path = Path(cases_path)
        self.chunk_rows = chunk_rows
        self.streamed = self.path.suffix.lower() in (".jsonl", ".csv")
        self._whole: list | None = None
        self._remembered: _HashedIds | None = None
        self._arrow = False
        if not self.streamed:
            self._whole = read_case_rows(self.path)  # .json / .parquet / unknown: the whole read and its errors
            return
        if self.path.is_file() and self.path.stat().st_size <= WHOLE_READ_BYTES:
            self._whole = read_case_rows(self.path)  # small: one read, its rows held (tens of MB at most)
            return
        check_utf8(self.path)
        self._arrow = self.path.suffix.lower() == ".csv"  # Arrow first; the standard library if it cannot vouch
        try:
            self._first_pass(chunk_rows)
        except NotVouched:
            self._arrow = False
            self._first_pass(chunk_rows)

    def _rows(self) -> Iterator[object]:
        """The table's raw rows, lazily: Arrow's blocks (``csv_arrow.arrow_csv_stream``) or ``case_rows_stream``."""
        if not self._arrow:
            return case_rows_stream(self.path)
        return arrow_csv_stream(self.path, CSV_CASE_COLUMNS, case_rows=True)

    def _first_pass(self, chunk_rows: int) -> None:
        """Keep the first chunk if it is the whole table; else record the repeated ids over every row."""
        first = []
        for row in self._rows():
            if len(first) == chunk_rows:  # more than one chunk: a pass over every row finds repeated ids
                self._remembered = _repeated_hashes(self._rows())
                return
            first.append(row)
        self._whole = first  # the whole table fits in one chunk and is kept

    def __iter__(self) -> Iterator[pd.DataFrame]:
        if self._whole is not None:
            rows = self._whole
            seen: set[str] = set()
            for start in range(0, max(len(rows), 1), self.chunk_rows):
                yield case_table_frame(rows[start : start + self.chunk_rows], start, seen)
            return
        seen = set()
        chunk: list = []
        position = 0
        rows = self._rows()
        while True:
            try:
                row = next(rows)
            except StopIteration:
                break
            except NotVouched:  # Arrow read every row in the first pass: the file changed since
                raise IngestionError(REASON, f"cannot read {self.path}: the file changed while it was read") from None
            chunk.append(row)
            if len(chunk) == self.chunk_rows:
                yield case_table_frame(chunk, position, seen, self._remembered)
                position += len(chunk)
                chunk = []
        if chunk or position == 0:
            yield case_table_frame(chunk, position, seen, self._remembered)
