"""How the case table reaches the gate: whole, or in partitions for an executor (Hamilton nodes).

With ``partitioned=False`` (the local run) ``case_table`` is the whole table and
``gate_results`` is ``gate_result`` itself. With ``partitioned=True`` the table is
cut into partitions of ``partition_rows`` rows (``Parallelizable``), each partition
runs the gate nodes as its own task on Hamilton's executor (multiprocessing, Dask,
Ray), and ``gate_results`` collects them (``Collect``) back into case-table order.
The decision nodes are the same functions either way, so the output bytes are too.
"""

from __future__ import annotations

import pandas as pd
from hamilton.function_modifiers import config
from hamilton.htypes import Collect, Parallelizable

from claimgate.runtime.partitions import collected, partitions


@config.when(partitioned=False)
def case_table__whole(case_rows: pd.DataFrame) -> pd.DataFrame:
    """The case table as one batch (columns of ``tables.case_table_frame``)."""
    return case_rows


@config.when(partitioned=True)
def case_table__partitioned(case_rows: pd.DataFrame, partition_rows: int = 10_000) -> Parallelizable[pd.DataFrame]:
    """Consecutive slices of at most ``partition_rows`` case rows (at least one, maybe empty)."""
    yield from partitions(case_rows, partition_rows)


@config.when(partitioned=False)
def gate_results__whole(gate_result: pd.DataFrame) -> pd.DataFrame:
    """The decision for every case, in case-table order (columns of ``results.gate_result``)."""
    return gate_result


@config.when(partitioned=True)
def gate_results__collected(gate_result: Collect[pd.DataFrame]) -> pd.DataFrame:
    """Every partition's decisions concatenated back into case-table order."""
    return collected(list(gate_result))
