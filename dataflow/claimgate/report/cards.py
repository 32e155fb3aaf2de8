"""One card per audited citation: verdict, quote, the source passage with its spans marked, the
nearest passage and its edits for a rejected quote, what an ellipsis left out, the judge's reasoning.

Every string taken from a row or a document goes through ``page.escaped``. A rendered page's passage is
shown as a reader sees it (its visible text), each span taken back from the file as written to the
visible characters it holds (``passage_of``); rule: docs/documents.md, "The review page's passages".
"""

from __future__ import annotations

from collections.abc import Mapping

from claimgate.io.visible_text import VisibleText
from claimgate.report.page import attribute, badge, escaped

#: Characters of the source shown on each side of the marked spans.
CONTEXT_CHARS = 160


def marked_passage(text: str, spans: list[tuple[int, int]]) -> str:
    """``text`` around ``spans`` (character offsets), each span in ``<mark>``, context elided with ``…``."""
    spans = sorted((max(0, a), min(len(text), b)) for a, b in spans if a < b)
    if not spans:
        return ""
    first, last = max(0, spans[0][0] - CONTEXT_CHARS), min(len(text), spans[-1][1] + CONTEXT_CHARS)
    pieces, position = ["…" if first else ""], first
    for a, b in spans:
        if a < position:
            continue
        pieces += [escaped(text[position:a]), f"<mark>{escaped(text[a:b])}</mark>"]
        position = b
    pieces += [escaped(text[position:last]), "…" if last < len(text) else ""]
    return "".join(pieces)


def passage_of(
    doc_id: str, spans: list[tuple[int, int]], documents: Mapping[str, str], maps: Mapping[str, object] | None
) -> tuple[str, list[tuple[int, int]]] | None:
    """The text a card shows for ``doc_id`` and ``spans`` (``[start, end)`` pairs of a row) within it.

    A row's spans of a Markdown or reStructuredText page slice the file as written (``raw_spans``):
    when ``maps[doc_id]`` is its ``VisibleText``, the page shows ``text`` (what a reader sees) and each
    span becomes the visible characters it holds (``VisibleText.visible_span``). Any other document
    (plain text, HTML, PDF, a corpus file) shows ``documents[doc_id]``, whose characters its spans
    already index. ``None`` when the document is neither. Offsets are characters.
    """
    visible = (maps or {}).get(doc_id)
    if isinstance(visible, VisibleText):
        return visible.text, [visible.visible_span(a, b) for a, b in spans]
    if doc_id in documents:
        return documents[doc_id], spans
    return None


def _section(label: str, content: str) -> str:
    return f'<div class="label">{escaped(label)}</div><div class="passage">{content}</div>' if content else ""


def _edits(edits: list[dict]) -> str:
    if not edits:
        return ""
    rows = "".join(
        f"<tr><td>{escaped(e.get('op'))}</td><td>{escaped(e.get('quote'))}</td><td>{escaped(e.get('source'))}</td></tr>"
        for e in edits
    )
    return (
        '<div class="label">edits (quote → source)</div><table class="edits">'
        f"<tr><th>edit</th><th>quote has</th><th>source has</th></tr>{rows}</table>"
    )


def citation_card(row: dict, documents: dict, maps: Mapping[str, object] | None = None, note: str = "") -> str:
    """The card of one audit row (``audit_rows``/``Audit.check`` fields), filterable by verdict and reason.

    ``documents``: the run's ``{doc_id: text}``; ``maps``: its ``{doc_id: VisibleText | PdfPages}``
    (``AuditRun.source_maps``), so a rendered page's passage is marked where its spans are (``passage_of``).
    ``note`` (plain text, escaped here) is a line under the cited document (a recheck's ledger line).
    """
    verdict, reason = str(row.get("verdict")), str(row.get("reason"))
    parts = [
        f'<div class="card v-{attribute(verdict)}" data-verdict="{attribute(verdict)}" '
        f'data-reason="{attribute(reason)}">',
        f"<h3>{escaped(row.get('citation_id'))} {badge(verdict)} <code>{escaped(reason)}</code></h3>",
        f"<div>cited document: <code>{escaped(row.get('doc_id'))}</code></div>",
        f"<div>{escaped(note)}</div>" if note else "",
        _section("quote", escaped(row.get("quote", ""))),
    ]
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for span in row.get("spans") or []:
        by_doc.setdefault(span["doc_id"], []).append((span["start"], span["end"]))
    for doc_id, spans in by_doc.items():
        shown = passage_of(doc_id, spans, documents, maps)
        if shown is not None:
            parts.append(_section(f"source passage in {doc_id}", marked_passage(*shown)))
    offsets = row.get("offsets") or {}
    if offsets.get("checked"):
        stated = "at the stated offsets" if offsets["at_offsets"] else "NOT at the stated offsets"
        where = ", ".join(str(at) for at in offsets["found_at"]) or "nowhere in that document"
        text = f"{offsets['start']}–{offsets['end']}: {stated}; the exact text occurs at: {where}"
        parts.append(_section("provider offsets (characters)", escaped(text)))
    diagnosis = row.get("diagnosis")
    if diagnosis:
        parts.append(f'<div class="label">diagnosis</div><div><code>{escaped(diagnosis.get("kind"))}</code></div>')
        nearest = diagnosis.get("nearest")
        where = [(nearest["start"], nearest["end"])] if nearest else []
        shown = passage_of(nearest.get("doc_id"), where, documents, maps) if nearest else None
        if shown is not None:
            parts.append(_section(f"nearest passage in {nearest['doc_id']}", marked_passage(*shown)))
        parts.append(_edits(diagnosis.get("edits") or []))
    elided = [e for e in row.get("elided") or [] if e.get("text")]
    if elided:
        text = "\n".join(f"[{e.get('position')}] {e['text']}" for e in elided)
        parts.append(_section("left out by the ellipses", escaped(text)))
    judge = row.get("judge")
    if judge:
        text = f"{judge.get('verdict')} (confidence {judge.get('confidence')}): {judge.get('reasoning')}"
        parts.append(_section("judge", escaped(text)))
    parts.append("</div>")
    return "".join(parts)
