"""Progress on stderr: a bar that survives being sent to remote tasks (a Hamilton lifecycle adapter), the
streamed gate's bar in cases with a total and an ETA, and a phase line while a run is busy before it.

Everything here writes to stderr only, and only when stderr is a terminal (tqdm's ``disable=None``;
``phase`` checks ``isatty`` too); the command line turns it all off with ``--quiet`` or when stderr is not
a terminal (``cli.options.progress_enabled``).
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator
from pathlib import Path

from hamilton import lifecycle

BLOCK_BYTES = 1 << 20


def estimated_cases(cases_path: str | Path) -> int | None:
    """About how many cases a table holds, counted cheaply (the total of the streamed gate's bar).

    ``.jsonl``: its lines (a last line without ``\n`` counts); ``.csv``: its lines less the header;
    ``.parquet``: the row count in its footer. Blank lines and quoted line breaks count as cases, so the
    estimate may be a little high; the bar's total is set to the true count when the run ends. ``None``
    for a ``.json`` list (one document, no cheap count) or a file that cannot be read (the run itself
    refuses it). The lines are counted in 1 MiB blocks (about 0.1 s per 100 MB).
    """
    path = Path(cases_path)
    suffix = path.suffix.lower()
    try:
        if suffix == ".parquet":
            import pyarrow.parquet as pq

            return pq.ParquetFile(path).metadata.num_rows
        if suffix not in (".jsonl", ".csv"):
            return None
        lines, last = 0, b"\n"
        with open(path, "rb") as handle:
            while block := handle.read(BLOCK_BYTES):
                lines += block.count(b"\n")
                last = block[-1:]
        lines += last != b"\n"
    except Exception:  # unreadable or not a table: no total; the run refuses it with its own reason
        return None
    return max(lines - (suffix == ".csv"), 0)


def case_bar(total: int | None, desc: str = "gate", file=None):
    """A tqdm bar counting cases (``unit="cases"``) towards ``total``: rate and ETA once cases are done.

    Counts of ten thousand and more are shown scaled (``50.0k/200k``), smaller ones as they are (``35/40``).
    """
    from claimgate.runtime.bars import progress_bar

    scaled = total is None or total >= 10_000
    return progress_bar(
        desc=desc, total=total, unit="cases", unit_scale=scaled, file=file or sys.stderr, disable=None, leave=False
    )


@contextlib.contextmanager
def phase(text: str, enabled: bool, file=None) -> Iterator[None]:
    """Show ``text`` as one line on stderr while the block runs, erased afterwards (nothing when not enabled).

    Only on a terminal (``isatty``), like the bars; the line is ``text`` followed by ``…``.
    """
    stream = file or sys.stderr
    shown = enabled and stream.isatty()
    if shown:
        stream.write(f"{text}…")
        stream.flush()
    try:
        yield
    finally:
        if shown:
            stream.write("\r\x1b[K")
            stream.flush()


class ProgressBar(
    lifecycle.GraphExecutionHook, lifecycle.NodeExecutionHook, lifecycle.TaskGroupingHook, lifecycle.TaskReturnHook
):
    """A tqdm bar on stderr: nodes done in a whole-table run, tasks done in a partitioned run.

    Why not ``hamilton.plugins.h_tqdm.ProgressBar``: it keeps its tqdm bar on the adapter,
    and a remote executor pickles the adapter into every task, so a partitioned run
    failed with ``PicklingError``. This bar stays in the driver process (a pickled copy
    has none and draws nothing); a partitioned run counts tasks as they return to the
    driver, the total growing when the partitions are known. tqdm's ``disable=None``
    keeps it silent when stderr is not a terminal.
    """

    def __init__(self, desc: str, partitioned: bool) -> None:
        self.desc = desc
        self.partitioned = partitioned
        self.bar = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "bar": None}

    def run_before_graph_execution(self, *, execution_path, **future_kwargs) -> None:
        from claimgate.runtime.bars import progress_bar

        total = None if self.partitioned else len(execution_path)
        unit = "tasks" if self.partitioned else "nodes"
        self.bar = progress_bar(desc=self.desc, total=total, unit=unit, file=sys.stderr, disable=None, leave=False)

    def run_before_node_execution(self, *, node_name: str, **future_kwargs) -> None:
        if self.bar is not None and not self.partitioned:
            self.bar.set_postfix_str(node_name, refresh=True)

    def run_after_node_execution(self, **future_kwargs) -> None:
        if self.bar is not None and not self.partitioned:
            self.bar.update(1)

    def run_after_task_grouping(self, *, task_ids: list[str], **future_kwargs) -> None:
        if self.bar is not None and self.partitioned:
            self.bar.total = len(task_ids)
            self.bar.refresh()

    def run_after_task_expansion(self, *, parameters: dict, **future_kwargs) -> None:
        if self.bar is not None and self.partitioned and self.bar.total is not None:
            # The block was counted once at grouping; it now runs once per partition.
            self.bar.total += len(parameters) - 1
            self.bar.refresh()

    def run_after_task_return(self, *, task_id: str, **future_kwargs) -> None:
        if self.bar is not None and self.partitioned:
            self.bar.set_postfix_str(task_id, refresh=False)
            self.bar.update(1)

    def run_after_graph_execution(self, **future_kwargs) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None
