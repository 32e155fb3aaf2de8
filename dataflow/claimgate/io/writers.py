"""Writing result files: deterministic JSON, JSONL lines, CSV and Parquet, each written atomically.

The bytes of these writers are part of the result format: ``jsonl_line`` is the one spelling of a
result line (the gate's streamed JSONL, the audit's rows and the benchmarks' baselines all write
through it), ``json_bytes`` the one spelling of a JSON document. Writes are atomic
(``io.atomic.write_atomic``): the bytes go to a temporary file in the destination folder, which is
renamed into place only when complete, so a failed or interrupted run creates nothing and leaves
an existing output as it was. Reading tables is ``io.tables``.
"""

from __future__ import annotations

import io
import json
from collections.abc import Iterable
from pathlib import Path

import orjson
import pandas as pd

from claimgate.io.atomic import write_atomic


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


def write_text_file(path: str | Path, text: str) -> None:
    """Atomically write ``text`` as UTF-8 (a Markdown rendering, a review page)."""
    write_atomic(path, lambda handle: handle.write(text.encode("utf-8", "backslashreplace")))
