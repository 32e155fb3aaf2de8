"""Line arithmetic shared by the gate and the audit.

A *line* is what ``str.splitlines`` yields: the boundaries are ``\\n``, ``\\r\\n``,
``\\r``, ``\\v``, ``\\f``, ``\\x1c``-``\\x1e``, ``\\x85``, U+2028 and U+2029 (Python's
universal line boundaries). Line numbers are 1-based; offsets are character (code
point) offsets into the decoded text, never byte offsets.
"""

from __future__ import annotations

import bisect

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
