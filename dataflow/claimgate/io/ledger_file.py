"""The ledger file: JSON lines of what earlier runs relied on (docs/recheck-rules.md, "The ledger").

Why: answers audited last week live on after the documents change; a ledger row records
what one citation relied on so ``claimgate recheck`` can say later whether it still holds.

What it refuses to do: read a ledger it cannot trust. A truncated last line
(``ledger_truncated``), a row whose checksum does not match its fields (``ledger_row_edited``),
a row that is not a ledger row of this schema (``ledger_invalid``): each is one
``IngestionError`` naming the line (1-based). Appending is ``io.ledger_append``.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path
from typing import NamedTuple

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
    """The rows of ``data``, one line at a time, each refusal at the first line that has it (``read_ledger``)."""
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
    """``read_ledger`` one line at a time: the executable statement of what it returns and refuses (tests)."""
    return _rows_reference(path, _ledger_bytes(path))


_REQUIRED = frozenset(REQUIRED_FIELDS)
_SEAL_KEY = b'"row_sha256":"'
_SEAL_TAIL = b'",' + _SCHEMA_FIELD


def _sealed_row(line: bytes, row: object) -> bool:
    """Whether ``row`` (parsed from ``line``) is a ledger row whose seal holds on the bytes as written.

    ``_seal_holds``, with its search cut short where the line is canonical: when the first
    ``"row_sha256":"`` of the line holds the row's digest followed by the schema field, it is the
    first place ``_seal_holds`` would find; anything else is left to ``_seal_holds``.
    """
    if not (
        type(row) is dict
        and row.keys() >= _REQUIRED
        and row["schema"] == LEDGER_SCHEMA
        and row["kind"] in LEDGER_KINDS
        and type(row["sources"]) is dict
    ):
        return False
    digest, at = row["row_sha256"], line.find(_SEAL_KEY)
    if type(digest) is not str or at < 0:
        return _seal_holds(line, row)
    start = at + len(_SEAL_KEY)
    end = start + len(digest)
    if line[start:end] != digest.encode("ascii", "replace") or not line.startswith(_SEAL_TAIL, end):
        return _seal_holds(line, row)
    return hashlib.sha256(line[:at] + line[end + 2 :]).hexdigest() == digest


def read_ledger(path: str | Path) -> list[dict]:
    """Every row of the ledger at ``path``, in file order (list of dicts as written, as ``json.loads`` reads them).

    Raises ``IngestionError``: ``ledger_invalid`` (unreadable file, a line that is not JSON
    or not a ledger row of :data:`LEDGER_SCHEMA`, or no row at all), ``ledger_truncated`` (the
    last line has no newline), ``ledger_row_edited`` (a row's ``row_sha256`` does not match).
    Rules: docs/recheck-rules.md, "Refusals".

    The rows of :func:`read_ledger_lines` (a ledger as claimgate writes it read on its bytes, anything else
    and every refusal through ``read_ledger_reference``): the same rows and one-line refusals either way
    (tested on random and damaged files).
    """
    return read_ledger_lines(path).rows()


# ----------------------------------------------------------------------------- a recheck's read
# Canonical citation lines taken apart on their bytes (docs/recheck-rules.md, "Reading a big ledger"): a recheck
# of rows whose documents did not change needs of each only its document, recorded hash, citation id, verdict and
# spans, and its seal checked; parsing the rest (the fingerprint's tokens, the quote) is most of a read's cost.
# A line is taken apart only when the whole of it matches CITATION_LINE (every field of the schema in sorted order,
# strings without escapes, spans of plain integers: so it is JSON and a ledger row with those values), its
# non-ASCII bytes are UTF-8 and its seal holds as written; any other line is parsed as read_ledger parses it, and a
# line in doubt sends the whole file through the reference read, which gives the refusal.

#: A JSON string without escapes or control characters: its bytes are its UTF-8 text between quotes,
#: as every JSON encoder writes it (so ``orjson.dumps`` of the decoded text gives the same bytes).
_STRING = rb'"[^"\\\x00-\x1f]*+"'
_STRINGS = rb"\[(?:" + _STRING + rb"(?:," + _STRING + rb")*+)?\]"
_HEX = rb"[0-9a-f]{64}"
_NUMBER = rb"(?:0|[1-9][0-9]*+)"
_SPAN = rb'\{"end":' + _NUMBER + rb',"start":' + _NUMBER + rb"\}"
#: A canonical citation row as ``append_ledger`` writes it (keys sorted, compact), its fields captured as
#: bytes: 1 the body before the seal, 2 ``citation_id``, 3 ``doc_id`` (JSON strings), 4 the seal (hex),
#: 5 the body after it, 6 the one ``sources`` key (a JSON string), 7 its hash (hex), 8 ``spans`` (a JSON
#: list of ``{"end", "start"}``), 9 ``verdict`` (a JSON string); a newline follows it.
CITATION_LINE = re.compile(
    rb'(\{"citation_id":(' + _STRING + rb'),"corpus_sha256":"' + _HEX + rb'","doc_id":(' + _STRING + rb"),"
    rb'"fingerprint":\{"after":' + _STRINGS + rb',"before":' + _STRINGS + rb',"tokens":' + _STRINGS + rb"\},"
    rb'"kind":"citation","quote":' + _STRING + rb',"reason":' + _STRING + rb',)"row_sha256":"(' + _HEX + rb')",'
    rb'("schema":"' + re.escape(LEDGER_SCHEMA.encode()) + rb'","sources":\{(' + _STRING + rb'):"(' + _HEX + rb')"\},'
    rb'"spans":(\[(?:' + _SPAN + rb"(?:," + _SPAN + rb")*+)?\]),"
    rb'"verdict":(' + _STRING + rb")\})(?=\n)"
)
#: Fields of a canonical line's item (``LedgerLines.items``): the captured bytes, then where the line is in the file.
CITATION_ID, DOC_ID, SOURCE, RECORDED, SPANS, VERDICT, LINE_START, LINE_END = range(8)


class LedgerLines(NamedTuple):
    """A ledger as a recheck reads it: its bytes (``data``) and one item per line, in file order.

    Each item is either the tuple of a canonical citation line whose seal holds (its ``citation_id``, ``doc_id``,
    ``sources`` key, recorded hash, ``spans`` and ``verdict`` as the bytes written, then the line's start and end
    offsets in ``data``; the indices are ``CITATION_ID`` … ``LINE_END``), or the row (``dict``, as ``read_ledger``
    reads it) of any other line.
    """

    data: bytes
    items: list

    def row(self, line: int) -> dict:
        """The full row at ``line`` (1-based), as ``read_ledger`` reads it."""
        item = self.items[line - 1]
        return item if type(item) is dict else _loads(self.data[item[LINE_START] : item[LINE_END]])

    def rows(self) -> list[dict]:
        """Every row, as ``read_ledger`` gives them."""
        return [self.row(line) for line in range(1, len(self.items) + 1)]


def _parsed(lines: list[bytes], items: list) -> bool:
    """Append the rows of ``lines`` (lines no canonical item holds) to ``items``; ``False`` at a line in doubt."""
    for line in lines:
        try:
            row = _loads(line)
        except (UnicodeDecodeError, ValueError):  # orjson.JSONDecodeError is a ValueError
            return False
        if not _sealed_row(line, row):
            return False
        items.append(row)
    return True


def _canonical(data: bytes) -> list | None:
    """The items of ``data``'s lines (see ``LedgerLines``), or ``None`` when a line is in doubt (not JSON, not a
    ledger row, a seal that does not hold as written): the reference read then decides.

    One scan of the file for canonical lines (``CITATION_LINE.finditer``); the lines between two of them, and a
    line a match starts inside (after a carriage return, say), are split as ``bytes.splitlines`` splits them and
    parsed. Only the captured fields are kept, so the file's lines are never copied whole.
    """
    sha256, ascii_only = hashlib.sha256, data.isascii()
    items: list = []
    append = items.append
    at = 0  # where the next line starts
    for found in CITATION_LINE.finditer(data):
        start, end = found.span()
        if start != at:  # lines no match holds, or a match that starts inside a line: parsed
            begins_line = data[start - 1] == 10  # "\n"
            if not _parsed(data[at : start if begins_line else end].splitlines(), items):
                return None
            at = end + 1
            if not begins_line:
                continue
        at = end + 1
        pre, citation_id, doc_id, seal, post, source, recorded, spans, verdict = found.groups()
        body = sha256(pre)
        body.update(post)
        if body.hexdigest().encode() == seal and (ascii_only or _is_utf8(data[start:end])):
            append((citation_id, doc_id, source, recorded, spans, verdict, start, end))
        elif not _parsed([data[start:end]], items):
            return None
    if not _parsed(data[at:].splitlines(), items):
        return None
    return items or None


def _is_utf8(line: bytes) -> bool:
    if line.isascii():
        return True
    try:
        line.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_ledger_lines(path: str | Path) -> LedgerLines:
    """The ledger at ``path`` for a recheck: the same checks and refusals as ``io.ledger_file.read_ledger``.

    Raises ``IngestionError`` (``ledger_invalid``, ``ledger_truncated``, ``ledger_row_edited``: rules in
    docs/recheck-rules.md, "Refusals"; this read: "Reading a big ledger"). A canonical citation line is kept as
    its captured fields (no parse); ``LedgerLines.row`` parses one when its document changed.
    """
    data = _ledger_bytes(path)
    items = _canonical(data)
    return LedgerLines(data, items if items is not None else _rows_reference(path, data))


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
