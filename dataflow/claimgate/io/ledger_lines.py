"""A recheck's read of a ledger: canonical citation lines taken apart on their bytes, not parsed.

Rules: docs/recheck-rules.md, "Reading a big ledger". Why: a recheck of rows whose documents did not change
needs of each only its document, recorded hash, citation id, verdict and spans, and its seal checked; parsing
the rest (the fingerprint's tokens, the quote) is most of a read's cost. A line is taken apart only when the
whole of it matches ``CITATION_LINE`` (every field of the schema in sorted order, strings without escapes,
spans of plain integers: so it is JSON and a ledger row with those values), its non-ASCII bytes are UTF-8 and
its seal holds as written; any other line is parsed as ``read_ledger`` parses it. On a big ledger the command
has a forked helper (``runtime.helper_process``) scan the file's last part while it imports the audit.

What it refuses to do: decide differently from the line-at-a-time read. A line in doubt sends the whole file
through ``io.ledger_file.read_ledger_reference``, which gives the refusal; the helper's part is exactly what
this process would scan there, and when the helper gives nothing this process scans it.
"""

from __future__ import annotations

import hashlib
import re
import sys
import time
from array import array
from pathlib import Path
from typing import NamedTuple

from claimgate.io.ledger_file import (
    _SCHEMA_FIELD,
    LEDGER_KINDS,
    LEDGER_SCHEMA,
    REQUIRED_FIELDS,
    _ledger_bytes,
    _loads,
    _rows_reference,
    _seal_holds,
)
from claimgate.runtime.helper_process import HelperProcess

#: A ledger at least this long (bytes) is scanned partly by a forked helper when the caller asks for one
#: (``start_ledger_read(helper=True)``): below it, the scan takes less than starting the helper saves.
HELPER_FROM_BYTES = 8 * 2**20
#: Seconds at least that the caller waits for the helper's part once its own is scanned (more on a big file).
HELPER_PATIENCE_SECONDS = 10.0
#: The share of the file (bytes, from the end, cut at a line end) the helper scans. More than half: the
#: caller imports the audit's modules while the helper scans, and only then scans its own part.
HELPER_SHARE = 0.65

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


class _Scan(NamedTuple):
    """The ``CITATION_LINE`` matches of one part of a ledger's bytes, in file order: where each starts and ends
    (``starts``, ``ends``: byte offsets in the file), whether its seal holds as written and its bytes are UTF-8
    (``held``: 0 or 1), and its ``LedgerLines`` item (``items``)."""

    starts: list
    ends: list
    held: list
    items: list


def _scanned(data: bytes, lo: int, hi: int) -> _Scan:
    """The matches of ``data[lo:hi]`` (``lo`` and ``hi`` at line starts; offsets into ``data``).

    A match lies inside one line (no part of ``CITATION_LINE`` matches a newline), so the matches of the parts
    of a file cut at line ends are the matches of the whole file.
    """
    sha256, ascii_only = hashlib.sha256, data.isascii()
    starts: list[int] = []
    ends: list[int] = []
    held: list[int] = []
    items: list[tuple] = []
    for found in CITATION_LINE.finditer(data, lo, hi):
        start, end = found.span()
        pre, citation_id, doc_id, seal, post, source, recorded, spans, verdict = found.groups()
        body = sha256(pre)
        body.update(post)
        starts.append(start)
        ends.append(end)
        held.append(body.hexdigest().encode() == seal and (ascii_only or _is_utf8(data[start:end])))
        items.append((citation_id, doc_id, source, recorded, spans, verdict, start, end))
    return _Scan(starts, ends, held, items)


def _scan_bytes(data: bytes, lo: int, hi: int) -> bytes:
    """``_scanned(data, lo, hi)`` as the helper sends it: the count ``n``, then ``starts`` and ``ends`` (int64,
    native order), ``held`` (one byte each), then every item's six captured fields joined by NUL bytes (no
    captured field holds one: ``CITATION_LINE``'s strings hold no control character, the rest is hex and digits)."""
    scan = _scanned(data, lo, hi)
    head = array("q", [len(scan.starts)])
    head.extend(scan.starts)
    head.extend(scan.ends)
    fields = b"\0".join([field for item in scan.items for field in item[:LINE_START]])
    return head.tobytes() + bytes(scan.held) + fields


def _from_bytes(payload: bytes) -> _Scan | None:
    """The ``_Scan`` a helper sent (``_scan_bytes``), or ``None`` when the bytes are not of that shape."""
    size = array("q").itemsize
    if len(payload) < size:
        return None
    n = int.from_bytes(payload[:size], sys.byteorder, signed=True)
    held_at = size * (1 + 2 * n)  # where the held bytes start
    if n < 0 or len(payload) < held_at + n:
        return None
    offsets = array("q")
    offsets.frombytes(payload[size:held_at])
    held = list(payload[held_at : held_at + n])
    rest = payload[held_at + n :]
    fields = rest.split(b"\0") if n or rest else []
    if len(fields) != LINE_START * n:
        return None
    starts, ends = offsets[:n].tolist(), offsets[n:].tolist()
    it = iter(fields)
    return _Scan(starts, ends, held, list(zip(it, it, it, it, it, it, starts, ends)))


def _canonical(data: bytes, scans) -> list | None:
    """The items of ``data``'s lines (see ``LedgerLines``), or ``None`` when a line is in doubt (not JSON, not a
    ledger row, a seal that does not hold as written): the reference read then decides.

    ``scans`` are the ``_Scan`` of consecutive parts of the file (together, one scan of it for canonical
    lines); the lines between two matches, and a line a match starts inside (after a carriage return, say), are
    split as ``bytes.splitlines`` splits them and parsed. Only the captured fields are kept, so the file's lines
    are never copied whole.
    """
    items: list = []
    append = items.append
    at = 0  # where the next line starts
    for scan in scans:
        for start, end, held, item in zip(scan.starts, scan.ends, scan.held, scan.items):
            if start != at:  # lines no match holds, or a match that starts inside a line: parsed
                begins_line = data[start - 1] == 10  # "\n"
                if not _parsed(data[at : start if begins_line else end].splitlines(), items):
                    return None
                at = end + 1
                if not begins_line:
                    continue
            at = end + 1
            if held:
                append(item)
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


class PendingLedger:
    """A ledger read under way (``start_ledger_read``): its bytes read and checked, the scan of its last part
    perhaps in a helper process. ``lines()`` finishes it; ``close()`` (or the ``with`` block's end) ends a helper
    whose part was never asked for."""

    def __init__(self, path: str | Path, data: bytes, helper: bool, helper_from_bytes: int) -> None:
        self.path, self.data = path, data
        self._cut = len(data)
        self._helper = None
        if helper and len(data) >= helper_from_bytes:
            self._cut = data.rfind(b"\n", 0, int(len(data) * (1 - HELPER_SHARE))) + 1  # a line start
            self._helper = HelperProcess(_scan_bytes, data, self._cut, len(data))

    def _scans(self):
        began = time.perf_counter()
        yield _scanned(self.data, 0, self._cut)
        if self._cut < len(self.data):
            # The helper's part takes about twice this process's (65% against 35%); waiting far longer than that
            # means it is stopped or starved, and this process scans the part itself.
            patience = max(HELPER_PATIENCE_SECONDS, 20 * (time.perf_counter() - began))
            payload = self._helper.result(timeout=patience) if self._helper is not None else None
            scan = _from_bytes(payload) if payload is not None else None
            yield scan if scan is not None else _scanned(self.data, self._cut, len(self.data))

    def lines(self) -> LedgerLines:
        """The ``LedgerLines`` of the file (see ``read_ledger_lines``). Raises ``IngestionError`` as it does."""
        try:
            items = _canonical(self.data, self._scans())
        finally:
            self.close()
        return LedgerLines(self.data, items if items is not None else _rows_reference(self.path, self.data))

    def close(self) -> None:
        if self._helper is not None:
            self._helper.close()

    def __enter__(self) -> PendingLedger:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def start_ledger_read(path: str | Path, helper: bool = False, helper_from_bytes: int | None = None) -> PendingLedger:
    """Read the ledger at ``path`` and start its scan; ``.lines()`` gives ``read_ledger_lines(path)``.

    With ``helper`` (the command line, before it imports the audit) a ledger of at least ``helper_from_bytes``
    bytes (default ``HELPER_FROM_BYTES``) has its last part (``HELPER_SHARE`` of the bytes, cut at a line end)
    scanned by a forked helper (``runtime.helper_process``; Linux only) while the caller goes on; the items are
    the same either way.
    Raises ``IngestionError`` for a file that is no ledger (``ledger_invalid``, ``ledger_truncated``) here,
    before any helper starts.
    """
    least = HELPER_FROM_BYTES if helper_from_bytes is None else helper_from_bytes
    return PendingLedger(path, _ledger_bytes(path), helper, least)


def read_ledger_lines(path: str | Path) -> LedgerLines:
    """The ledger at ``path`` for a recheck: the same checks and refusals as :func:`read_ledger`.

    Raises ``IngestionError`` (``ledger_invalid``, ``ledger_truncated``, ``ledger_row_edited``: rules in
    docs/recheck-rules.md, "Refusals"; this read: "Reading a big ledger"). A canonical citation line is kept as
    its captured fields (no parse); ``LedgerLines.row`` parses one when its document changed.
    """
    return start_ledger_read(path).lines()


def read_ledger(path: str | Path) -> list[dict]:
    """Every row of the ledger at ``path``, in file order (list of dicts as written, as ``json.loads`` reads them).

    Raises ``IngestionError``: ``ledger_invalid`` (unreadable file, a line that is not JSON
    or not a ledger row of ``LEDGER_SCHEMA``, or no row at all), ``ledger_truncated`` (the
    last line has no newline), ``ledger_row_edited`` (a row's ``row_sha256`` does not match).
    Rules: docs/recheck-rules.md, "Refusals".

    The rows of :func:`read_ledger_lines` (a ledger as claimgate writes it read on its bytes, anything else
    and every refusal through ``read_ledger_reference``): the same rows and one-line refusals either way
    (tested on random and damaged files).
    """
    return read_ledger_lines(path).rows()
