"""Recheck a citation ledger against the documents as they are now (docs/recheck-rules.md, "Statuses").

Why: a citation audited last week may not hold after the docs changed; re-auditing every
citation is slow on a big ledger. Only documents whose hash changed are indexed and only the
citations of those documents are re-audited, with the audit's own matcher and diagnosis.

What it refuses to do: guess. A ledger whose documents are all absent from today's corpus is
from another corpus (``ledger_other_corpus``); a ledger document that is gone while its exact text
is there under another id was renamed by a re-pin (``ledger_renamed_source``): both refuse the run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from claimgate.audit.diagnosis.diagnose import citation_diagnosis
from claimgate.audit.diagnosis.nearest_passage import PassageIndex
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.ledger import document_hashes, fingerprint
from claimgate.audit.matching.audit import audit_quote
from claimgate.audit.matching.settings import MatchSettings
from claimgate.io.ledger_file import check_same_corpus, citation_entry, ledger_sources
from claimgate.io.visible_text import VisibleText

#: A recheck row's ``status``, in the order the rules page states them.
RECHECK_STATUSES = ("unchanged", "intact", "invalid", "decision_changed")
#: The diagnosis kind of a citation whose document is gone from today's corpus.
DOCUMENT_REMOVED = "document_removed"


def _rechecked(row: dict, line: int, index, passages, settings: MatchSettings, source_map=None) -> dict:
    doc_id, quote = row["doc_id"], row["quote"]
    match = audit_quote(
        quote,
        doc_id,
        index,
        min_tokens=settings.min_tokens,
        min_fragment_tokens=settings.min_fragment_tokens,
        window_chars=settings.window_chars,
        max_steps=settings.max_steps,
    )
    spans = [{"start": s["start"], "end": s["end"]} for s in match["spans"] if s["doc_id"] == doc_id]
    if isinstance(source_map, VisibleText):
        # A rendered page (Markdown, reStructuredText): spans are characters of the file as written, as the
        # audit's rows and the ledger's are (io.visible_text.raw_spans), so slicing the new file gives the quote.
        spans = [dict(zip(("start", "end"), source_map.raw_span(s["start"], s["end"]))) for s in spans]
    out = _row(row, line, "intact" if match["verdict"] == "found" else "invalid", match["verdict"])
    if match["verdict"] == "found":
        doc = index.docs[index.doc_number(doc_id)]
        new_print = fingerprint(doc.original, spans, source_map=source_map)  # the visible text's tokens
        out.update(spans=spans, moved=spans != row["spans"], context_changed=new_print != row.get("fingerprint"))
    else:
        diagnosis = citation_diagnosis(quote, doc_id, match, passages, window_chars=settings.window_chars)
        out.update(spans=[], audit_reason=match["reason"], diagnosis=diagnosis)
    return out


def _row(row: dict, line: int, status: str, verdict: str | None) -> dict:
    return {
        "ledger_line": line,
        "citation_id": row["citation_id"],
        "doc_id": row["doc_id"],
        "status": status,
        "old_verdict": row["verdict"],
        "verdict": verdict,
    }


def recheck_citations(
    ledger: list[dict],
    documents: Mapping[str, str],
    settings: MatchSettings | None = None,
    source_maps: Mapping[str, object] | None = None,
) -> list:
    """One recheck row per citation row of ``ledger`` (``kind == "citation"``), in ledger order.

    ``documents`` is today's ``{doc_id: text}``; ``source_maps`` (``{doc_id: io.visible_text.VisibleText}``
    of a folder's rendered pages) puts a rendered page's spans into its file as written, as the audit does.
    Each row: ``ledger_line`` (1-based), ``citation_id``,
    ``doc_id``, ``status`` (``unchanged``: same text hash; ``intact``: changed, quote still
    ``found`` in the cited document, with ``spans`` (characters of the new text), ``moved`` and
    ``context_changed``; ``invalid``: changed and no longer ``found``, with ``audit_reason`` and the
    ``diagnosis`` of the nearest passage, or the document is gone: ``diagnosis`` ``{"kind":
    "document_removed"}``), ``old_verdict`` and ``verdict`` (today's; ``None`` when not re-audited
    or removed). Only the changed documents are indexed. Raises ``IngestionError``
    (``ledger_other_corpus``, ``ledger_renamed_source``); see docs/recheck-rules.md.

    Grouped by document (``recheck_entries``): a row whose document is unchanged is built in one pass with
    no call per row; only rows of changed or missing documents are looked at one by one. The rows are
    those of ``recheck_citations_reference`` (tested byte for byte).
    """
    try:
        entries = [citation_entry(line, row) for line, row in enumerate(ledger, 1) if row["kind"] == "citation"]
    except LookupError:  # a row no entry can hold (a doc_id that is no string, a field missing): one by one
        return recheck_citations_reference(ledger, documents, settings, source_maps)
    return recheck_entries(entries, lambda line: ledger[line - 1], documents, settings, source_maps)


def recheck_entries(
    entries: list[tuple],
    row_at: Callable[[int], dict],
    documents: Mapping[str, str],
    settings: MatchSettings | None = None,
    source_maps: Mapping[str, object] | None = None,
) -> list:
    """``recheck_citations`` over ``io.ledger_file.citation_entry`` tuples, in ledger order: the same rows.

    ``row_at(ledger line)`` gives the whole ledger row of a citation whose document changed or is
    missing (the only rows looked at one by one); ``io.ledger_file.LedgerRead.row`` reads it again
    from its line. Raises ``IngestionError`` (``ledger_other_corpus``, ``ledger_renamed_source``).
    """
    settings = settings or MatchSettings()
    hashes = document_hashes(documents, source_maps)
    relied_on: dict[str, str | None] = {}  # io.ledger_file.ledger_sources(ledger, "citation")
    changed = set()  # documents some row recorded another hash for (string ids and hashes: no lookup can fail)
    for _, doc_id, sources, recorded, *_ in entries:  # one pass: an entry read again later costs cache misses
        for source_id, sha in sources.items():
            relied_on.setdefault(source_id, sha)
        if doc_id in hashes and hashes[doc_id] != recorded:
            changed.add(doc_id)
    check_same_corpus(relied_on, hashes)
    same = hashes.keys() - changed  # today's documents every row of which recorded today's hash
    index = build_corpus_index({d: documents[d] for d in documents if d in changed})
    passages = PassageIndex(index)
    maps = source_maps or {}

    def looked_at(line: int, doc_id: str) -> dict:  # a changed, removed or unknown document
        row = row_at(line)
        if doc_id in changed:
            return _rechecked(row, line, index, passages, settings, maps.get(doc_id))
        if row["sources"].get(doc_id) is None:  # cited an unknown document, still does
            return _row(row, line, "unchanged", row["verdict"]) | {"spans": []}
        return _row(row, line, "invalid", None) | {"spans": [], "diagnosis": {"kind": DOCUMENT_REMOVED}}

    return [
        {
            "ledger_line": line,
            "citation_id": citation_id,
            "doc_id": doc_id,
            "status": "unchanged",
            "old_verdict": verdict,
            "verdict": verdict,
            "spans": [{"start": s["start"], "end": s["end"]} for s in spans],
        }
        if doc_id in same
        else looked_at(line, doc_id)
        for line, doc_id, _, _, citation_id, verdict, spans in entries
    ]


def recheck_citations_reference(
    ledger: list[dict],
    documents: Mapping[str, str],
    settings: MatchSettings | None = None,
    source_maps: Mapping[str, object] | None = None,
) -> list:
    """``recheck_citations`` one row at a time: the executable statement of its rows (tests compare the two).

    The rows, their fields and the refusals are those ``recheck_citations`` documents (docs/recheck-rules.md).
    """
    settings = settings or MatchSettings()
    hashes = document_hashes(documents, source_maps)
    check_same_corpus(ledger_sources(ledger, "citation"), hashes)
    changed = {
        row["doc_id"]
        for row in ledger
        if row["kind"] == "citation"
        and row["doc_id"] in hashes
        and hashes[row["doc_id"]] != row["sources"].get(row["doc_id"])
    }
    index = build_corpus_index({d: documents[d] for d in documents if d in changed})
    passages = PassageIndex(index)
    out = []
    for line, row in enumerate(ledger, 1):
        if row["kind"] != "citation":
            continue
        doc_id = row["doc_id"]
        if doc_id not in hashes and row["sources"].get(doc_id) is None:  # cited an unknown document, still does
            out.append(_row(row, line, "unchanged", row["verdict"]) | {"spans": []})
        elif doc_id not in hashes:
            out.append(_row(row, line, "invalid", None) | {"spans": [], "diagnosis": {"kind": DOCUMENT_REMOVED}})
        elif doc_id not in changed:
            spans = [{"start": s["start"], "end": s["end"]} for s in row["spans"]]
            out.append(_row(row, line, "unchanged", row["verdict"]) | {"spans": spans})
        else:
            out.append(_rechecked(row, line, index, passages, settings, (source_maps or {}).get(doc_id)))
    return out
