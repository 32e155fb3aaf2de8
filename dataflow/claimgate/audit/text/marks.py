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
from bisect import bisect_left

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
#: The alternatives of :data:`ELLIPSIS_RE`, grouped by their first character: a text holds a match of
#: :data:`ELLIPSIS_RE` exactly where it holds a match of one of these. Each starts with a literal
#: character, which the regex engine scans for (the alternation tries every position).
_ELLIPSIS_PARTS = (
    re.compile(r"\[\s*(?:\.\s*){3,}\]|\[\s*…\s*\]"),
    re.compile("…"),
    re.compile(r"\.(?:[ \t\u00a0]?\.){2,}"),
)
BRACKET_RE = re.compile(r"\[([^\[\]]*)\]")


def fold_ellipses(quote: str) -> str:
    """``quote`` with every dot spelling of :data:`DOT_SPELLINGS` written as full stops.

    Applied before ellipses are looked for, so ``⋯⋯``, ``．．．`` and ``…`` are ellipses
    like ``...``; no token changes (dots are separators either way). An ASCII text holds no such
    spelling and is returned as is.
    """
    if quote.isascii():
        return quote
    return _DOT_SPELLING_RE.sub(lambda m: DOT_SPELLINGS[m.group()], quote)


def ellipsis_starts(text: str) -> list[int]:
    """Start positions (characters, ascending) of the matches of :data:`ELLIPSIS_RE`'s alternatives in ``text``.

    A stretch of ``text`` holds a match of :data:`ELLIPSIS_RE` exactly when one of these
    positions starts a match inside it (the alternatives are searched one by one, each
    from its literal first character; matches of different alternatives may overlap).
    The corpus index build uses it to find the documents with an ellipsis of their own.
    """
    return sorted(m.start() for part in _ELLIPSIS_PARTS for m in part.finditer(text))


def bracket_texts(source: str) -> frozenset[str]:
    """Every bracket of ``source`` as written (``[i]``, ``[int, ...]``); an innermost bracket if nested."""
    return frozenset(m.group() for m in BRACKET_RE.finditer(source)) if "[" in source else frozenset()


#: A footnote marker fused to the word before it: ``rate[4]``, ``rose[^2]``, ``cases[3, 7]``,
#: ``data[12–14]`` (docs/audit-rules.md, "Footnote markers").
#: The marker's numbers start at 1 and a word or a sentence's punctuation follows it (so ``x[0] = 1`` and
#: ``a[1][2]`` are no markers).
FOOTNOTE_RE = re.compile(
    r"(?<=[^\W\d_])\[\^?[1-9]\d{0,2}(?:\s?[,\u2013-]\s?[1-9]\d{0,2})*\](?=[ \t]*[^\W\d_]|[.,;:]?(?:\s|$))"
)


#: Where a footnote marker can start: its bracket, an optional caret and its first digit (a literal scan).
_FOOTNOTE_OPEN_RE = re.compile(r"\[\^?[1-9]")


def has_footnote_marker(text: str) -> bool:
    """``FOOTNOTE_RE.search(text) is not None``, trying the pattern only where a marker's bracket opens.

    The pattern starts with a look-behind, which the regex engine tries at every position;
    here it is tried at each ``[`` followed by ``^?[1-9]`` (its look-behind still reads the
    character before). Equal to the plain search on every text (tests/audit/text/test_marks.py).
    """
    return "[" in text and any(FOOTNOTE_RE.match(text, m.start()) for m in _FOOTNOTE_OPEN_RE.finditer(text))


def footnote_markers(original: str, starts, ends) -> list[tuple[int, int]]:
    """Token ranges ``(first, end)`` (end exclusive) of the footnote markers of a normalized text.

    ``starts``/``ends``: the tokens' character offsets into ``original``. A marker followed by
    no token (at the text's end) is left out: a quote cannot skip into nothing.
    """
    if "[" not in original:
        return []
    out: list[tuple[int, int]] = []
    for m in FOOTNOTE_RE.finditer(original):
        line_start = original.rfind("\n", 0, m.start()) + 1
        if original.count("`", line_start, m.start()) % 2:
            continue  # inside a backtick span: code
        first = bisect_left(starts, m.start())
        end = bisect_left(starts, m.end())
        if first < end < len(starts) and ends[end - 1] <= m.end():
            out.append((first, end))
    return out


def footnote_alternatives(original: str, starts, ends, ids, joined: dict) -> dict:
    """``joined`` (position -> joined-word readings) plus one reading per footnote marker.

    At a marker's first token the word after it may be read in its place, ending after that
    word (``rate [4] rose`` also reads ``rate rose``), so a quote that leaves the marker out
    matches. ``ids``: the tokens' ids. A new dict; ``joined`` is not changed.
    """
    markers = footnote_markers(original, starts, ends)
    if not markers:
        return joined
    out = dict(joined)
    for first, end in markers:
        out[first] = tuple(out.get(first, ())) + ((ids[end], end + 1),)
    return out
