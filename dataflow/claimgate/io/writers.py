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
from typing import TYPE_CHECKING

import orjson

from claimgate.io.atomic import write_atomic

if TYPE_CHECKING:  # a frame is only written by write_csv, which takes one made elsewhere
    import pandas as pd


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


def write_lines(path: str | Path, lines: list[bytes]) -> None:
    """Atomically write ``lines`` (each one JSONL row's bytes, as ``jsonl_line`` gives them), one per line."""
    write_atomic(path, lambda handle: handle.write(b"\n".join(lines) + b"\n" if lines else b""))


def write_csv(path: str | Path, frame: pd.DataFrame) -> None:
    """Atomically write a frame as UTF-8 CSV with a header and ``\\n`` line ends, no index."""
    text = frame.to_csv(index=False, lineterminator="\n")
    write_atomic(path, lambda handle: handle.write(text.encode("utf-8", "backslashreplace")))


# ----------------------------------------------------------------------------- nested Parquet results
# Results as Arrow columns a query engine reads (DuckDB, pandas, pyarrow): lists and structs, never JSON
# text. The schemas are the result format's (docs/gate-rules.md, "Result objects"; docs/audit-rules.md,
# "Output"); every string is ``valid_unicode`` (Arrow strings are UTF-8, a lone surrogate is not).


def _string_list():
    import pyarrow as pa

    return pa.list_(pa.string())


def _struct(fields: dict) -> object:
    import pyarrow as pa

    return pa.struct([pa.field(name, kind) for name, kind in fields.items()])


def gate_parquet_schema():
    """The gate's Parquet columns: the flat ones first, then the result's lists and structs.

    ``case_id, status, reason, error, decided_at, detail`` (string; ``error`` and
    ``detail`` ``""`` when there is none), ``candidate_ids`` (list<string>),
    ``requested_version, claim_key, operation`` (string: the result's own, else the
    case row's where it is a string of that type, else null), ``eligible_source_ids,
    excluded_wrong_version_ids, missing_claim_source_ids`` (list<string>, null where the
    result has none), ``agreed_value`` (string), ``claims`` (list<struct>, one per claim
    record: ``start_line, end_line, start, end`` int64, characters and 1-based lines,
    the rest string), ``answer_request`` (struct ``messages: list<struct<role, content>>``,
    null unless ``ready``) and ``request_json`` (the case row's echoed fields as JSON text,
    because a refused row may hold any type there).
    """
    import pyarrow as pa

    ints = ("start_line", "end_line", "start", "end")
    claim = _struct({name: pa.int64() if name in ints else pa.string() for name in GATE_CLAIM_FIELDS})
    message = _struct({"role": pa.string(), "content": pa.string()})
    strings = ("case_id", "status", "reason", "error", "decided_at", "detail")
    return pa.schema(
        [
            *[(name, pa.string()) for name in strings],
            ("candidate_ids", _string_list()),
            ("requested_version", pa.string()),
            ("claim_key", pa.string()),
            ("operation", pa.string()),
            ("eligible_source_ids", _string_list()),
            ("excluded_wrong_version_ids", _string_list()),
            ("missing_claim_source_ids", _string_list()),
            ("agreed_value", pa.string()),
            ("claims", pa.list_(claim)),
            ("answer_request", _struct({"messages": pa.list_(message)})),
            ("request_json", pa.string()),
        ]
    )


#: The claim record's fields, in order (``gate.result_object.CLAIM_FIELDS``, held equal by a test).
GATE_CLAIM_FIELDS = (
    "source_id", "version", "path", "url", "source_sha256", "document_revision", "operation", "claim_key",
    "value", "start_line", "end_line", "start", "end", "quote",
)  # fmt: skip


def _clean(value: object) -> object:
    """``value`` with every string made ``valid_unicode`` (dicts and lists walked)."""
    if isinstance(value, str):
        return valid_unicode(value)
    if isinstance(value, dict):
        return {key: _clean(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_clean(item) for item in value]
    return value


def _typed(value: object, kind: type) -> object:
    return value if isinstance(value, kind) else None


def _gate_record(entry: dict, detail: str) -> dict:
    """One row of ``gate_parquet_schema`` from an output entry ``{case_id, ..., result}``."""
    result = entry["result"]
    ids = result.get("candidate_ids", entry.get("candidate_ids"))
    if not (isinstance(ids, list) and all(isinstance(i, str) for i in ids)):
        ids = None
    echoed = {key: value for key, value in entry.items() if key != "result"}
    record = {
        "case_id": entry["case_id"],
        "status": result["status"],
        "reason": result["reason"],
        "error": result.get("error", ""),
        "decided_at": result["decided_at"],
        "detail": detail,
        "candidate_ids": ids,
        "request_json": json.dumps(echoed, ensure_ascii=False, separators=(",", ":")),
    }
    for name in ("requested_version", "claim_key", "operation"):
        record[name] = _typed(result.get(name, entry.get(name)), str)
    for name in ("eligible_source_ids", "excluded_wrong_version_ids", "missing_claim_source_ids", "agreed_value"):
        record[name] = result.get(name)
    record["claims"] = result.get("claims")
    record["answer_request"] = result.get("answer_request")
    return _clean(record)


def write_gate_parquet(path: str | Path, entries: list[dict], details: Iterable[str]) -> None:
    """Atomically write the gate's output entries as one Parquet table of ``gate_parquet_schema`` (no JSON text).

    ``entries`` are the ``cases`` of the gate's document, in order; ``details`` the
    matching ``detail`` strings (``""`` where none). Deterministic bytes for equal input.
    """
    import pyarrow as pa

    records = [_gate_record(entry, detail) for entry, detail in zip(entries, details, strict=True)]
    table = pa.Table.from_pylist(records, schema=gate_parquet_schema())
    _write_arrow(path, table)


def audit_parquet_schema(columns: Iterable[str]):
    """The audit's Parquet columns, for the output ``columns`` of a run (its rows' keys, in order).

    ``citation_id, doc_id, verdict, reason, gate_verdict, match_kind`` (string),
    ``matched_doc_ids`` (list<string>), ``spans`` (list<struct<doc_id, start, end,
    start_line, end_line, text>>: original characters, 1-based lines), ``elided`` (with a
    judge: those fields and ``position``), ``judge`` (struct<reasoning, verdict,
    confidence: double>), ``model_calls`` (int64), ``extractors`` (map<string, string>,
    a folder corpus only) and ``diagnosis`` (struct<kind, nearest: span, shared_tokens,
    quote_tokens: int64, edits: list<struct<op, quote, source, quote_span, source_span:
    list<int64>>>, pieces: list<struct<doc_id, quote_span, source_span, text>>, occurs_in:
    list<string>>; null for a row not diagnosed). See docs/audit-rules.md.
    """
    import pyarrow as pa

    span_fields = {"doc_id": pa.string(), "start": pa.int64(), "end": pa.int64()}
    span_fields |= {"start_line": pa.int64(), "end_line": pa.int64(), "text": pa.string()}
    span = _struct(span_fields)
    ints = pa.list_(pa.int64())
    edit = _struct(
        {"op": pa.string(), "quote": pa.string(), "source": pa.string(), "quote_span": ints, "source_span": ints}
    )
    piece = _struct({"doc_id": pa.string(), "quote_span": ints, "source_span": ints, "text": pa.string()})
    diagnosis = _struct(
        {
            "kind": pa.string(),
            "nearest": span,
            "shared_tokens": pa.int64(),
            "quote_tokens": pa.int64(),
            "edits": pa.list_(edit),
            "pieces": pa.list_(piece),
            "occurs_in": _string_list(),
        }
    )
    kinds = {
        "matched_doc_ids": _string_list(),
        "spans": pa.list_(span),
        "elided": pa.list_(_struct({"position": pa.int64(), **span_fields})),
        "judge": _struct({"reasoning": pa.string(), "verdict": pa.string(), "confidence": pa.float64()}),
        "model_calls": pa.int64(),
        "extractors": pa.map_(pa.string(), pa.string()),
        "diagnosis": diagnosis,
    }
    return pa.schema([(name, kinds.get(name, pa.string())) for name in columns])


def write_audit_parquet(path: str | Path, rows: list[dict], columns: Iterable[str]) -> None:
    """Atomically write audit rows as one Parquet table of ``audit_parquet_schema(columns)`` (no JSON text)."""
    import pyarrow as pa

    schema = audit_parquet_schema(columns)
    records = [_clean({name: row.get(name) for name in schema.names}) for row in rows]
    for record in records:
        if isinstance(record.get("extractors"), dict):
            record["extractors"] = list(record["extractors"].items())
    _write_arrow(path, pa.Table.from_pylist(records, schema=schema))


def _write_arrow(path: str | Path, table) -> None:
    """Atomically write an Arrow table as Parquet without schema metadata (deterministic bytes)."""
    import pyarrow.parquet as pq

    write_atomic(path, lambda handle: pq.write_table(table.replace_schema_metadata(None), handle))


def write_text_file(path: str | Path, text: str) -> None:
    """Atomically write ``text`` as UTF-8 (a Markdown rendering, a review page)."""
    write_atomic(path, lambda handle: handle.write(text.encode("utf-8", "backslashreplace")))
