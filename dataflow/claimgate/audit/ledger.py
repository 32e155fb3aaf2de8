"""Ledger rows of an audit: what each citation relied on (docs/recheck-rules.md, "The ledger").

One row per citation: the corpus identity (:func:`corpus_identity`), the cited document's id and
SHA-256 (of its text as audited, UTF-8; of its file as written for a rendered page:
:func:`document_hashes`), the quote, the audit's verdict and reason, the spans (the output row's:
characters ``[start, end)`` of the text as audited, or of the file as written for a rendered page) and
a fingerprint of the cited text as the reader sees it: its normalized tokens (``claimgate.audit.text``,
the audit's own normalizer) with :data:`NEIGHBOURS` tokens on each side.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable, Mapping

from claimgate.audit.text.normalize import normalize_text
from claimgate.io.ledger_file import corpus_identity
from claimgate.io.visible_text import VisibleText

#: Normalized tokens kept on each side of the cited text in a fingerprint.
NEIGHBOURS = 3


def text_sha256(text: str) -> str:
    """SHA-256 hex of a document's text as audited (UTF-8; a lone surrogate written as its escape)."""
    return hashlib.sha256(text.encode("utf-8", "backslashreplace")).hexdigest()


def document_hashes(documents: Mapping[str, str], source_maps: Mapping[str, object] | None = None) -> dict[str, str]:
    """``{doc_id: text_sha256}`` of every document, taken on the file as written for a rendered page.

    A rendered page (``source_maps[doc_id]`` an ``io.visible_text.VisibleText``) is hashed on its ``raw``
    text, not its visible text: its spans are offsets into the file as written, so an edit that leaves the
    visible text alone (a link target) but moves the raw offsets must not read as ``unchanged``
    (docs/recheck-rules.md, "The ledger").
    """
    maps = source_maps or {}
    return {
        doc_id: text_sha256(maps[doc_id].raw if isinstance(maps.get(doc_id), VisibleText) else text)
        for doc_id, text in documents.items()
    }


def fingerprint(text: str, spans: list[dict], tokens_of=None, source_map: object = None) -> dict:
    """``{"tokens", "before", "after"}``: normalized tokens inside ``spans`` of ``text``, and neighbours.

    ``text`` is the document as audited; ``spans`` are ``{start, end}`` in its characters, or, for a
    rendered page (``source_map`` its ``io.visible_text.VisibleText``, ``text`` its visible text), in
    characters of the file as written, as the audit's rows give them: each is first taken back to the
    visible characters it shows (``VisibleText.visible_span``), so the tokens and their neighbours are the
    ones the reader sees (a link target or markup beside the quote is not one). ``tokens_of`` (optional)
    is ``text``'s ``normalize_text`` result, or anything with its ``tokens`` and ``starts``
    (``audit.recheck.indexed_tokens``). Empty lists when there is no span.
    Rules: docs/recheck-rules.md, "The ledger".
    """
    if not spans:
        return {"tokens": [], "before": [], "after": []}
    if isinstance(source_map, VisibleText):
        spans = [dict(zip(("start", "end"), source_map.visible_span(s["start"], s["end"]))) for s in spans]
    norm = tokens_of if tokens_of is not None else normalize_text(text)
    starts = norm.starts
    inside = [
        norm.tokens[i]
        for span in spans
        for i in range(bisect.bisect_left(starts, span["start"]), bisect.bisect_left(starts, span["end"]))
    ]
    first = bisect.bisect_left(starts, spans[0]["start"])
    last = bisect.bisect_left(starts, spans[-1]["end"])
    before = list(norm.tokens[max(0, first - NEIGHBOURS) : first])
    return {"tokens": inside, "before": before, "after": list(norm.tokens[last : last + NEIGHBOURS])}


def citation_ledger_rows(
    rows: Iterable[dict],
    quotes: Mapping[str, object],
    documents: Mapping[str, str],
    source_maps: Mapping[str, object] | None = None,
) -> list:
    """One ledger row (unsealed: ``io.ledger_file.sealed`` adds schema and checksum) per audit row.

    ``rows`` are audit rows (``execution.drivers.audit_rows``); ``quotes`` is ``{citation_id:
    quote}`` from the citation table; ``documents`` the run's ``{doc_id: text}``; ``source_maps`` the
    run's ``{doc_id: VisibleText | PdfPages}`` (``AuditRun.source_maps``), so a rendered page's
    fingerprint is taken from its visible text (``fingerprint``). A row citing an unknown document
    records ``sources`` as ``{doc_id: None}``.
    """
    maps = source_maps or {}
    hashes = document_hashes(documents, maps)
    corpus = corpus_identity(hashes)
    normalized: dict[str, object] = {}
    out = []
    for row in rows:
        doc_id = row["doc_id"]
        spans = [{"start": s["start"], "end": s["end"]} for s in row["spans"] if s["doc_id"] == doc_id]
        text = documents.get(doc_id) if isinstance(doc_id, str) else None
        if text is not None and spans and doc_id not in normalized:
            normalized[doc_id] = normalize_text(text)
        out.append(
            {
                "kind": "citation",
                "citation_id": row["citation_id"],
                "doc_id": doc_id,
                "quote": quotes.get(row["citation_id"]),
                "verdict": row["gate_verdict"],
                "reason": row["reason"],
                "corpus_sha256": corpus,
                "sources": {str(doc_id): hashes.get(doc_id) if isinstance(doc_id, str) else None},
                "spans": spans,
                "fingerprint": (
                    fingerprint(text, spans, normalized.get(doc_id), maps.get(doc_id)) if text is not None else None
                ),
            }
        )
    return out


def answer_ledger_rows(
    result: dict, documents: Mapping[str, str], source_maps: Mapping[str, object] | None = None
) -> list:
    """The ledger rows of an answer's citations (``answer_result``: each claim's ``citations``, in claim order);
    ``source_maps`` as for ``citation_ledger_rows``."""
    citations = [c for claim in result["claims"] for c in claim["citations"]]
    quotes = {c["citation_id"]: c.get("quote") for c in citations}
    return citation_ledger_rows(citations, quotes, documents, source_maps)
