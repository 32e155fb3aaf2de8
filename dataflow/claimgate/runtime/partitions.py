"""Cutting a table into partitions and putting it back together (helpers, not Hamilton nodes)."""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd


def partitions(frame: pd.DataFrame, partition_rows: int) -> Iterator[pd.DataFrame]:
    """Consecutive slices of at most ``partition_rows`` rows; at least one slice, maybe empty.

    Raises ``ValueError`` when ``partition_rows`` < 1.
    """
    if partition_rows < 1:
        raise ValueError("partition_rows must be at least 1")
    if frame.empty:
        yield frame
        return
    for start in range(0, len(frame), partition_rows):
        yield frame.iloc[start : start + partition_rows].reset_index(drop=True)


def collected(frames: list[pd.DataFrame]) -> pd.DataFrame:
    """Partition results concatenated back into table order (by ``position``)."""
    merged = pd.concat(frames, ignore_index=True)
    return merged.sort_values("position", kind="stable").reset_index(drop=True)
