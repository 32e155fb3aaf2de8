"""The ledger file: JSON lines of what earlier runs relied on (docs/recheck-rules.md, "The ledger").

Why: answers audited last week live on after the documents change; a ledger row records
what one citation relied on so ``claimgate recheck`` can say later whether it still holds.

What it refuses to do: read a ledger it cannot trust. A truncated last line
(``ledger_truncated``), a row whose checksum does not match its fields (``ledger_row_edited``),
a row that is not a ledger row of this schema (``ledger_invalid``): each is one
``IngestionError`` naming the line (1-based). Appending is ``io.ledger_append``; reading at speed, ``io.ledger_lines``.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from pathlib import Path

import orjson

from claimgate.errors import IngestionError
from claimgate.io.files import NotRegularFileError, read_regular_bytes
from claimgate.io.json_text import has_long_digit_run

#: The schema version every row carries (``schema``); a row of another version is refused.
LEDGER_SCHEMA = "claimgate.ledger/1"
#: Fields every row has, whatever it records (``kind``: ``citation`` or ``request``).
REQUIRED_FIELDS = ("schema", "kind", "corpus_sha256", "sources", "row_sha256")
LEDGER_KINDS = ("citation", "request")


def corpus_identity(hashes: Mapping[str, str | None]) -> str:
    """SHA-256 hex over the sorted ids and hashes (one ``id\\0hash\\n`` line each): a run's corpus or manifest."""
    digest = hashlib.sha256()
    for doc_id in sorted(hashes):
        digest.update(f"{doc_id}\0{hashes[doc_id]}\n".encode("utf-8", "backslashreplace"))
    return digest.hexdigest()


def canonical_bytes(row: dict) -> bytes:
    """Deterministic bytes of ``row``: sorted keys, compact, UTF-8 (lone surrogates escaped).

    ``orjson`` writes them (the standard library's compact, non-ASCII-escaping form for the strings,
    integers, lists and dicts of a ledger row); a row it refuses goes through the standard encoder.
    """
    try:
        return orjson.dumps(row, option=orjson.OPT_SORT_KEYS)
    except TypeError:
        pass
    text = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "backslashreplace")


def sealed(row: dict) -> dict:
    """``row`` with ``schema`` and ``row_sha256`` (SHA-256 hex of the canonical bytes of every other field)."""
    body = {k: v for k, v in row.items() if k != "row_sha256"}
    body["schema"] = LEDGER_SCHEMA
    return {**body, "row_sha256": hashlib.sha256(canonical_bytes(body)).hexdigest()}


def _row_problem(row: object) -> str:
    if not isinstance(row, dict):
        return "not an object"
    missing = [f for f in REQUIRED_FIELDS if f not in row]
    if missing:
        return f"no {missing[0]!r}"
    if row["schema"] != LEDGER_SCHEMA:
        return f"schema {row['schema']!r} is not {LEDGER_SCHEMA!r}"
    if row["kind"] not in LEDGER_KINDS or not isinstance(row["sources"], dict):
        return "kind or sources of the wrong shape"
    return ""


def _loads(line: bytes) -> object:
    """One line as ``json.loads`` reads it: ``orjson`` where that gives the same value (``io.json_text``'s guard)."""
    if not has_long_digit_run(line):  # 19+ digits: an integer orjson would read as a float
        try:
            return orjson.loads(line)
        except orjson.JSONDecodeError:  # a lone surrogate escape orjson refuses; the standard parser decides
            pass
    return json.loads(line.decode("utf-8"))


#: What a canonical line holds just before its ``schema`` field (``_seal_holds``).
_SCHEMA_FIELD = b'"schema":' + orjson.dumps(LEDGER_SCHEMA)


def _seal_holds(line: bytes, row: dict) -> bool:
    """Whether a line as written (canonical bytes, keys sorted) carries its own checksum, without re-encoding it.

    The sealed field sits just before ``schema`` in a canonical line; the line without it is the canonical
    body whose SHA-256 the field holds. A line that is not canonical is checked by re-encoding instead.
    The body is hashed in two pieces of the line (no copy of it).
    """
    digest = row["row_sha256"]
    if not isinstance(digest, str):
        return False
    field = b'"row_sha256":"' + digest.encode("ascii", "replace") + b'",'
    at = line.find(field + _SCHEMA_FIELD)
    if at < 0:
        return False
    view = memoryview(line)
    body = hashlib.sha256(view[:at])
    body.update(view[at + len(field) :])
    return body.hexdigest() == digest


#: What a file that is not a ledger's JSON lines can start with, and what it then is (``format_problem``).
_OTHER_FORMATS = (
    (b"\x1f\x8b", "gzip-compressed: decompress it first (a ledger is plain JSON lines)"),
    (b"BZh", "bzip2-compressed: decompress it first (a ledger is plain JSON lines)"),
    (b"\xfd7zXZ\x00", "xz-compressed: decompress it first (a ledger is plain JSON lines)"),
    (b"\x28\xb5\x2f\xfd", "zstd-compressed: decompress it first (a ledger is plain JSON lines)"),
    (b"PK\x03\x04", "a zip archive: extract the ledger first (a ledger is plain JSON lines)"),
    (b"\xef\xbb\xbf", "starts with a UTF-8 byte-order mark, which a ledger never has (an editor added it?)"),
)


def format_problem(head: bytes) -> str:
    """Why a file whose first bytes are ``head`` is no ledger, for a compressed file or a byte-order mark; else ``""``.

    Named apart from "not a JSON line" so the one-line refusal says what to do (docs/recheck-rules.md,
    "Refusals"); the same for reading and for appending (``io.ledger_append``).
    """
    return next((why for magic, why in _OTHER_FORMATS if head.startswith(magic)), "")


def _ledger_bytes(path: str | Path) -> bytes:
    """The ledger file's bytes; ``ledger_invalid`` when unreadable or of another format (``format_problem``),
    ``ledger_truncated`` without a last newline."""
    try:
        data, _ = read_regular_bytes(path)  # a FIFO or device is refused at once, never waited on
    except NotRegularFileError as exc:
        raise IngestionError("ledger_invalid", f"{exc}: a ledger is a regular file") from None
    except OSError as exc:
        raise IngestionError("ledger_invalid", f"{path}: {exc.strerror or exc}") from None
    problem = format_problem(data[:8])
    if problem:
        raise IngestionError("ledger_invalid", f"{path}: {problem}")
    if data and not data.endswith(b"\n"):
        raise IngestionError("ledger_truncated", f"{path}: the last line has no newline (cut short)")
    return data


def checked_line(line: bytes) -> tuple[dict | None, str, str]:
    """One ledger line (bytes, no newline) read and checked: ``(row, "", "")``, or ``(None, reason, why)`` with
    ``reason`` ``ledger_invalid`` (not JSON, not a ledger row of this schema) or ``ledger_row_edited``; the
    one statement of what a line must be, for reading and for appending (``io.ledger_append``)."""
    if not line.strip(b" \t\r"):
        return None, "ledger_invalid", "a blank line (a ledger has a row on every line)"
    try:
        row = _loads(line)
    except (UnicodeDecodeError, ValueError):
        return None, "ledger_invalid", "not a JSON line"
    problem = _row_problem(row)
    if problem:
        return None, "ledger_invalid", f"not a ledger row ({problem})"
    if not _seal_holds(line, row) and sealed(row)["row_sha256"] != row["row_sha256"]:
        return None, "ledger_row_edited", "the row's checksum does not match its fields"
    return row, "", ""


def _rows_reference(path: str | Path, data: bytes) -> list[dict]:
    """The rows of ``data``, one line at a time, each refusal at the first line that has it
    (``io.ledger_lines.read_ledger``)."""
    rows = []
    for number, line in enumerate(data.splitlines(), 1):
        row, reason, why = checked_line(line)
        if reason:
            raise IngestionError(reason, f"{path}:{number}: {why}")
        rows.append(row)
    if not rows:
        raise IngestionError("ledger_invalid", f"{path}: no ledger row")
    return rows


def read_ledger_reference(path: str | Path) -> list[dict]:
    """``io.ledger_lines.read_ledger`` one line at a time: the executable statement of what it returns and
    refuses (tests)."""
    return _rows_reference(path, _ledger_bytes(path))


def ledger_sources(ledger: list[dict], kind: str) -> dict[str, str | None]:
    """``{doc_id: sha256}`` the ``kind`` rows of the ledger relied on (first row's hash; ``None``: unknown id)."""
    sources: dict[str, str | None] = {}
    for row in ledger:
        if row["kind"] != kind:
            continue
        for doc_id, sha in row["sources"].items():
            sources.setdefault(doc_id, sha)
    return sources


def check_same_corpus(sources: Mapping[str, str | None], hashes: Mapping[str, str]) -> None:
    """Refuse a ledger from another corpus, or one whose sources were renamed (``IngestionError``)."""
    known = {d: sha for d, sha in sources.items() if sha is not None}
    by_hash: dict[str, str] = {}
    for doc_id, sha in hashes.items():
        by_hash.setdefault(sha, doc_id)
    for doc_id, sha in sorted(known.items()):
        if doc_id not in hashes and sha in by_hash and by_hash[sha] not in known:
            raise IngestionError(
                "ledger_renamed_source",
                f"{doc_id!r} is gone but its text is now {by_hash[sha]!r}; recheck does not guess renames "
                "(record a new ledger under the new ids)",
            )
    if known and not any(d in hashes for d in known):
        raise IngestionError("ledger_other_corpus", f"none of the ledger's {len(known)} documents is in this corpus")
