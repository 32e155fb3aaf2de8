"""The review pages: an audit's citations, an answer's claims, a gate run's cases, a recheck's rows."""

from __future__ import annotations

import re

from claimgate.report.cards import citation_card
from claimgate.report.page import attribute, badge, escaped, filter_bar, page

#: Gate cases drawn with their decision picture on one page (each picture is rendered once).
MAX_CASE_PICTURES = 200


def audit_page(rows: list[dict], documents: dict, title: str = "Citation audit", maps: dict | None = None) -> str:
    """The page of an audit: a filter bar and one card per row (``audit_rows`` dicts), in row order.

    ``maps``: the run's ``{doc_id: VisibleText | PdfPages}`` (``AuditRun.source_maps``), so a rendered
    page's passages are shown as read, marked where the spans are (``cards.passage_of``).
    """
    body = filter_bar([str(r.get("verdict")) for r in rows], [str(r.get("reason")) for r in rows])
    body += "".join(citation_card(row, documents, maps) for row in rows) or "<p>no citations</p>"
    return page(title, body)


def coloured_answer(result: dict) -> str:
    """The answer's text with each claim in a ``span`` coloured by its status (text between claims as is)."""
    text, pieces, position = result["text"], [], 0
    for claim in sorted(result["claims"], key=lambda c: c["start"]):
        if claim["start"] < position:
            continue
        status = attribute(claim["status"])
        tip = attribute(f"{claim['claim_id']}: {claim['status']} ({claim['reason']}) {claim.get('detail', '')}")
        pieces += [
            escaped(text[position : claim["start"]]),
            f'<span class="claim {status}" title="{tip}">{escaped(text[claim["start"] : claim["end"]])}</span>',
        ]
        position = claim["end"]
    pieces.append(escaped(text[position:]))
    return f'<div class="answer">{"".join(pieces)}</div>'


def answer_page(result: dict, documents: dict, title: str = "Answer audit", maps: dict | None = None) -> str:
    """The page of an answer (``answer_result``): verdict, the coloured answer, each claim with its cards
    (``maps`` as for ``audit_page``)."""
    rows = [c for claim in result["claims"] for c in claim["citations"]]
    failing = ", ".join(result["failing_claims"]) or "none"
    body = [
        f"<h2>answer {badge(result['verdict'])} <code>{escaped(result['reason'])}</code></h2>",
        f"<p>policy <code>{escaped(result['policy'])}</code>; failing claims: {escaped(failing)}</p>",
        coloured_answer(result),
        filter_bar([str(r["verdict"]) for r in rows], [str(r["reason"]) for r in rows]),
    ]
    for claim in result["claims"]:
        body.append(
            f"<h3>{escaped(claim['claim_id'])} {badge(claim['status'])} <code>{escaped(claim['reason'])}</code></h3>"
            f"<p>{escaped(claim['text'])}</p>" + (f"<p>{escaped(claim['detail'])}</p>" if claim.get("detail") else "")
        )
        body += [citation_card(row, documents, maps) for row in claim["citations"]]
    return page(title, "".join(body))


def safe_svg(svg: str | None) -> str | None:
    """An SVG picture for inline use (from its ``<svg`` on), or None when absent or holding script or handlers."""
    if not svg or "<svg" not in svg:
        return None
    svg = svg[svg.index("<svg") :]
    if re.search(r"<\s*script|\son\w+\s*=|javascript:|<\s*foreignObject", svg, flags=re.I):
        return None
    return svg


def case_card(entry: dict, svg: str | None) -> str:
    """One gate case: status, reason, the claims (``source:line`` and directive line), its picture."""
    result = entry["result"]
    status, reason = str(result.get("status")), str(result.get("reason"))
    lines = [f"{c.get('source_id')}:{c.get('start_line')}: {c.get('quote')}" for c in result.get("claims") or []]
    label = "conflicting directive lines" if status == "conflict" else "claims"
    parts = [
        f'<div class="card v-{attribute(status)}" data-verdict="{attribute(status)}" '
        f'data-reason="{attribute(reason)}">',
        f"<h3>{escaped(entry.get('case_id'))} {badge(status)} <code>{escaped(reason)}</code></h3>",
        f"<div>decided at <code>{escaped(result.get('decided_at'))}</code>; candidates "
        f"{escaped(', '.join(map(str, entry.get('candidate_ids') or [])))}</div>",
    ]
    if lines:
        parts.append(f'<div class="label">{label}</div><div class="passage">{escaped(chr(10).join(lines))}</div>')
    if entry.get("detail"):
        parts.append(f'<div class="label">detail</div><div class="passage">{escaped(entry["detail"])}</div>')
    if svg is not None:
        parts.append(f'<div class="label">decision picture</div><div class="picture">{svg}</div>')
    parts.append("</div>")
    return "".join(parts)


def gate_page(entries: list[dict], pictures: dict[int, str | None] | None = None, title: str = "Gate run") -> str:
    """The page of a gate run: one card per case entry (``{case_id, candidate_ids, result[, detail]}``).

    ``pictures`` maps an entry's position in ``entries`` to its decision picture's SVG text
    (``safe_svg`` keeps only pictures with no script).
    """
    pictures = pictures or {}
    statuses = [str(e["result"].get("status")) for e in entries]
    reasons = [str(e["result"].get("reason")) for e in entries]
    cards = [case_card(e, safe_svg(pictures.get(i))) for i, e in enumerate(entries)]
    return page(title, filter_bar(statuses, reasons, "status") + ("".join(cards) or "<p>no cases</p>"))


#: The statuses whose row's spans slice today's cited document (a recheck row; docs/recheck-rules.md).
SPANS_IN_TODAYS_TEXT = ("unchanged", "intact")


def recheck_card(row: dict, quote: str, reason: str, documents: dict, maps: dict | None = None) -> str:
    """One recheck row as an audit card: the status as its badge, ``reason`` beside it (a summary's reason,
    ``audit.recheck_statuses.row_reason``), the quote from the ledger, the passage its spans mark in today's
    document (``unchanged``/``intact`` rows), or the diagnosis with today's nearest passage and edits
    (``invalid``); ``not_held`` and removed documents show the quote and their recorded verdict only."""
    status = str(row["status"])
    if "case_id" in row:  # a prepared request's row: its decision then and now
        card = {"citation_id": row["case_id"], "verdict": status, "reason": reason}
        was = f"{row.get('old_status')} ({row.get('old_reason')}, value {row.get('old_value')})"
        now = f"{row.get('new_status')} ({row.get('new_reason')}, value {row.get('new_value')})"
        return citation_card(card, documents, maps, note=f"ledger line {row.get('ledger_line')}: was {was}, now {now}")
    spans = (row.get("spans") or []) if status in SPANS_IN_TODAYS_TEXT else []
    card = {
        "citation_id": row.get("citation_id"),
        "verdict": status,
        "reason": reason,
        "doc_id": row.get("doc_id"),
        "quote": quote,
        "spans": [{"doc_id": row.get("doc_id"), "start": s["start"], "end": s["end"]} for s in spans],
        "diagnosis": row.get("diagnosis") if (row.get("diagnosis") or {}).get("nearest") else None,
    }
    moved = " (moved)" if row.get("moved") else ""
    now = "not audited again: it did not hold then" if status == "not_held" else f"now {row.get('verdict')}{moved}"
    note = f"ledger line {row.get('ledger_line')}: audited {row.get('old_verdict')}, {now}"
    return citation_card(card, documents, maps, note=note)


def recheck_page(rows: list[dict], quotes: dict[int, str], reasons: list[str], documents: dict, maps: dict,
                 title: str = "Recheck") -> str:  # fmt: skip
    """The recheck's review page: one :func:`recheck_card` per row (``quotes`` by 1-based ledger line,
    ``reasons`` in row order), filterable by status and reason; self-contained, everything escaped."""
    cards = [
        recheck_card(row, quotes.get(row["ledger_line"], ""), reason, documents, maps)
        for row, reason in zip(rows, reasons)
    ]
    statuses = [str(r["status"]) for r in rows]
    return page(title, filter_bar(statuses, reasons, "status") + ("".join(cards) or "<p>no ledger rows</p>"))
