"""What the command line writes for a gate run: result entries, refusal details and the JSON document.

Plain data built from a finished ``execution.drivers.GateRun``; no decision is taken here. The
document's shape is specified in docs/gate-rules.md, "Result objects". What the command line
prints (terminal tables) is ``cli.terminal``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from claimgate.gate import stages as gate_stages
from claimgate.gate.result_object import case_entry

if TYPE_CHECKING:
    from claimgate.execution.drivers import GateRun  # a type only: documents are made from a finished run

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
