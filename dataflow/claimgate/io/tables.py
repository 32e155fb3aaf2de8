"""Reading case and citation tables, writing results (Hamilton loading module + I/O helpers).

Formats are chosen by file extension. A table that cannot be parsed at all is
refused whole (``IngestionError`` ``invalid_case_table`` / ``invalid_citation_table``,
naming the line where there is one); a single bad row is kept as it is and refused
on its own later, so the rest of the batch goes on (docs/gate-rules.md, "Case tables").

Writes are atomic: the bytes go to a temporary file in the destination folder,
which is renamed into place only when complete, so a failed or interrupted run
creates nothing and leaves an existing output as it was.
"""

from __future__ import annotations

import contextlib
import csv
import io
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path

import orjson
import pandas as pd

from claimgate.errors import IngestionError, OutputError
from claimgate.io.sources import read_utf8_text

CASE_TABLE_FORMATS = (".json", ".jsonl", ".csv", ".parquet")


def _read_json_rows(path: Path, reason: str) -> list:
    """Rows of a JSON list or JSONL file, each the raw decoded value."""
    text = read_utf8_text(path, reason, "table")
    if path.suffix.lower() == ".jsonl":
        rows = []
        for number, line in enumerate(text.splitlines(), start=1):
            if not line.strip():
                continue
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise IngestionError(reason, f"{path.name} line {number}: {exc.msg}") from None
        return rows
    try:
        document = json.loads(text)
    except json.JSONDecodeError as exc:
        raise IngestionError(reason, f"{path.name} line {exc.lineno}: {exc.msg}") from None
    if not isinstance(document, list):
        raise IngestionError(reason, f"{path.name}: expected a JSON list of objects")
    return document


def _read_csv_rows(path: Path, reason: str, required: tuple[str, ...]) -> list[dict]:
    """Rows of a CSV file with a header, every cell a string."""
    text = read_utf8_text(path, reason, "table")
    reader = csv.DictReader(io.StringIO(text, newline=""), strict=True)
    rows = []
    try:
        missing = [c for c in required if c not in (reader.fieldnames or [])]
        if missing:
            raise IngestionError(reason, f"{path.name}: header lacks {', '.join(missing)}")
        for row in reader:
            # reader.line_num is the physical line the row ended on (a quoted cell may span lines).
            if None in row or any(v is None for v in row.values()):
                raise IngestionError(reason, f"{path.name} line {reader.line_num}: wrong number of fields")
            rows.append(row)
    except csv.Error as exc:
        raise IngestionError(reason, f"{path.name} line {reader.line_num}: {exc}") from None
    return rows


def _read_parquet_rows(path: Path, reason: str) -> list[dict]:
    """Rows of a Parquet file as plain Python objects (lists stay lists)."""
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(path)
    except FileNotFoundError:
        raise IngestionError(reason, f"not found: {path}") from None
    except Exception as exc:  # pyarrow raises several types for a broken file
        raise IngestionError(reason, f"{path.name}: {exc}") from None
    return table.to_pylist()


def read_case_rows(cases_path: str | Path) -> list:
    """Raw rows of a case table (``.json`` list, ``.jsonl``, ``.csv`` or ``.parquet``).

    CSV cells are strings: ``candidate_ids`` is split on ``;`` (an empty cell is an
    empty list) and an empty ``operation`` cell means none was given. Raises
    ``IngestionError`` ``invalid_case_table`` for an unknown extension or a file
    that cannot be parsed.
    """
    path = Path(cases_path)
    suffix = path.suffix.lower()
    reason = "invalid_case_table"
    if suffix in (".json", ".jsonl"):
        return _read_json_rows(path, reason)
    if suffix == ".csv":
        rows = _read_csv_rows(path, reason, ("case_id", "candidate_ids", "requested_version", "claim_key"))
        for row in rows:
            cell = row["candidate_ids"]
            row["candidate_ids"] = cell.split(";") if cell != "" else []
            if row.get("operation", None) == "":
                del row["operation"]
        return rows
    if suffix == ".parquet":
        return _read_parquet_rows(path, reason)
    raise IngestionError(reason, f"{path.name}: unknown format (use {', '.join(CASE_TABLE_FORMATS)})")


def case_table_frame(rows: list) -> pd.DataFrame:
    """Frame of raw case rows, with the checks that need the whole table.

    Columns: ``position`` (int64, 0-based row number), ``case_id`` (object: the
    row's ``case_id`` or None), ``request`` (object: the raw row) and ``case_problem``
    (str: ``""`` or why the row is ``invalid_case``: its ``case_id`` is not a non-empty
    string, or repeats an earlier row's). Duplicates are found over the whole table
    here, so a partitioned run refuses exactly the rows a whole run does.
    """
    case_ids: list = []
    problems: list[str] = []
    seen: set[str] = set()
    for row in rows:
        case_id = row.get("case_id") if isinstance(row, dict) else None
        problem = ""
        if not isinstance(row, dict):
            problem = f"case row is a {type(row).__name__}, not an object"
        elif not (isinstance(case_id, str) and case_id):
            problem = "case_id must be a non-empty string"
        elif case_id in seen:
            problem = f"case_id {case_id!r} repeats an earlier row"
        if isinstance(case_id, str):
            seen.add(case_id)
        case_ids.append(case_id if isinstance(case_id, str) and case_id else None)
        problems.append(problem)
    frame = pd.DataFrame({"position": range(len(rows)), "case_id": pd.Series(case_ids, dtype=object)})
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


def citation_table_frame(rows: list) -> pd.DataFrame:
    """Frame of citations with per-row problems found.

    Columns: ``position`` (int64), ``citation_id``, ``claim``, ``doc_id``, ``quote``
    (object: str or None) and ``citation_problem`` (str: ``""`` or why the row gets
    the verdict ``invalid_citation``: not an object, no non-empty string
    ``citation_id``/``doc_id``, a ``quote`` or ``claim`` that is not a string, or a
    ``citation_id`` repeating an earlier row's). A missing ``claim`` is ``""``; an
    empty ``quote`` is kept (it is ``insufficient_quote``, not invalid).
    """
    columns: dict[str, list] = {name: [] for name in CITATION_FIELDS}
    problems: list[str] = []
    seen: set[str] = set()
    for row in rows:
        fields = row if isinstance(row, dict) else {}
        citation_id, doc_id = fields.get("citation_id"), fields.get("doc_id")
        quote, claim = fields.get("quote"), fields.get("claim", "")
        problem = ""
        if not isinstance(row, dict):
            problem = f"row is a {type(row).__name__}, not an object"
        elif not (isinstance(citation_id, str) and citation_id):
            problem = "citation_id must be a non-empty string"
        elif citation_id in seen:
            problem = f"citation_id {citation_id!r} repeats an earlier row"
        elif not (isinstance(doc_id, str) and doc_id):
            problem = "doc_id must be a non-empty string"
        elif not isinstance(quote, str):
            problem = "quote must be a string"
        elif claim is None:
            claim = ""
        elif not isinstance(claim, str):
            problem = "claim must be a string"
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


# --------------------------------------------------------------------------- writing


def write_atomic(path: str | Path, write: Callable[[io.BufferedWriter], None]) -> None:
    """Write a file atomically: ``write(handle)`` fills a temporary file beside ``path``.

    The temporary file is fsynced and renamed over ``path`` only when ``write``
    returns; on any exception (or interruption) it is removed and ``path`` is untouched.
    The file gets the mode of the file it replaces, else ``0o666`` less the umask.
    Raises ``OutputError`` (a usage error) when the file system refuses: ``path`` is a
    folder, a parent is a file, no permission, disk full.
    """
    target = Path(path)
    try:
        if target.is_dir():
            raise IsADirectoryError(21, "is a folder", str(target))
        target.parent.mkdir(parents=True, exist_ok=True)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
    try:
        with os.fdopen(fd, "wb") as handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(temporary, mode)
        os.replace(temporary, target)
    except BaseException as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(temporary)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise


def _umask() -> int:
    """The process umask (read by setting and restoring it)."""
    current = os.umask(0o022)
    os.umask(current)
    return current


def valid_unicode(text: str) -> str:
    """``text`` with any lone surrogate (from a JSON ``\\udXXX`` escape) written back as that escape."""
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def json_bytes(document: object) -> bytes:
    """Deterministic pretty JSON: 2-space indent, UTF-8, key order as built, final newline.

    A lone surrogate in a string (read from a ``\\ud800``-style escape in someone's
    input) is written back as the same JSON escape instead of failing.
    """
    return (json.dumps(document, indent=2, ensure_ascii=False) + "\n").encode("utf-8", "backslashreplace")


def write_json(path: str | Path, document: object) -> None:
    """Atomically write ``document`` as deterministic pretty JSON."""
    write_atomic(path, lambda handle: handle.write(json_bytes(document)))


#: One reusable encoder for JSONL rows: the bytes of ``json.dumps(row, ensure_ascii=False,
#: separators=(",", ":"))``, without building an encoder per row or tracking cycles (rows are
#: plain trees of dicts, lists and scalars).
_JSONL_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), check_circular=False)


def jsonl_line(row: object) -> bytes:
    """One compact JSON line, without its newline, as UTF-8 bytes.

    ``orjson`` writes it (about twice as fast on large batches); its bytes equal the
    standard library's compact, non-ASCII-escaping form for the strings, integers,
    lists and dicts of claimgate's rows (tested). A row orjson refuses (a lone
    surrogate read from a ``\\ud800`` escape, an integer beyond 64 bits) goes through the
    standard encoder, with lone surrogates written back as the same JSON escape.
    """
    try:
        return orjson.dumps(row)
    except TypeError:
        return _JSONL_ENCODER.encode(row).encode("utf-8", "backslashreplace")


def write_jsonl(path: str | Path, rows: Iterable[dict]) -> None:
    """Atomically write one compact JSON object per line, streaming ``rows`` in order."""

    def write(handle: io.BufferedWriter) -> None:
        for row in rows:
            handle.write(jsonl_line(row))
            handle.write(b"\n")

    write_atomic(path, write)


def write_csv(path: str | Path, frame: pd.DataFrame) -> None:
    """Atomically write a frame as UTF-8 CSV with a header and ``\\n`` line ends, no index."""
    text = frame.to_csv(index=False, lineterminator="\n")
    write_atomic(path, lambda handle: handle.write(text.encode("utf-8", "backslashreplace")))


def write_parquet(path: str | Path, frame: pd.DataFrame) -> None:
    """Atomically write a frame as Parquet (no index; deterministic for equal frames)."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(frame, preserve_index=False).replace_schema_metadata(None)
    write_atomic(path, lambda handle: pq.write_table(table, handle))
