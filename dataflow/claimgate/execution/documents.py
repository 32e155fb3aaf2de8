"""What the command line writes and prints for a gate run: result entries, the JSON document, terminal tables.

Plain data built from a finished ``drivers.GateRun``; no decision is taken here. The
document's shape is specified in docs/gate-rules.md, "Result objects".
"""

from __future__ import annotations

import unicodedata
from typing import TYPE_CHECKING

from claimgate.gate import stages as gate_stages
from claimgate.gate.result_object import case_entry

if TYPE_CHECKING:
    from claimgate.execution.drivers import GateRun

POLICY = (
    "Only sources whose version equals the requested version exactly are eligible; a newer version is never "
    "a fallback and candidate order never picks a winner. Only explicit directive lines are read; prose is "
    "never interpreted. A request is prepared only when every eligible source declares the requested key "
    "and all values agree; otherwise the gate stops with a reason."
)
LIMIT = (
    "The gate compares declared directive values. It is not a prose contradiction detector and not an "
    "authority system, and a prepared answer request is not an answer: no model is called."
)


def case_entries(run: GateRun) -> list[dict]:
    """Every case's ``case_entry``, in case-table order."""
    return [
        case_entry(request, case_id, result)
        for request, case_id, result in zip(run.case_rows["request"], run.results["case_id"], run.results["result"])
    ]


def refusal_details(run: GateRun) -> list[dict]:
    """``[{position, case_id, error, reason, detail}]`` for every refused case, in case-table order.

    ``detail`` is the one-line explanation of the reason (which source and line, which
    candidate). It sits beside the result objects, which keep exactly the shape of docs/gate-rules.md, "Result objects".
    """
    refused = run.results.loc[run.results["status"] == "refused", ["position", "case_id", "error", "reason", "detail"]]
    return [
        {"position": int(p), "case_id": c, "error": e, "reason": r, "detail": d}
        for p, c, e, r, d in refused.itertuples(index=False, name=None)
    ]


def ignored_lines(run: GateRun) -> list[dict]:
    """``[{source_id, line, rule, quote}]``: the run's ``ignored_directive_lines`` as JSON-ready dicts.

    ``[]`` for a schema without opt-ins; computed from the verified sources when the run lacks the frame.
    """
    frame = run.ignored_directive_lines
    if frame is None:
        frame = gate_stages.ignored_directive_lines(run.verified_sources, run.schema)
    return [
        {"source_id": s, "line": int(n), "rule": r, "quote": q}
        for s, n, r, q in frame[["source_id", "line", "rule", "quote"]].itertuples(index=False, name=None)
    ]


def gate_document(run: GateRun, fixture_kind: str, changed_source: dict | None = None) -> dict:
    """The ``gate_result.json`` document of docs/gate-rules.md, "Result objects" (``changed_source``: default run).

    ``ignored_directive_lines`` is present only when the schema opts into a narrower
    directive rule (docs/gate-rules.md, "Directive opt-ins"), listing every line it kept
    from being read.
    """
    document = {
        "execution_mode": run.schema.execution_mode,
        "model_called": False,
        "fixture_kind": fixture_kind,
        "grammar": run.schema.grammar,
        "schema": run.schema.as_dict(),
        "cases": case_entries(run),
    }
    document["refusal_details"] = refusal_details(run)
    if run.schema.skip_fenced_code or run.schema.directive_scope != "line":
        document["ignored_directive_lines"] = ignored_lines(run)
    if changed_source is not None:
        document["changed_source"] = changed_source
    document["policy"] = POLICY
    document["limit"] = LIMIT
    return document


def display_width(text: str) -> int:
    """Terminal columns of ``text``: wide and full-width characters take two, combining marks none."""
    return sum(
        0 if unicodedata.combining(c) else 2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text
    )


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
