"""How the citation table reaches the audit: whole, or in partitions for an executor (Hamilton nodes).

Same pattern as ``batching.py`` for the gate: ``partitioned=True`` cuts the citation
table into ``Parallelizable`` partitions of ``partition_rows`` rows, each audited as
its own task against the one corpus index, and ``audit_results`` collects them back
into citation-table order.
"""

from __future__ import annotations

import pandas as pd
from hamilton.function_modifiers import config
from hamilton.htypes import Collect, Parallelizable

from claimgate.runtime.partitions import collected, partitions


@config.when(partitioned=False)
def citation_table__whole(citation_rows: pd.DataFrame) -> pd.DataFrame:
    """The citation table as one batch (columns of ``tables.citation_table_frame``)."""
    return citation_rows


@config.when(partitioned=True)
def citation_table__partitioned(
    citation_rows: pd.DataFrame, partition_rows: int = 10_000
) -> Parallelizable[pd.DataFrame]:
    """Consecutive slices of at most ``partition_rows`` citations (at least one, maybe empty)."""
    yield from partitions(citation_rows, partition_rows)


@config.when(partitioned=False)
def audit_results__whole(audit_result: pd.DataFrame) -> pd.DataFrame:
    """Every citation's audit row, in citation-table order (columns of ``audit.audit_result``)."""
    return audit_result


@config.when(partitioned=True)
def audit_results__collected(audit_result: Collect[pd.DataFrame]) -> pd.DataFrame:
    """Every partition's audit rows concatenated back into citation-table order."""
    return collected(list(audit_result))
