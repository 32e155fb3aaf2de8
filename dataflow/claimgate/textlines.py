"""Line arithmetic shared by the gate and the audit, and which characters a page or picture shows as tags.

A *line* is what ``str.splitlines`` yields: the boundaries are ``\\n``, ``\\r\\n``,
``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029 (Python's
universal line boundaries). Line numbers are 1-based; offsets are character (code
point) offsets into the decoded text, never byte offsets.
"""

from __future__ import annotations

import bisect
import unicodedata

#: Unicode categories a page or picture shows as a visible ``⟨U+XXXX⟩`` tag instead of the character (tab and
#: newline are kept): controls, format characters (bidi overrides such as U+202E, zero-width ones),
#: surrogates, private use, line and paragraph separators. Shown, not removed, so a reviewer sees them.
SHOWN_CATEGORIES = ("Cc", "Cf", "Cs", "Co", "Zl", "Zp")


def shown_as_tag(ch: str) -> bool:
    """Whether a page or picture shows the character ``ch`` as a ``⟨U+XXXX⟩`` tag: its category is one of
    :data:`SHOWN_CATEGORIES`, and it is not a tab or a newline."""
    return unicodedata.category(ch) in SHOWN_CATEGORIES and ch not in "\t\n"


def visible_controls(text: str) -> str:
    """``text`` (plain text, for a picture's one-line title) with each character of :data:`SHOWN_CATEGORIES`
    written as ``⟨U+XXXX⟩``, tab and newline too (a title is one line; unlike a page, which keeps them): a case
    id holding U+202E cannot reverse the title it is drawn in, nor a newline break the picture's DOT text."""
    if text.isascii() and text.isprintable():
        return text
    return "".join(f"⟨U+{ord(ch):04X}⟩" if unicodedata.category(ch) in SHOWN_CATEGORIES else ch for ch in text)


#: Every character ``str.splitlines`` ends a line at (``"\r\n"`` is one terminator of two of them).
LINE_TERMINATORS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"


class LineIndex:
    """Maps character offsets of one text to 1-based line numbers in O(log lines)."""

    def __init__(self, text: str) -> None:
        starts = [0]
        offset = 0
        for raw in text.splitlines(keepends=True):
            offset += len(raw)
            starts.append(offset)
        # The last entry is len(text); a text ending in a terminator has an empty last line
        # that is not counted by splitlines, so drop the sentinel.
        self._starts = starts[:-1] if len(starts) > 1 else starts

    def line_of(self, offset: int) -> int:
        """1-based line number of the character at ``offset`` (0 <= offset <= len(text))."""
        return bisect.bisect_right(self._starts, offset)

    def span_lines(self, start: int, end: int) -> tuple[int, int]:
        """``(start_line, end_line)`` of the non-empty span ``text[start:end]`` (1-based, inclusive)."""
        return self.line_of(start), self.line_of(max(start, end - 1))
