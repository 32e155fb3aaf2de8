"""The contract gate (before generation): loading, request checks, directives, decision stages.

To compose the gate into your own Hamilton DAG, build a driver over
:func:`dataflow_modules` plus your own module that provides ``case_table``
(see the README, "Compose it into your own Hamilton DAG").
"""

from __future__ import annotations

from types import ModuleType


def dataflow_modules() -> tuple[ModuleType, ...]:
    """The Hamilton modules of the gate's dataflow, for ``driver.Builder().with_modules(*modules, yours)``.

    ``(io.pinned_sources, gate.loading, gate.stages, gate.results)``: nodes from
    ``load_manifest`` to ``gate_result``. Your module provides ``case_table`` (build
    it with ``claimgate.io.tables.case_table_frame``); inputs are ``manifest_path``
    and, optionally, ``schema_path`` and ``max_source_bytes``. The command line adds
    ``gate.batching`` (whole table or partitions), which you do not need.
    """
    from claimgate.gate import loading, results, stages
    from claimgate.io import pinned_sources

    return (pinned_sources, loading, stages, results)
