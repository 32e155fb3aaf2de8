"""Recheck a citation ledger against the documents as they are now (docs/recheck-rules.md, "Statuses").

Why: a citation audited last week may not hold after the docs changed; re-auditing every
citation is slow on a big ledger. Only documents whose hash changed are indexed and only the
citations of those documents that held are re-audited, with the audit's own matcher and diagnosis; a
citation the ledger recorded as not holding is ``not_held`` (``audit.recheck_statuses``), never re-audited.

What it refuses to do: guess. A ledger whose documents are all absent from today's corpus is
from another corpus (``ledger_other_corpus``); a ledger document that is gone while its exact text
is there under another id was renamed by a re-pin (``ledger_renamed_source``): both refuse the run.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from typing import NamedTuple

from claimgate.audit.diagnosis.diagnose import citation_diagnosis
from claimgate.audit.diagnosis.nearest_passage import PassageIndex
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.ledger import document_hashes, fingerprint
from claimgate.audit.matching.audit import audit_quote
from claimgate.audit.matching.settings import MatchSettings
from claimgate.audit.recheck_statuses import DOCUMENT_REMOVED, HELD_VERDICT
from claimgate.io.ledger_file import check_same_corpus, ledger_sources
from claimgate.io.visible_text import VisibleText, raw_diagnosis


def _rechecked(row: dict, line: int, index, passages, settings: MatchSettings, maps: Mapping, tokens: dict) -> dict:
    """A citation row that held, its document changed: audited again in that document (``intact`` or ``invalid``).

    Decided in the cited document alone (``other_documents=False``: only changed documents are indexed, so
    no lookup in the others could be whole); ``maps`` (``{doc_id: VisibleText}``) puts spans and the
    diagnosis of a rendered page into its file as written, as the audit's rows are. ``tokens`` caches each
    changed document's tokens for the fingerprints of the rows that cite it (``{doc_id: DocumentTokens}``,
    taken from the index: the document is never normalized again).
    """
    doc_id, quote = row["doc_id"], row["quote"]
    source_map = maps.get(doc_id)
    match = audit_quote(
        quote,
        doc_id,
        index,
        min_tokens=settings.min_tokens,
        min_fragment_tokens=settings.min_fragment_tokens,
        window_chars=settings.window_chars,
        max_steps=settings.max_steps,
        other_documents=False,
    )
    spans = [{"start": s["start"], "end": s["end"]} for s in match["spans"] if s["doc_id"] == doc_id]
    if isinstance(source_map, VisibleText):
        # A rendered page (Markdown, reStructuredText): spans are characters of the file as written, as the
        # audit's rows and the ledger's are (io.visible_text.raw_spans), so slicing the new file gives the quote.
        spans = [dict(zip(("start", "end"), source_map.raw_span(s["start"], s["end"]))) for s in spans]
    out = _row(row, line, "intact" if match["verdict"] == "found" else "invalid", match["verdict"])
    if match["verdict"] == "found":
        number = index.doc_number(doc_id)
        text = index.docs[number].original
        if spans and doc_id not in tokens:
            tokens[doc_id] = indexed_tokens(index, number)
        new_print = fingerprint(text, spans, tokens.get(doc_id), source_map)  # the visible text's tokens
        out.update(spans=spans, moved=spans != row["spans"], context_changed=new_print != row.get("fingerprint"))
    else:
        diagnosis = citation_diagnosis(quote, doc_id, match, passages, window_chars=settings.window_chars)
        out.update(spans=[], audit_reason=match["reason"], diagnosis=raw_diagnosis(diagnosis, maps))
    return out


class DocumentTokens(NamedTuple):
    """A document's normalized ``tokens`` (list of str) and each one's first character (``starts``, ``array("i")``
    of character offsets into its text): what ``audit.ledger.fingerprint`` reads of a ``normalize_text`` result."""

    tokens: list[str]
    starts: array


def indexed_tokens(index, number: int) -> DocumentTokens:
    """The tokens and starts of document ``number`` of a ``CorpusIndex``, as ``normalize_text`` of its text gives them.

    The index holds each document's tokens as ids into ``index.strings`` with their offsets (an index build
    equals the reference normalization: docs/audit-rules.md, "Normalization"), so a fingerprint needs no
    second normalization.
    """
    document = index.docs[number]
    ids = array("i")
    ids.frombytes(document.token_bytes)
    strings = index.strings
    return DocumentTokens([strings[i] for i in ids], document.starts)


def _row(row: dict, line: int, status: str, verdict: object) -> dict:
    return {
        "ledger_line": line,
        "citation_id": row["citation_id"],
        "doc_id": row["doc_id"],
        "status": status,
        "old_verdict": row["verdict"],
        "verdict": verdict,
    }


def held_on_a_changed_document(row: dict, hashes: Mapping[str, str]) -> bool:
    """Whether a ledger row (a dict) is a citation that held (``HELD_VERDICT``) on a document whose hash today
    (``hashes``, ``{doc_id: sha256}``) is not the one it recorded: the rows a recheck audits again."""
    doc_id = row.get("doc_id")
    return (
        row["kind"] == "citation"
        and row["verdict"] == HELD_VERDICT
        and doc_id in hashes
        and hashes[doc_id] != row["sources"].get(doc_id)
    )


def changed_documents(rows, hashes: Mapping[str, str]) -> set:
    """The documents to index and audit again: those of the ledger ``rows`` (dicts) that
    :func:`held_on_a_changed_document`."""
    return {row["doc_id"] for row in rows if held_on_a_changed_document(row, hashes)}


class Rechecker:
    """What rechecking one citation row needs: today's hashes, the changed documents and their index.

    ``documents`` (``{doc_id: text}``) and ``source_maps`` as for ``recheck_citations``; ``changed`` is
    ``changed_documents``'s set; only those documents are indexed (``build_corpus_index``).
    """

    def __init__(self, documents, hashes, changed: set, settings: MatchSettings | None, source_maps) -> None:
        self.hashes, self.changed, self.maps = hashes, changed, source_maps or {}
        self.settings = settings or MatchSettings()
        self.index = build_corpus_index({d: documents[d] for d in documents if d in changed})
        self.passages = PassageIndex(self.index)
        self.tokens: dict = {}

    def row(self, row: dict, line: int) -> dict:
        """The recheck row of one citation ledger row (``line`` 1-based): the rule of docs/recheck-rules.md,
        "Statuses", one case per branch."""
        doc_id = row["doc_id"]
        if row["verdict"] != HELD_VERDICT:  # it never held: nothing it cited can change that
            return _row(row, line, "not_held", row["verdict"]) | {"spans": _spans(row)}
        if doc_id not in self.hashes and row["sources"].get(doc_id) is None:  # cited an unknown document, still does
            return _row(row, line, "unchanged", row["verdict"]) | {"spans": []}
        if doc_id not in self.hashes:
            return _row(row, line, "invalid", None) | {"spans": [], "diagnosis": {"kind": DOCUMENT_REMOVED}}
        if doc_id not in self.changed:
            return _row(row, line, "unchanged", row["verdict"]) | {"spans": _spans(row)}
        index, passages, settings = self.index, self.passages, self.settings
        return _rechecked(row, line, index, passages, settings, self.maps, self.tokens)


def _spans(row: dict) -> list:
    return [{"start": s["start"], "end": s["end"]} for s in row["spans"]]


def recheck_citations(
    ledger: list[dict],
    documents: Mapping[str, str],
    settings: MatchSettings | None = None,
    source_maps: Mapping[str, object] | None = None,
) -> list:
    """One recheck row per citation row of ``ledger`` (``kind == "citation"``), in ledger order.

    ``documents`` is today's ``{doc_id: text}``; ``source_maps`` (``{doc_id: io.visible_text.VisibleText}``
    of a folder's rendered pages) puts a rendered page's spans into its file as written, as the audit does.
    Each row: ``ledger_line`` (1-based), ``citation_id``, ``doc_id``, ``status`` (``RECHECK_STATUSES``:
    ``not_held``: the ledger recorded a verdict other than ``found``, given as both ``old_verdict`` and
    ``verdict``, with its recorded ``spans``, whatever became of its document; ``unchanged``: same text
    hash; ``intact``: changed, quote still ``found`` in the cited document, with ``spans`` (characters of
    the new text), ``moved`` and ``context_changed``; ``invalid``: changed and no longer ``found``, with
    ``audit_reason`` and the ``diagnosis`` of the nearest passage, or the document is gone: ``diagnosis``
    ``{"kind": "document_removed"}``), ``old_verdict`` and ``verdict`` (today's; ``None`` when removed).
    Only the changed documents of rows that held are indexed. Raises ``IngestionError``
    (``ledger_other_corpus``, ``ledger_renamed_source``); see docs/recheck-rules.md, "Statuses".

    One row at a time: the executable statement of the rows, which the command's bulk path
    (``audit.recheck_lines.recheck_lines``) writes byte for byte (tested).
    """
    hashes = document_hashes(documents, source_maps)
    check_same_corpus(ledger_sources(ledger, "citation"), hashes)
    rechecker = Rechecker(documents, hashes, changed_documents(ledger, hashes), settings, source_maps)
    return [rechecker.row(row, line) for line, row in enumerate(ledger, 1) if row["kind"] == "citation"]
