"""The audit's result rows: verdict dicts, spans and what an ellipsis left out.

Why this module exists: a verdict is only useful with the exact place in the
original document it rests on, so every found or misattributed quote carries
spans in original characters and 1-based lines, and (when asked) what each
ellipsis left out. Rules: docs/audit-rules.md, "Ellipses and brackets".
"""

from __future__ import annotations

from claimgate.audit.index.types import IndexedDocument
from claimgate.audit.matching.quote_parsing import EDGE_ELISION_TOKENS, ParsedQuote
from claimgate.audit.text.marks import footnote_markers
from claimgate.textlines import LineIndex


def verdict_row(verdict: str, reason: str, match_kind: str | None, matched: list[str], spans: list[dict]) -> dict:
    """The result of one audit, keys in their interface order (see :mod:`claimgate.audit.matching.audit`)."""
    return {
        "verdict": verdict,
        "reason": reason,
        "match_kind": match_kind,
        "matched_doc_ids": matched,
        "spans": spans,
    }


def span_of(doc: IndexedDocument, lines: LineIndex, start: int, stop: int) -> dict:
    """``{doc_id, start, end, start_line, end_line, text}`` for original characters ``start:stop``."""
    start_line, end_line = lines.span_lines(start, stop)
    return {
        "doc_id": doc.doc_id,
        "start": start,
        "end": stop,
        "start_line": start_line,
        "end_line": end_line,
        "text": doc.original[start:stop],
    }


def spans_of(doc: IndexedDocument, chain: list[tuple[int, int]]) -> list[dict]:
    """One span per placed fragment (``(first token, end token)`` pairs), in quote order."""
    lines = LineIndex(doc.original)
    return [span_of(doc, lines, doc.starts[first], doc.ends[end - 1]) for first, end in chain]


def elided_of(doc: IndexedDocument, chain: list[tuple[int, int]], parsed: ParsedQuote) -> list[dict]:
    """What each ellipsis of a placed quote leaves out, in quote order.

    See docs/audit-rules.md, "Ellipses and brackets".
    One entry per ellipsis: ``position`` (``before`` the first fragment, ``between``
    two fragments, ``after`` the last), and one per footnote marker a fragment's span holds
    and the quote leaves out (``marker``; docs/audit-rules.md, "Footnote markers"), each a
    span like :func:`spans_of` gives (original characters, 1-based lines). Between fragments
    it is every source token between them; at an edge it is the up to :data:`EDGE_ELISION_TOKENS` source tokens the
    negation check looked at (what lies further out is not known to be elided). No
    tokens: an empty span (``start == end``) where they would be.
    """
    lines = LineIndex(doc.original)

    def tokens(lo: int, hi: int, at: int) -> dict:
        if lo >= hi:
            return span_of(doc, lines, at, at)
        return span_of(doc, lines, doc.starts[lo], doc.ends[hi - 1])

    out = []
    first_start, last_end = chain[0][0], chain[-1][1]
    if parsed.lead_elided:
        out.append({"position": "before", **tokens(max(0, first_start - EDGE_ELISION_TOKENS), first_start,
                                                   doc.starts[first_start])})  # fmt: skip
    for (_, end), (start, _) in zip(chain, chain[1:]):
        out.append({"position": "between", **tokens(end, start, doc.ends[end - 1])})
    if parsed.trail_elided:
        stop = min(doc.n_tokens, last_end + EDGE_ELISION_TOKENS)
        out.append({"position": "after", **tokens(last_end, stop, doc.ends[last_end - 1])})
    markers = footnote_markers(doc.original, doc.starts, doc.ends)
    if markers:
        ids = memoryview(doc.token_bytes).cast("i")
        for (start, end), fragment in zip(chain, parsed.fragments):
            quoted = {i for segment in fragment.segments for i in segment.token_ids}
            for first, stop in markers:
                if start < first and stop < end and not set(ids[first:stop]) <= quoted:
                    out.append({"position": "marker", **tokens(first, stop, doc.starts[first])})
        out.sort(key=lambda entry: entry["start"])
    return out


def with_elided(result: dict, elided: list[dict]) -> dict:
    """``result`` with ``elided`` as its last key (dropped again unless a caller asks for it)."""
    result["elided"] = elided
    return result
