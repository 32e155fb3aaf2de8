"""The gate's decision order: which of ``stages.py``'s nodes decides each reason, read once from its tags.

``decisions.py`` knows how to read a decision order from any Hamilton graph
(``decisions.decision_stages``); this module applies it to the gate's own stage
module. ``decided_at`` in every result is ``decided_at_by_reason()[reason]``: the
node whose ``@tag(decides=...)`` lists the reason, whose code decided it. The batch
gate (``results.case_decisions``) and the one-case reference (``reference.decide_case``)
both read it here, so they name the same node. See docs/gate-rules.md, "Decision order".
"""

from __future__ import annotations

import functools

from claimgate.gate import stages
from claimgate.gate.decisions import decision_stages


@functools.cache
def gate_decision_stages() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """``decisions.decision_stages`` of the gate's stage module (``claimgate.gate.stages``), read once per process."""
    from hamilton.graph import FunctionGraph  # here, as before: importing the rules does not load the graph code

    return decision_stages(FunctionGraph.from_modules(stages, config={}))


@functools.cache
def decided_at_by_reason() -> dict[str, str]:
    """Reason code → name of the gate node that decides it (from the ``decides`` tags)."""
    return {reason: name for name, reasons in gate_decision_stages() for reason in reasons}
