"""A progress bar for long runs that survives being sent to remote tasks (a Hamilton lifecycle adapter)."""

from __future__ import annotations

import sys

from hamilton import lifecycle


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
        import tqdm

        total = None if self.partitioned else len(execution_path)
        unit = "tasks" if self.partitioned else "nodes"
        self.bar = tqdm.tqdm(desc=self.desc, total=total, unit=unit, file=sys.stderr, disable=None, leave=False)

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
