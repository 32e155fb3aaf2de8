"""One quote against one source document, by both matchers: the helper the matching-rule tests share."""

from __future__ import annotations

from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference

FOUND = ("found", "verbatim_match")


def verdict(quote: str, source: str) -> tuple[str, str]:
    """``(verdict, reason)`` of ``quote`` cited to the one document ``source``; the fast and the reference
    matcher must agree on the whole result."""
    index = build_corpus_index({"d": source})
    fast = audit_quote(quote, "d", index)
    assert fast == audit_quote_reference(quote, "d", index)
    return fast["verdict"], fast["reason"]
