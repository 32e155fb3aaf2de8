"""The ledger file: JSON lines of what earlier runs relied on (docs/recheck-rules.md, "The ledger").

Why: answers audited last week live on after the documents change; a ledger row records
what one citation relied on so ``claimgate recheck`` can say later whether it still holds.

What it refuses to do: read a ledger it cannot trust. A truncated last line
(``ledger_truncated``), a row whose checksum does not match its fields (``ledger_row_edited``),
a row that is not a ledger row of this schema (``ledger_invalid``): each is one
``IngestionError`` naming the line (1-based). Appending writes complete lines with one
``write`` under an exclusive ``fcntl.flock``, so readers never see half a row.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
from collections.abc import Iterable
from pathlib import Path

from claimgate.errors import IngestionError

#: The schema version every row carries (``schema``); a row of another version is refused.
LEDGER_SCHEMA = "claimgate.ledger/1"
#: Fields every row has, whatever it records (``kind``: ``citation`` or ``request``).
REQUIRED_FIELDS = ("schema", "kind", "corpus_sha256", "sources", "row_sha256")
LEDGER_KINDS = ("citation", "request")


def canonical_bytes(row: dict) -> bytes:
    """Deterministic bytes of ``row``: sorted keys, compact, UTF-8 (lone surrogates escaped)."""
    text = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return text.encode("utf-8", "backslashreplace")


def sealed(row: dict) -> dict:
    """``row`` with ``schema`` and ``row_sha256`` (SHA-256 hex of the canonical bytes of every other field)."""
    body = {k: v for k, v in row.items() if k != "row_sha256"}
    body["schema"] = LEDGER_SCHEMA
    return {**body, "row_sha256": hashlib.sha256(canonical_bytes(body)).hexdigest()}


def append_ledger(path: str | Path, rows: Iterable[dict]) -> int:
    """Append ``rows`` (sealed, sorted keys) to the ledger at ``path``; returns how many were written.

    All lines go out in one ``write`` under an exclusive ``flock`` (created when absent, ``0o666``
    less the umask). A file not ending in a newline (an interrupted writer) is refused first:
    ``IngestionError("ledger_truncated")``.
    """
    data = b"".join(canonical_bytes(sealed(r)) + b"\n" for r in rows)
    fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o666)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size and os.pread(fd, 1, size - 1) != b"\n":
            raise IngestionError("ledger_truncated", f"{path}: the last line has no newline (an interrupted write)")
        if data:
            os.write(fd, data)
    finally:
        os.close(fd)
    return data.count(b"\n")


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


def read_ledger(path: str | Path) -> list[dict]:
    """Every row of the ledger at ``path``, in file order (list of dicts as written).

    Raises ``IngestionError``: ``ledger_invalid`` (unreadable file, a line that is not JSON
    or not a ledger row of :data:`LEDGER_SCHEMA`, or no row at all), ``ledger_truncated`` (the
    last line has no newline), ``ledger_row_edited`` (a row's ``row_sha256`` does not match).
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise IngestionError("ledger_invalid", f"{path}: {exc.strerror or exc}") from None
    if data and not data.endswith(b"\n"):
        raise IngestionError("ledger_truncated", f"{path}: the last line has no newline (cut short)")
    rows = []
    for number, line in enumerate(data.splitlines(), 1):
        try:
            row = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            raise IngestionError("ledger_invalid", f"{path}:{number}: not a JSON line") from None
        problem = _row_problem(row)
        if problem:
            raise IngestionError("ledger_invalid", f"{path}:{number}: not a ledger row ({problem})")
        if sealed(row)["row_sha256"] != row["row_sha256"]:
            raise IngestionError("ledger_row_edited", f"{path}:{number}: the row's checksum does not match its fields")
        rows.append(row)
    if not rows:
        raise IngestionError("ledger_invalid", f"{path}: no ledger row")
    return rows
