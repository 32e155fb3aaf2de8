"""What the command line prints: fixed-width text tables, safe for cells from other people's files.

``text_table`` (the one table style of every command: counts too, through ``frame_table``), the gate's
``summary_table`` and the clipping of long cells. Widths are terminal columns measured by ``wcwidth``
(an emoji with a skin tone, ``👍🏽``, takes two; a combining mark none).
Plain text from a finished run; no decision is taken here. What the command line writes is
``cli.documents``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import wcwidth

if TYPE_CHECKING:
    import pandas as pd

    from claimgate.execution.drivers import GateRun


def display_width(text: str) -> int:
    """Terminal columns of ``text`` (``wcwidth.wcswidth``): wide, full-width and emoji sequences take two.

    Grapheme clusters count once (``👍🏽`` and ``👨‍👩‍👧`` are two columns, ``e`` with a combining accent
    one). A control character has no width of its own (``wcswidth`` says -1); each counts as the one
    column of its escape's first character, though table cells never hold one (``printable``).
    """
    width = wcwidth.wcswidth(text)
    if width >= 0:
        return width
    return sum(max(wcwidth.wcwidth(c), 1 if not c.isprintable() else 0) for c in text)


def printable(text: str) -> str:
    """``text`` with every unprintable character escaped (``\\x1b``, ``\\u2028``, ``\\ud800``): safe on a terminal.

    Table cells come from other people's files: a control character, line separator or
    lone surrogate would move the cursor, break the row or not be shown at all.
    """
    return text if text.isprintable() else text.encode("unicode_escape", "backslashreplace").decode("ascii")


def _padded(text: str, width: int) -> str:
    return text + " " * (width - display_width(text))


def text_table(rows: list[list[str]], header: list[str]) -> str:
    """Left-aligned fixed-width text table with a rule under the header (widths in terminal columns).

    Cells are shown through ``printable``, so no cell can break its row.
    """
    cells = [[printable(str(v)) for v in row] for row in [header, *rows]]
    widths = [max(display_width(v) for v in column) for column in zip(*cells)]
    lines = ["  ".join(_padded(v, w) for v, w in zip(cells[0], widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(_padded(v, w) for v, w in zip(row, widths)).rstrip() for row in cells[1:])
    return "\n".join(lines)


def frame_table(frame: pd.DataFrame) -> str:
    """``text_table`` of a small frame (counts by status and reason, by verdict): its columns as the header."""
    return text_table([[str(v) for v in row] for row in frame.itertuples(index=False)], [str(c) for c in frame.columns])


#: Characters of a case id shown in the terminal table (the whole id is in the result file).
CASE_ID_CHARS = 40


def shown_case_id(case_id: str) -> str:
    """A case id as the terminal table shows it: unprintable characters escaped, at most ``CASE_ID_CHARS``."""
    return clipped(printable(case_id), CASE_ID_CHARS)


#: Characters of a refusal's detail shown in the terminal table (the whole detail is in the result file).
DETAIL_CHARS = 72


def clipped(text: str, width: int = DETAIL_CHARS) -> str:
    """``text`` cut to at most ``width`` characters at a word boundary, with ``…`` when cut.

    A first word longer than ``width`` is cut inside it (there is no boundary to use).
    """
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    boundary = cut.rfind(" ")
    if boundary > 0:
        cut = cut[:boundary]
    return cut.rstrip() + "…"


def summary_table(run: GateRun) -> str:
    """A readable table of case, status, reason and decided_at (and the detail of a refusal)."""
    rows = [
        [
            shown_case_id(case_id) if isinstance(case_id, str) else f"<row {position}>",
            status,
            reason,
            decided_at,
            clipped(detail),
        ]
        for position, case_id, status, reason, decided_at, detail in zip(
            run.results["position"],
            run.results["case_id"],
            run.results["status"],
            run.results["reason"],
            run.results["decided_at"],
            run.results["detail"],
        )
    ]
    return text_table(rows, ["case", "status", "reason", "decided_at", "detail"])
