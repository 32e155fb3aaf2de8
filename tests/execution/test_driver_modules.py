"""Each driver holds its own product's nodes: the audit DAG has no gate node, the gate DAG no audit node."""

from __future__ import annotations

import pytest
from claimgate.execution import drivers

SHARED = {"claimgate.io.pinned_sources", "claimgate.runtime.partitions"}


def _modules(dr) -> set[str]:
    return {node.tags["module"] for node in dr.graph.nodes.values() if "module" in node.tags}


@pytest.mark.parametrize("document_source", ["corpus", "manifest"])
def test_audit_driver_holds_no_gate_node(document_source):
    dr = drivers.audit_driver(document_source)
    assert {m for m in _modules(dr) if not m.startswith("claimgate.audit.")} <= SHARED
    assert not {"case_rows", "claim_schema", "cases_path", "schema_path"} & set(dr.graph.nodes)


def test_gate_driver_holds_no_audit_node():
    modules = _modules(drivers.gate_driver())
    assert {m for m in modules if not m.startswith("claimgate.gate.")} <= SHARED
    assert "claimgate.gate.stages" in modules and "claimgate.gate.results" in modules
