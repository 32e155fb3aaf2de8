"""The editor's marks as they are written: ellipses in every dot spelling, and brackets.

Why this module exists: the quote parser (:mod:`claimgate.audit.matching.quote_parsing`),
the index builders (a document's own ellipses and brackets) and the diagnosis all
look for the same marks; their patterns live here, once. Rules: docs/audit-rules.md,
"Ellipses and brackets".

What it refuses to do: decide what a mark means (the editor's or the source's own:
that is the quote parser's reading).
"""

from __future__ import annotations

import re

#: Every spelling of dots that NFKC folds to one or more full stops (U+2024 one dot
#: leader, U+2025 two dot leader, U+2026 horizontal ellipsis, U+FE19 vertical
#: ellipsis, U+FE30 vertical two dot leader, U+FE52 small full stop, U+FF0E
#: fullwidth full stop), plus the ellipses NFKC leaves alone (U+22EF midline
#: horizontal ellipsis, U+1801 Mongolian ellipsis). See docs/audit-rules.md,
#: "Ellipses and brackets".
DOT_SPELLINGS = {
    "\u2024": ".", "\u2025": "..", "\u2026": "...", "\ufe19": "...", "\ufe30": "..", "\ufe52": ".",
    "\uff0e": ".", "\u22ef": "...", "\u1801": "...",
}  # fmt: skip
_DOT_SPELLING_RE = re.compile("[" + "".join(DOT_SPELLINGS) + "]")
ELLIPSIS_RE = re.compile(r"\[\s*(?:\.\s*){3,}\]|\[\s*…\s*\]|…|\.(?:[ \t\u00a0]?\.){2,}")
BRACKET_RE = re.compile(r"\[([^\[\]]*)\]")


def fold_ellipses(quote: str) -> str:
    """``quote`` with every dot spelling of :data:`DOT_SPELLINGS` written as full stops.

    Applied before ellipses are looked for, so ``⋯⋯``, ``．．．`` and ``…`` are ellipses
    like ``...``; no token changes (dots are separators either way).
    """
    return _DOT_SPELLING_RE.sub(lambda m: DOT_SPELLINGS[m.group()], quote)


def bracket_texts(source: str) -> frozenset[str]:
    """Every bracket of ``source`` as written (``[i]``, ``[int, ...]``); an innermost bracket if nested."""
    return frozenset(m.group() for m in BRACKET_RE.finditer(source)) if "[" in source else frozenset()
