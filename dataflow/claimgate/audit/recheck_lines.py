"""The command's recheck of a big ledger: rows of untouched documents written from their bytes
(docs/recheck-rules.md, "Reading a big ledger").

Why: on a ledger of 100,000 rows with 1% of the documents edited, nearly every row is ``unchanged`` or
``not_held``; such a row's output is its recorded citation id, document, verdict and spans, which a
canonical ledger line (``io.ledger_lines.CITATION_LINE``) holds as JSON already. Only the rows of changed
or removed documents are parsed and rechecked one by one (``audit.recheck.Rechecker``).

What it refuses to do: write anything but ``audit.recheck.recheck_citations``'s rows. Each output line is
the bytes ``io.writers.jsonl_line`` writes for the row the statement gives (tested byte for byte), and
the refusals (``ledger_other_corpus``, ``ledger_renamed_source``) are the same.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple

import orjson

from claimgate.audit.ledger import document_hashes
from claimgate.audit.matching.settings import MatchSettings
from claimgate.audit.recheck import Rechecker, held_on_a_changed_document
from claimgate.audit.recheck_statuses import HELD_VERDICT, row_reason
from claimgate.io.ledger_file import check_same_corpus
from claimgate.io.ledger_lines import CITATION_ID, DOC_ID, RECORDED, SOURCE, SPANS, VERDICT, LedgerLines
from claimgate.io.writers import jsonl_line

#: ``{"end":E,"start":S}`` of a canonical line's spans, written ``{"start":S,"end":E}`` as a recheck row has it.
_LEDGER_SPAN = re.compile(rb'\{"end":([0-9]+),"start":([0-9]+)\}')
_HELD = orjson.dumps(HELD_VERDICT)


class RecheckLines(NamedTuple):
    """A recheck's rows as the command writes them: ``lines`` (each row's ``jsonl_line`` bytes, in ledger
    order) with each row's ``statuses`` and summary ``reasons`` (``audit.recheck.row_reason``)."""

    lines: list[bytes]
    statuses: list[str]
    reasons: list[str]


def _spans(recorded: bytes) -> bytes:
    """A canonical line's spans (``[{"end":E,"start":S},...]``) as a recheck row writes them (start first)."""
    if recorded == b"[]":
        return recorded
    if recorded.count(b"{") == 1:  # one span, the usual case: [{"end":E,"start":S}]
        end, start = recorded[8:-2].split(b',"start":')
        return b'[{"start":%b,"end":%b}]' % (start, end)
    return b"[" + b",".join(b'{"start":%b,"end":%b}' % (s, e) for e, s in _LEDGER_SPAN.findall(recorded)) + b"]"


#: A recheck row copied from a canonical line (``unchanged``, ``not_held``), in ``jsonl_line``'s key order.
_COPIED = b'{"ledger_line":%d,"citation_id":%b,"doc_id":%b,"status":"%b","old_verdict":%b,"verdict":%b,"spans":%b}'


def _spelled(doc_id: str) -> bytes | None:
    """``doc_id`` as a canonical line spells it: its UTF-8 between quotes (``None`` for a lone surrogate).

    An id holding a character JSON escapes gets bytes no canonical line holds (its strings have no escape),
    so it is never found there: such rows are parsed and rechecked one by one.
    """
    try:
        return b'"' + doc_id.encode() + b'"'
    except UnicodeEncodeError:
        return None


def _text(spelled: bytes) -> str:
    """The text of a JSON string of a canonical line (no escapes: its bytes between the quotes, UTF-8)."""
    return spelled[1:-1].decode()


def recheck_lines(
    read: LedgerLines,
    documents: Mapping[str, str],
    settings: MatchSettings | None = None,
    source_maps: Mapping[str, object] | None = None,
) -> RecheckLines:
    """``audit.recheck.recheck_citations`` of the ledger ``read`` (``io.ledger_lines.read_ledger_lines``), written.

    Citation rows only (a ``request`` row's line is skipped: the command rechecks those apart). ``documents``
    and ``source_maps`` as for ``recheck_citations``. A canonical line whose citation never held is
    ``not_held`` and one whose document recorded today's hash is ``unchanged``, both written from the
    line's bytes; every other row is parsed and rechecked by ``audit.recheck.Rechecker``. Raises
    ``IngestionError`` (``ledger_other_corpus``, ``ledger_renamed_source``; docs/recheck-rules.md).
    """
    hashes = document_hashes(documents, source_maps)
    today = {_spelled(doc_id): sha.encode() for doc_id, sha in hashes.items()}  # as canonical lines spell ids
    recorded: dict = {}  # the first hash a citation row recorded for each source (io.ledger_file.ledger_sources)
    seen: set[bytes] = set()  # the sources of canonical lines already in recorded
    changed: set = set()  # the documents to audit again (those of rows that held, recorded another hash)
    items = read.items
    for item in items:
        if type(item) is tuple:  # a canonical citation line: one source
            doc, source = item[DOC_ID], item[SOURCE]
            if source not in seen:
                seen.add(source)
                recorded.setdefault(_text(source), item[RECORDED].decode())
            sha = item[RECORDED] if doc == source else None
            if item[VERDICT] == _HELD and doc in today and today[doc] != sha:
                changed.add(_text(doc))
        elif item["kind"] == "citation":
            for source_id, sha in item["sources"].items():
                recorded.setdefault(source_id, sha)
            if held_on_a_changed_document(item, hashes):
                changed.add(item["doc_id"])
    check_same_corpus(recorded, hashes)
    rechecker = Rechecker(documents, hashes, changed, settings, source_maps)
    changed_lines = {_spelled(doc_id) for doc_id in changed if type(doc_id) is str}
    lines, statuses, reasons = [], [], []
    verdicts: dict[bytes, str] = {}  # a recorded verdict's JSON: the verdict (a not_held row's summary reason)
    for number, item in enumerate(items, 1):
        if type(item) is tuple:
            doc, verdict = item[DOC_ID], item[VERDICT]
            if verdict != _HELD:  # it never held: written as recorded
                lines.append(
                    _COPIED % (number, item[CITATION_ID], doc, b"not_held", verdict, verdict, _spans(item[SPANS]))
                )
                statuses.append("not_held")
                if verdict not in verdicts:
                    verdicts[verdict] = orjson.loads(verdict)
                reasons.append(verdicts[verdict])
                continue
            if doc in today and doc not in changed_lines and doc == item[SOURCE]:  # today's hash: as recorded
                lines.append(
                    _COPIED % (number, item[CITATION_ID], doc, b"unchanged", verdict, verdict, _spans(item[SPANS]))
                )
                statuses.append("unchanged")
                reasons.append("unchanged")
                continue
            item = read.row(number)
        elif item["kind"] != "citation":
            continue
        row = rechecker.row(item, number)
        lines.append(jsonl_line(row))
        statuses.append(row["status"])
        reasons.append(row_reason(row))
    return RecheckLines(lines, statuses, reasons)
