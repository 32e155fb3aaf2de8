"""What an answer's claims are worth: provider offsets, claim statuses, the answer's verdict.

Why: an answer is only as good as its worst claim. A claim is ``supported`` when it has at
least one citation and every one of them passed the audit (``found``, or ``supports`` where a
judge ran) at the place the provider said; ``unsupported`` when a citation failed; ``uncited``
when it has none. The answer is ``accepted`` only when every claim is supported (the
``connective`` policy also lets short uncited connective claims through), else ``refused``,
naming the claims that failed. Rules: docs/answer-rules.md, "Claims and the answer's verdict".

What it refuses to do: shorten an answer silently. ``annotated_markdown`` marks every failing
claim in place with its status and reason; ``stripped_markdown`` (opt-in) removes them and
lists each one it removed.
"""

from __future__ import annotations

import re

from claimgate.audit.answer.sentences import FENCE, closes_fence

CLAIM_STATUSES = ("supported", "unsupported", "uncited")
ANSWER_VERDICTS = ("accepted", "refused")
POLICIES = ("strict", "connective")
#: A citation passes with one of these verdicts (the gate's ``found``; a judge's ``supports``).
PASSING_VERDICTS = ("found", "supports")
#: The ``connective`` policy: an uncited claim is allowed when it has at most this many words,
#: no digit, no inline code and is not a code block or heading.
CONNECTIVE_MAX_WORDS = 12
CONNECTIVE_KINDS = ("sentence", "list_item", "text_block")
#: At most this many other places are listed for a cited text not at its stated offsets.
MAX_PLACES = 5


def offset_check(location: dict | None, quote: str, text: str | None) -> dict | None:
    """Whether a provider citation's ``quote`` is at its stated offsets in the document ``text``.

    ``None`` for a citation without a location (plain format). For ``char_location``:
    ``{"unit": "characters", "start", "end", "at_offsets": bool, "text_at_offsets": str,
    "found_at": [start, …]}`` (``text[start:end] == quote`` exactly; ``found_at``: where the
    exact text occurs in the document, at most ``MAX_PLACES``). Other location types, and a
    document not in the corpus: ``{"unit": …, "checked": False}`` (page and block offsets cannot
    be mapped to extracted text; the quote is still audited).
    """
    if location is None:
        return None
    if location["type"] != "char_location" or text is None:
        return {"unit": location["type"], "checked": False}
    start, end = location["start"], location["end"]
    places, at = [], text.find(quote) if quote else -1
    while at >= 0 and len(places) < MAX_PLACES:
        places.append(at)
        at = text.find(quote, at + 1)
    stated = text[start:end] if 0 <= start <= end <= len(text) else ""
    return {
        "unit": "characters",
        "checked": True,
        "start": start,
        "end": end,
        "at_offsets": stated == quote,
        "text_at_offsets": stated,
        "found_at": places,
    }


def claim_status(claim: dict, citations: list[dict]) -> tuple[str, str]:
    """``(status, reason)`` of one claim from its citations' audit rows (each with ``verdict``, ``offsets``).

    In order: a marker with no citation (``marker_without_citation``), no citation
    (``uncited``/``no_citation``), a cited text not at its offsets (``cited_text_not_at_offsets``,
    even when the text occurs elsewhere), a citation that did not pass (``citation_rejected``), else
    ``supported``/``citations_found``.
    """
    if claim["missing_markers"]:
        return "unsupported", "marker_without_citation"
    if not citations:
        return "uncited", "no_citation"
    if any((c.get("offsets") or {}).get("at_offsets") is False for c in citations):
        return "unsupported", "cited_text_not_at_offsets"
    if any(c["verdict"] not in PASSING_VERDICTS for c in citations):
        return "unsupported", "citation_rejected"
    return "supported", "citations_found"


def claim_detail(claim: dict, citations: list[dict], reason: str) -> str:
    """A one-line explanation of a failing claim's reason ("" for a supported or uncited one).

    Names the markers without a citation, the citation whose text is not at its offsets (with
    where it is found instead, or that it is nowhere), or each rejected citation's verdict and reason.
    """
    if reason == "marker_without_citation":
        return "no citation carries " + ", ".join(f"[{m}]" for m in claim["missing_markers"])
    if reason == "cited_text_not_at_offsets":
        parts = []
        for c in citations:
            offsets = c.get("offsets") or {}
            if offsets.get("at_offsets") is False:
                where = ", ".join(str(at) for at in offsets["found_at"])
                place = f"found at {where}" if where else "not found in that document at all"
                parts.append(
                    f"{c['citation_id']}: not at {offsets['start']}-{offsets['end']} of {c['doc_id']}; {place}"
                )
        return "; ".join(parts)
    if reason == "citation_rejected":
        failed = [c for c in citations if c["verdict"] not in PASSING_VERDICTS]
        return "; ".join(f"{c['citation_id']}: {c['verdict']} ({c['reason']})" for c in failed)
    return ""


def is_connective(claim: dict) -> bool:
    """Whether an uncited claim may pass under the ``connective`` policy (``CONNECTIVE_MAX_WORDS``…)."""
    text = claim["text"]
    words = re.findall(r"\w+", text)
    return (
        claim["kind"] in CONNECTIVE_KINDS
        and len(words) <= CONNECTIVE_MAX_WORDS
        and not re.search(r"\d", text)
        and "`" not in text
    )


def answer_verdict(claims: list[dict], policy: str = "strict") -> tuple[str, str, list[str]]:
    """``(verdict, reason, failing claim ids)`` from claims with ``status`` (and ``kind``, ``text``).

    ``strict`` (default): ``accepted``/``every_claim_supported`` only when every claim is
    supported. ``connective``: uncited connective claims (``is_connective``) do not fail the answer
    (``uncited_connectives_allowed`` when one was let through). No claim at all is ``refused``
    (``no_claims``); otherwise a failing claim refuses it (``claims_failed``). Raises
    ``ValueError`` for an unknown policy.
    """
    if policy not in POLICIES:
        raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
    if not claims:
        return "refused", "no_claims", []
    allowed = [c for c in claims if c["status"] == "uncited" and policy == "connective" and is_connective(c)]
    failing = [c["claim_id"] for c in claims if c["status"] != "supported" and c not in allowed]
    if failing:
        return "refused", "claims_failed", failing
    return "accepted", "uncited_connectives_allowed" if allowed else "every_claim_supported", []


#: Claim kinds whose last line cannot hold the mark: after a code block's closing fence (or the last line
#: of an unclosed one) any text keeps the fence open or lands in the code, and the rest of the answer with it.
MARKED_APART = ("code",)


def _closing_fence(code: str, indent: str) -> str:
    """``""`` for a fenced code block that ends in its closing fence (``sentences.closes_fence``); for an
    unclosed one (it runs to the end of the answer, where a renderer closes it), ``"\\n"`` and a fence that
    closes it, indented as the opening one (``indent``), so a mark after it is not code."""
    lines = code.splitlines()
    fence = FENCE.match(lines[0]) if lines else None
    if fence is None or (len(lines) > 1 and closes_fence(lines[-1], fence.group(2))):
        return ""
    return "\n" + indent + fence.group(2)


def _indent(text: str, start: int) -> str:
    """The white space before ``start`` on its line: a mark after a code block in a list item stays in the item."""
    line_start = text.rfind("\n", 0, start) + 1
    before = text[line_start:start]
    return before if not before.strip() else " " * (len(before) - len(before.lstrip()))


def annotated_markdown(text: str, claims: list[dict]) -> str:
    """The answer ``text`` with `` **[⚠ status: reason — detail]**`` after every claim that is not supported.

    The mark follows the claim on its line; after a claim of a kind in :data:`MARKED_APART` (a code
    block) it is a paragraph of its own, after a blank line (and after the closing fence of a block
    left open), so the block still ends where it did and the mark is read as Markdown, not as code.
    """
    pieces, position = [], 0
    for claim in sorted(claims, key=lambda c: c["start"]):
        if claim["status"] == "supported":
            continue
        detail = f" — {claim['detail']}" if claim.get("detail") else ""
        mark = f"**[⚠ {claim['status']}: {claim['reason']}{detail}]**"
        tail = f" {mark}"
        if claim.get("kind") in MARKED_APART:
            indent = _indent(text, claim["start"])
            tail = f"{_closing_fence(claim['text'], indent)}\n\n{indent}{mark}\n"
        pieces += [text[position : claim["end"]], tail]
        position = claim["end"]
    return "".join([*pieces, text[position:]])


def stripped_markdown(text: str, claims: list[dict], remove: list[str]) -> str:
    """The answer ``text`` without the claims of ``remove`` (ids), followed by a list of what was removed."""
    gone = sorted((c for c in claims if c["claim_id"] in remove), key=lambda c: c["start"])
    pieces, position = [], 0
    for claim in gone:
        pieces.append(text[position : claim["start"]])
        position = claim["end"]
    kept = "".join([*pieces, text[position:]])
    kept = re.sub(r"[ \t]+\n", "\n", re.sub(r"[ \t]{2,}", " ", kept)).strip()
    if not gone:
        return kept + "\n"
    listing = [f"- {c['claim_id']} ({c['status']}: {c['reason']}): {c['text']}" for c in gone]
    return "\n".join([kept, "", "---", f"Removed {len(gone)} claim(s):", *listing]) + "\n"
