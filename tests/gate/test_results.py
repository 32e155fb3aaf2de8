"""The result assembly (``gate.results``) and what it is built from decide nothing; its nodes are the ones drawn."""

from __future__ import annotations

import inspect

from claimgate.gate import result_lines, result_object, result_parts, results
from claimgate.gate.decision_order import gate_decision_stages
from hamilton.graph import FunctionGraph


def test_gate_result_decides_nothing():
    source = inspect.getsource(results)
    every_reason = [reason for _, reasons in gate_decision_stages() for reason in reasons]
    assert not [reason for reason in every_reason if f'"{reason}"' in source]


def test_nothing_that_shapes_results_names_a_reason():
    every_reason = [reason for _, reasons in gate_decision_stages() for reason in reasons]
    for module in (result_parts, result_object, result_lines):
        source = inspect.getsource(module)
        assert not [reason for reason in every_reason if f'"{reason}"' in source], module.__name__


def test_the_assembly_nodes_are_the_results_modules_public_functions():
    graph = FunctionGraph.from_modules(results, config={})
    functions = {name for name, node in graph.nodes.items() if not node.user_defined}
    assert functions == {"case_decisions", "result_parts", "gate_result"}
