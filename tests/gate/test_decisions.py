"""How a decision order is read (``gate.decisions``, generic) and the gate's own order (``gate.decision_order``)."""

from __future__ import annotations

import ast
import inspect

import pandas as pd
import pytest
from claimgate.gate import decisions as decisions_module
from claimgate.gate.decision_order import decided_at_by_reason, gate_decision_stages
from claimgate.gate.decisions import Stage, case_decisions, decision_stages, decisions
from claimgate.gate.directives import DIRECTIVE_ERROR_REASONS
from claimgate.gate.requests import REQUEST_CHECKS
from hamilton.graph import FunctionGraph


def test_decision_order_is_read_from_the_graph_and_tags():
    assert [name for name, _ in gate_decision_stages()] == [
        "validated_requests",
        "eligible_sources",
        "directive_errors",
        "missing_sources",
        "conflicting_values",
        "agreed_values",
    ]
    by_reason = decided_at_by_reason()
    assert {r: by_reason[r] for r in REQUEST_CHECKS} == dict.fromkeys(REQUEST_CHECKS, "validated_requests")
    directive = {r: by_reason[r] for r in DIRECTIVE_ERROR_REASONS}
    assert directive == dict.fromkeys(DIRECTIVE_ERROR_REASONS, "directive_errors")


def test_a_case_no_stage_decided_stops_the_assembly():
    table = pd.DataFrame({"position": [0, 1], "case_id": ["a", "b"]})
    only_first = Stage(decided=decisions([0], status="refused", reason="invalid_case", error="GateError"), passed=None)
    with pytest.raises(AssertionError, match="exactly one stage"):
        case_decisions(table, [only_first], decided_at_by_reason())


def test_deciding_nodes_that_are_not_one_chain_are_refused():
    from hamilton.ad_hoc_utils import create_temporary_module
    from hamilton.function_modifiers import tag

    @tag(decides=["left"])
    def left(x: int) -> int:
        return x

    @tag(decides=["right"])
    def right(x: int) -> int:
        return x

    module = create_temporary_module(left, right)
    with pytest.raises(ValueError, match="not one chain"):
        decision_stages(FunctionGraph.from_modules(module, config={}))


def test_the_generic_decisions_module_imports_no_concrete_stage():
    # Counting lazy and TYPE_CHECKING imports: every import statement anywhere in the module.
    tree = ast.parse(inspect.getsource(decisions_module))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            imported |= {node.module or ""} | {f"{node.module}.{alias.name}" for alias in node.names}
    assert not {name for name in imported if name.startswith("claimgate.")}, imported
