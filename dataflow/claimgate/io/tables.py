"""Reading case and citation tables (I/O helpers of the loading modules); result files are ``io.writers``.

Formats are chosen by file extension. A table that cannot be parsed at all is
refused whole (``IngestionError`` ``invalid_case_table`` / ``invalid_citation_table``,
naming the line where there is one); a single bad row is kept as it is and refused
on its own later, so the rest of the batch goes on (docs/gate-rules.md, "Case tables").
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Container, Iterable, Iterator
from pathlib import Path

import pandas as pd

from claimgate.errors import IngestionError
from claimgate.io.csv_arrow import arrow_csv_rows
from claimgate.io.files import NotRegularFileError, read_regular_bytes, read_utf8_text
from claimgate.io.json_text import MAX_ROW_NESTING, loads_json, loads_json_row, nesting_depth, repeated_key
from claimgate.runtime.rows_ahead import arrow_threads_recorded

CASE_TABLE_FORMATS = (".json", ".jsonl", ".csv", ".parquet")


def _jsonl_lines(text: str) -> Iterator[tuple[int, str]]:
    """``(line number, line)`` of a JSON Lines text: split on ``\\n`` only, one trailing ``\\r`` dropped.

    Not ``str.splitlines``: that also splits at U+2028, U+2029, U+0085 and other
    characters that JSON allows raw inside strings (``json.dumps(..., ensure_ascii=False)``
    writes them so), which would cut a valid row in two. Line numbers are 1-based.
    """
    for number, line in enumerate(text.split("\n"), start=1):
        yield number, line[:-1] if line.endswith("\r") else line


def iter_jsonl_rows(lines: Iterable[tuple[int, str]], name: str, reason: str) -> Iterator[object]:
    """Decoded rows of numbered JSONL ``lines`` (as ``_jsonl_lines`` gives them); whitespace-only lines skipped.

    Raises ``IngestionError`` ``reason`` naming the 1-based line of the first line that
    does not parse. Shared by the whole read and the chunked read (``io.case_stream``).
    """
    for number, line in lines:
        if not line.strip():
            continue
        try:
            yield loads_json_row(line)
        except json.JSONDecodeError as exc:
            raise IngestionError(reason, f"{name} line {number}: {exc.msg}") from None


def _read_json_rows(path: Path, reason: str) -> list:
    """Rows of a JSON list or JSONL file, each the raw decoded value.

    JSONL: one value per ``\\n``-separated line (``\\r\\n`` too); whitespace-only lines are
    skipped. Raises ``IngestionError`` ``reason`` naming the 1-based line that does not parse
    (``NaN``, ``Infinity`` and numbers beyond a double are not JSON), the row nested more
    than ``json_text.MAX_ROW_NESTING`` levels deep, or the line where an object names a key
    twice.
    """
    text = read_utf8_text(path, reason, "table")
    if path.suffix.lower() == ".jsonl":
        return list(iter_jsonl_rows(_jsonl_lines(text), path.name, reason))
    try:
        document = loads_json(text)
    except json.JSONDecodeError as exc:
        raise IngestionError(reason, f"{path.name} line {exc.lineno}: {exc.msg}") from None
    if not isinstance(document, list):
        raise IngestionError(reason, f"{path.name}: expected a JSON list of objects")
    if text.count("[") + text.count("{") > MAX_ROW_NESTING:  # else no row can be nested that deep
        for number, row in enumerate(document, start=1):
            depth = nesting_depth(row)
            if depth > MAX_ROW_NESTING:
                raise IngestionError(
                    reason, f"{path.name} row {number}: nested {depth} levels deep (at most {MAX_ROW_NESTING})"
                )
    repeated = repeated_key(document, text)
    if repeated:
        line = text.count("\n", 0, repeated[1]) + 1
        raise IngestionError(reason, f"{path.name} line {line}: {repeated[0]}")
    return document


class _PhysicalLines:
    """An iterator over the physical lines of a text that counts them (1-based) as the CSV reader pulls them.

    ``csv.reader.line_num`` is one short on the line where a parse error happens;
    counting here gives the physical line the reader was on, also inside a cell that
    spans lines.
    """

    def __init__(self, stream: Iterable[str]) -> None:
        # A text stream opened with newline="": \\n, \\r\\n and \\r end lines, kept as written.
        self._lines = iter(stream)
        self.number = 0

    def __iter__(self) -> _PhysicalLines:
        return self

    def __next__(self) -> str:
        line = next(self._lines)
        self.number += 1
        return line


#: Delimiters of spreadsheet exports that a comma-only reader would see as one column.
_OTHER_DELIMITERS = {";": "';'", "\t": "tab", "|": "'|'"}


def header_problem(header: list[str] | None, required: tuple[str, ...]) -> str | None:
    """Why a CSV header lacks ``required`` columns, with what was found and a hint; ``None`` when it has them.

    claimgate reads comma-separated CSV only and never guesses the delimiter: a
    ``candidate_ids`` cell holds ``;``-separated ids, so a ``;``-separated export and a
    comma-separated one with ids are not told apart safely by sniffing (see README,
    "Running your own manifest and case table"). Instead the message shows the header
    found and names the delimiter it seems to use, or the column whose case or
    surrounding spaces differ.
    """
    found = header or []
    missing = [c for c in required if c not in found]
    if not missing:
        return None
    shown = repr(found) if len(repr(found)) <= 200 else repr(found)[:197] + "..."
    message = f"header lacks {', '.join(missing)}; found header: {shown}"
    hints = []
    if len(found) == 1:
        for delimiter, name in _OTHER_DELIMITERS.items():
            if delimiter in found[0]:
                hints.append(f"the file looks {name}-separated; export it with ',' as the delimiter")
                break
    loose = {c.strip().casefold(): c for c in found}
    for name in missing:
        near = loose.get(name)
        if near is not None:
            hints.append(f"column names are exact: {near!r} should be {name!r}")
    return "; ".join([message, *hints])


def _blank_record(record: list[str]) -> bool:
    """An empty or whitespace-only line (no delimiter on it): no row at all."""
    return not record or (len(record) == 1 and not record[0].strip())


def iter_csv_rows(lines: _PhysicalLines, name: str, reason: str, required: tuple[str, ...]) -> Iterator[dict]:
    """Rows of comma-separated physical ``lines`` with a header, every cell a string.

    Empty and whitespace-only lines are skipped. Line numbers in refusals are physical
    lines, 1-based, the header's line counting (a quoted cell may span lines). Raises
    ``IngestionError`` ``reason``: a header without ``required`` (``header_problem``), a
    row with the wrong number of fields, a broken quote. Shared by the whole read and
    the chunked read (``io.case_stream``).
    """
    reader = csv.reader(lines, strict=True)
    header: list[str] | None = None
    try:
        for record in reader:
            if _blank_record(record):
                continue
            if header is None:
                problem = header_problem(record, required)
                if problem:
                    raise IngestionError(reason, f"{name} line {lines.number}: {problem}")
                header = record
                continue
            if len(record) != len(header):  # lines.number: the physical line the row ended on
                raise IngestionError(reason, f"{name} line {lines.number}: wrong number of fields")
            yield dict(zip(header, record))
    except csv.Error as exc:
        raise IngestionError(reason, f"{name} line {lines.number}: {exc}") from None
    if header is None:
        raise IngestionError(reason, f"{name}: {header_problem(None, required)} (the file has no header line)")


def physical_lines(stream: Iterable[str]) -> _PhysicalLines:
    """The physical lines of a text stream opened with ``newline=""``, counted as the CSV reader pulls them."""
    return _PhysicalLines(stream)


def _read_csv_rows(path: Path, reason: str, required: tuple[str, ...], case_rows: bool = False) -> list[dict]:
    """Rows of a comma-separated file with a header, every cell a string, as ``iter_csv_rows`` reads them.

    ``pyarrow.csv`` reads them when it can vouch for the same rows (``io.csv_arrow``);
    otherwise, and to explain every refusal with its line, the standard library does.
    The file's own refusals (absent, not a regular file, not UTF-8) are ``read_utf8_text``'s.
    With ``case_rows`` every row is made a request by ``csv_case_row``.
    """
    try:
        raw = read_regular_bytes(path)[0]
        text = raw.decode("utf-8-sig")
    except (OSError, NotRegularFileError, UnicodeDecodeError):
        raw, text = None, read_utf8_text(path, reason, "table")  # raises its refusal
    rows = arrow_csv_rows(raw, required, case_rows) if raw is not None else None
    if rows is not None:
        return rows
    rows = iter_csv_rows(_PhysicalLines(io.StringIO(text, newline="")), path.name, reason, required)
    return [csv_case_row(row) for row in rows] if case_rows else list(rows)


def _read_parquet_rows(path: Path, reason: str) -> list[dict]:
    """Rows of a Parquet file as plain Python objects (lists stay lists); opened without blocking."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        raw, _ = read_regular_bytes(path)
    except FileNotFoundError:
        raise IngestionError(reason, f"not found: {path}") from None
    except NotRegularFileError:
        raise IngestionError(reason, f"table is not a regular file: {path}") from None
    except OSError as exc:
        raise IngestionError(reason, f"cannot read {path}: {exc.strerror or exc}") from None
    try:
        with arrow_threads_recorded():  # Arrow's pools start here; they survive a fork (runtime.rows_ahead)
            table = pq.read_table(pa.BufferReader(raw))
    except Exception as exc:  # pyarrow raises several types for a broken file
        raise IngestionError(reason, f"{path.name}: {exc}") from None
    return table.to_pylist()


CSV_CASE_COLUMNS = ("case_id", "candidate_ids", "requested_version", "claim_key")


def csv_case_row(row: dict) -> dict:
    """A CSV row as a request: ``candidate_ids`` split on ``;`` and stripped (blank: ``[]``), no empty ``operation``."""
    cell = row["candidate_ids"]
    # "a; b" is two ids: white space around each id is the separator's, not the id's.
    row["candidate_ids"] = [part.strip() for part in cell.split(";")] if cell.strip() != "" else []
    if row.get("operation", None) == "":
        del row["operation"]
    return row


def read_case_rows(cases_path: str | Path) -> list:
    """Raw rows of a case table (``.json`` list, ``.jsonl``, ``.csv`` or ``.parquet``).

    CSV cells are strings and stay strings (a ``requested_version`` of ``1.10`` is the
    text ``1.10``, never a number): ``candidate_ids`` is split on ``;`` with white space
    around each id removed (an empty cell is an empty list; an empty id between two
    ``;`` stays empty and is refused as ``invalid_candidate_ids``) and an empty
    ``operation`` cell means none was given. JSON, JSONL and Parquet values keep the
    type they were written with; a number where a version belongs is refused later,
    naming its type (docs/gate-rules.md, "Versions"). Raises
    ``IngestionError`` ``invalid_case_table`` for an unknown extension or a file
    that cannot be parsed.
    """
    path = Path(cases_path)
    suffix = path.suffix.lower()
    reason = "invalid_case_table"
    if suffix in (".json", ".jsonl"):
        return _read_json_rows(path, reason)
    if suffix == ".csv":
        return _read_csv_rows(path, reason, CSV_CASE_COLUMNS, case_rows=True)
    if suffix == ".parquet":
        return _read_parquet_rows(path, reason)
    raise IngestionError(reason, f"{path.name}: unknown format (use {', '.join(CASE_TABLE_FORMATS)})")


def case_table_frame(
    rows: list, first_position: int = 0, seen: set[str] | None = None, remembered: Container[str] | None = None
) -> pd.DataFrame:
    """Frame of raw case rows, with the checks that need the whole table.

    Columns: ``position`` (int64, 0-based row number), ``case_id`` (object: the
    row's ``case_id`` or None), ``request`` (object: the raw row) and ``case_problem``
    (str: ``""`` or why the row is ``invalid_case``: its ``case_id`` is not a non-empty
    string, or repeats an earlier row's). Duplicates are found over the whole table
    here, so a partitioned run refuses exactly the rows a whole run does.

    For a table read in consecutive chunks (``io.case_stream``): ``first_position`` is
    the position of ``rows[0]``, ``seen`` the case ids of earlier chunks (updated in
    place), and ``remembered`` the ids worth adding to ``seen`` (those that occur more
    than once in the table; default: every id).
    """
    case_ids: list = []
    problems: list[str] = []
    seen = set() if seen is None else seen
    for row in rows:
        case_id = row.get("case_id") if isinstance(row, dict) else None
        problem = ""
        if not isinstance(row, dict):
            problem = f"case row is a {type(row).__name__}, not an object"
        elif not (isinstance(case_id, str) and case_id):
            problem = "case_id must be a non-empty string"
        elif case_id in seen:
            problem = f"case_id {case_id!r} repeats an earlier row"
        if isinstance(case_id, str) and (remembered is None or case_id in remembered):
            seen.add(case_id)
        case_ids.append(case_id if isinstance(case_id, str) and case_id else None)
        problems.append(problem)
    positions = range(first_position, first_position + len(rows))
    frame = pd.DataFrame({"position": positions, "case_id": pd.Series(case_ids, dtype=object)})
    frame["request"] = pd.Series(rows, dtype=object) if rows else pd.Series([], dtype=object)
    frame["case_problem"] = pd.Series(problems, dtype="str")
    return frame.astype({"position": "int64"})


CITATION_FIELDS = ("citation_id", "claim", "doc_id", "quote")
CITATION_FORMATS = (".jsonl", ".json", ".csv")


def read_citation_rows(citations_path: str | Path) -> list:
    """Raw rows of a citation file (``.jsonl``, ``.json`` list or ``.csv`` with a header).

    Raises ``IngestionError`` ``invalid_citation_table`` for an unknown extension or
    a file that cannot be parsed (naming the line where there is one).
    """
    path = Path(citations_path)
    suffix = path.suffix.lower()
    reason = "invalid_citation_table"
    if suffix in (".json", ".jsonl"):
        return _read_json_rows(path, reason)
    if suffix == ".csv":
        return _read_csv_rows(path, reason, ("citation_id", "doc_id", "quote"))
    raise IngestionError(reason, f"{path.name}: unknown format (use {', '.join(CITATION_FORMATS)})")


#: The longest quote audited (characters): a longer one is the verdict ``invalid_citation`` with the
#: reason ``quote_too_long`` before any matching (a 50 MB quote once took minutes and gigabytes).
MAX_QUOTE_CHARS = 65_536
#: The reason code of a quote over :data:`MAX_QUOTE_CHARS`; its ``citation_problem`` starts with it.
QUOTE_TOO_LONG_REASON = "quote_too_long"


def citation_table_frame(rows: list) -> pd.DataFrame:
    """Frame of citations with per-row problems found.

    Columns: ``position`` (int64), ``citation_id``, ``claim``, ``doc_id``, ``quote``
    (object: str or None) and ``citation_problem`` (str: ``""``, or why the row gets the
    verdict ``invalid_citation``, starting with its reason code and a colon: ``row_not_object``,
    ``citation_id_missing`` (no non-empty string), ``citation_id_repeated`` (an earlier row's),
    ``doc_id_missing``, ``quote_not_string``, ``quote_too_long`` (over :data:`MAX_QUOTE_CHARS`
    characters), ``claim_not_string``; the first that applies, in that order; docs/audit-rules.md,
    "Verdicts and reason codes"). A missing ``claim`` is ``""``; an empty ``quote`` is kept (it is
    ``insufficient_quote``, not invalid).
    """
    columns: dict[str, list] = {name: [] for name in CITATION_FIELDS}
    problems: list[str] = []
    seen: set[str] = set()
    for row in rows:
        fields = row if isinstance(row, dict) else {}
        citation_id, doc_id = fields.get("citation_id"), fields.get("doc_id")
        quote, claim = fields.get("quote"), fields.get("claim", "")
        problem_reason, problem = "", ""
        if not isinstance(row, dict):
            problem_reason, problem = "row_not_object", f"row is a {type(row).__name__}, not an object"
        elif not (isinstance(citation_id, str) and citation_id):
            problem_reason, problem = "citation_id_missing", "citation_id must be a non-empty string"
        elif citation_id in seen:
            problem_reason, problem = "citation_id_repeated", f"citation_id {citation_id!r} repeats an earlier row"
        elif not (isinstance(doc_id, str) and doc_id):
            problem_reason, problem = "doc_id_missing", "doc_id must be a non-empty string"
        elif not isinstance(quote, str):
            problem_reason, problem = "quote_not_string", "quote must be a string"
        elif len(quote) > MAX_QUOTE_CHARS:  # before any matching: time and memory stay bounded
            problem_reason = QUOTE_TOO_LONG_REASON
            problem = f"a quote of {len(quote)} characters is over the {MAX_QUOTE_CHARS} allowed"
        elif claim is None:
            claim = ""
        elif not isinstance(claim, str):
            problem_reason, problem = "claim_not_string", "claim must be a string"
        if problem:
            problem = f"{problem_reason}: {problem}"  # the row's reason code first (audit.stages reads it)
        if isinstance(citation_id, str):
            seen.add(citation_id)
        columns["citation_id"].append(citation_id if isinstance(citation_id, str) and citation_id else None)
        columns["claim"].append(claim if isinstance(claim, str) else None)
        columns["doc_id"].append(doc_id if isinstance(doc_id, str) and doc_id else None)
        columns["quote"].append(quote if isinstance(quote, str) else None)
        problems.append(problem)
    frame = pd.DataFrame({"position": pd.Series(range(len(rows)), dtype="int64")})
    for name in CITATION_FIELDS:
        frame[name] = pd.Series(columns[name], dtype=object)
    frame["citation_problem"] = pd.Series(problems, dtype="str")
    return frame
