"""The citation audit (after generation): corpus loading, normalization, quote matching, judge.

To compose the audit into your own Hamilton DAG, build a driver over
:func:`dataflow_modules` plus your own module that provides ``citation_table``,
with config ``document_source`` = ``"corpus"``, ``"manifest"`` or ``"folder"``
(see the README, "Compose it into your own Hamilton DAG").
"""

from __future__ import annotations

from types import ModuleType


def dataflow_modules() -> tuple[ModuleType, ...]:
    """The Hamilton modules of the audit's dataflow, for ``driver.Builder().with_modules(*modules, yours)``.

    ``(io.pinned_sources, audit.loading, audit.stages)``: nodes from the documents
    (``source_documents``, by config ``document_source``) to ``audit_result``. Your
    module provides ``citation_table`` (build it with
    ``claimgate.io.tables.citation_table_frame``). The command line adds
    ``audit.batching`` (whole table or partitions), which you do not need.
    """
    from claimgate.audit import loading, stages
    from claimgate.io import pinned_sources

    return (pinned_sources, loading, stages)
