"""Hamilton task executors for partitioned runs (multiprocessing, Dask, Ray), opened and closed safely.

``task_executor`` is the one entry point: ``None`` for a local run, otherwise an
executor whose workers die with the run (``execution.workers``), whose Dask cluster is
closed on exit and on SIGTERM (``runtime.signals``), and whose scheduler address is
checked before a client connects (``execution.dask_scheduler``). Dask and Ray are
extras (``claimgate[dask]``, ``claimgate[ray]``), imported only when chosen. ``gc_paused`` (``runtime.collector``)
pauses the cyclic collector for bulk builds.
"""

from __future__ import annotations

import contextlib
import importlib.util
import logging
import sys
import warnings
from collections.abc import Callable, Iterator

from claimgate.errors import ExecutionError
from claimgate.execution import dask_scheduler
from claimgate.execution import workers as workers_module
from claimgate.runtime import signals
from claimgate.runtime.collector import gc_paused  # noqa: F401  (re-exported: executors.gc_paused)

EXECUTORS = ("local", "multiprocessing", "dask", "ray")
#: The modules an executor needs that are not installed with claimgate itself: each comes with an extra
#: named after the executor (``pip install 'claimgate[dask]'``; see the README, "Extras").
EXTRA_MODULES = {"dask": ("dask", "distributed"), "ray": ("ray",)}


def check_executor(executor: str) -> None:
    """Raise ``ValueError`` (one line, for a usage error) when ``executor`` is unknown or not installed.

    ``dask`` and ``ray`` need their extras (``EXTRA_MODULES``); the check looks the modules up
    (``importlib.util.find_spec``) without importing them, so a local run never imports Dask or Ray.
    """
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; choose one of {', '.join(EXECUTORS)}")
    if any(importlib.util.find_spec(module) is None for module in EXTRA_MODULES.get(executor, ())):
        raise ValueError(f"--executor {executor} needs the optional extra: pip install 'claimgate[{executor}]'")


def executor_failure(exc: BaseException, client: object | None = None) -> ExecutionError | None:
    """The ``ExecutionError`` that ``exc`` means when it says the executor itself failed, else ``None``.

    ``worker_lost``: a multiprocessing worker ended before its task was done (``BrokenProcessPool``:
    killed, out of memory), Dask gave up on a task whose workers kept dying (``KilledWorker``) or
    cancelled it after losing the worker (``FutureCancelledError``), or a connection closed while the
    Dask ``client`` still had its scheduler (a worker gone mid-transfer; always so for a local cluster,
    whose scheduler lives in this process). ``scheduler_lost``: the Dask client lost its scheduler
    (``FutureCancelledError`` for ``scheduler-connection-lost``, or ``CommClosedError`` otherwise).
    Only these types are read, so a task's own error and a failed output write keep their meaning.
    """
    from concurrent.futures.process import BrokenProcessPool

    if isinstance(exc, BrokenProcessPool):
        detail = "a multiprocessing worker stopped before its task was done (killed, or out of memory)"
        return ExecutionError("worker_lost", f"{detail}; nothing was written")
    distributed = sys.modules.get("distributed")  # only a Dask run has imported it
    if distributed is None:
        return None
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError

    if isinstance(exc, distributed.KilledWorker):
        detail = "Dask workers died running a task (killed, or out of memory) until Dask gave up on it"
        return ExecutionError("worker_lost", f"{detail}; nothing was written")
    if isinstance(exc, FutureCancelledError) and "scheduler" not in str(exc.reason):
        detail = f"the Dask cluster cancelled a task after losing its worker (killed, or out of memory; {exc.reason})"
        return ExecutionError("worker_lost", f"{detail}; nothing was written")
    scheduler_kept = client is not None and (
        getattr(client, "cluster", None) is not None or getattr(client, "status", None) == "running"
    )
    if isinstance(exc, CommClosedError) and scheduler_kept:
        detail = "a Dask worker went away while data moved to or from it (killed, or out of memory)"
        return ExecutionError("worker_lost", f"{detail}; nothing was written")
    if isinstance(exc, FutureCancelledError | CommClosedError):
        return scheduler_lost()
    return None


def scheduler_lost() -> ExecutionError:
    """``scheduler_lost``: the Dask client's connection to its scheduler ended during the run."""
    return ExecutionError("scheduler_lost", "the connection to the Dask scheduler was lost; nothing was written")


@contextlib.contextmanager
def executor_failures(client: object | None = None) -> Iterator[None]:
    """Raise the ``ExecutionError`` an exception in the block means (``executor_failure``); others pass as they are."""
    try:
        yield
    except Exception as exc:
        failure = executor_failure(exc, client)
        if failure is None:
            raise
        raise failure from None


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int = 2) -> Iterator[object]:
    """A ``dask.distributed.Client``, closed on exit (with its cluster when it made one), also when interrupted.

    Connects to ``scheduler`` (an address such as ``tcp://host:8786``) or, without
    one, to a ``LocalCluster`` of ``workers`` single-threaded processes with no
    dashboard and Dask's own log lines off (a lost worker is the run's one error line,
    ``executor_failure``). Raises ``UsageError`` when the scheduler cannot be reached.
    """
    from dask.distributed import Client, LocalCluster

    client = cluster = None
    restore_console = quiet_dask_console()
    try:
        # A SIGTERM while the cluster starts is held until it is up, then ends the run here,
        # where ``finally`` closes it (a half-built cluster cannot be closed).
        with signals.deferred_termination():
            if scheduler:
                client = dask_scheduler.scheduler_client(Client, scheduler)
            else:
                with warnings.catch_warnings(), local_cluster_start():
                    # Another cluster on this machine holds port 8787: Dask picks another and says so.
                    warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
                    cluster = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.CRITICAL,
                    )
                client = Client(cluster)
        yield client
    finally:
        try:
            if client is not None:
                client.close()
            if cluster is not None:
                cluster.close()
        finally:
            restore_console()


@contextlib.contextmanager
def local_cluster_start() -> Iterator[None]:
    """A worker that dies while the local cluster starts (``Nanny failed to start``): ``worker_lost``, no traceback."""
    try:
        yield
    except RuntimeError as exc:
        if "failed to start" not in str(exc):
            raise
        detail = f"a worker of the local Dask cluster stopped while the cluster started ({exc})"
        raise ExecutionError("worker_lost", f"{detail}; nothing was written") from None


def quiet_dask_console() -> Callable[[], None]:
    """Turn Dask's own console log lines off, also for a remote scheduler's client; return what turns them back on.

    A lost connection makes the client log tracebacks (``distributed.client``, ``distributed.batched``)
    on stderr; the run's one error line says what failed (``executor_failure``). The stream handlers
    Dask put on its ``distributed`` logger are raised to CRITICAL until the returned function is called.
    """
    handlers = [h for h in logging.getLogger("distributed").handlers if isinstance(h, logging.StreamHandler)]
    levels = [handler.level for handler in handlers]
    for handler in handlers:
        handler.setLevel(logging.CRITICAL)

    def restore() -> None:
        for handler, level in zip(handlers, levels):
            handler.setLevel(level)

    return restore


def ray_init_config(scheduler: str | None = None, quiet: bool = True) -> dict:
    """Keyword arguments for ``ray.init``: no dashboard, and with ``quiet`` no Ray log lines on the console.

    Ray's usage reporting is off for the whole process (``RAY_USAGE_STATS_ENABLED=0``,
    set by ``import claimgate``). With ``quiet``, Ray logs at ERROR and its workers'
    output is not forwarded to the driver's console.
    """
    config: dict = {"include_dashboard": False}
    if scheduler:
        config["address"] = scheduler
    if quiet:
        config.update(logging_level=logging.ERROR, log_to_driver=False)
    return config


@contextlib.contextmanager
def ray_session(scheduler: str | None = None, quiet: bool = True) -> Iterator[None]:
    """``ray.init`` (``ray_init_config``) on entry and ``ray.shutdown`` on exit."""
    import ray

    ray.init(**ray_init_config(scheduler, quiet))
    try:
        yield
    finally:
        ray.shutdown()


@contextlib.contextmanager
def task_executor(
    executor: str, scheduler: str | None = None, workers: int = 2, quiet: bool = True
) -> Iterator[object | None]:
    """A Hamilton task executor for ``executor`` (``None`` for ``local``), closed on exit.

    ``multiprocessing`` workers die with this process, even by ``SIGKILL``, and are
    terminated when the block ends (``execution.workers``). ``dask`` runs on a
    ``dask_client``. ``ray`` needs the optional ``ray`` extra and starts Ray with
    ``ray_init_config`` (``quiet``: no Ray log lines). Each plugin module
    (``hamilton.plugins.h_dask``, ``h_ray``) is imported here, explicitly: claimgate
    turns Hamilton's extension autoloading off. Raises ``ValueError`` for an unknown
    name or a missing extra (``check_executor``), before anything is started.
    """
    check_executor(executor)
    if executor == "local":
        yield None
    elif executor == "multiprocessing":
        pool = workers_module.ParentBoundProcessExecutor(max_tasks=workers)
        try:
            with executor_failures():  # a killed worker: one line, exit 4, not a BrokenProcessPool traceback
                yield pool
        finally:  # a run that ended early (an error, Ctrl-C, SIGTERM) stops its workers now
            workers_module.shutdown_pool(pool)
    elif executor == "dask":
        from hamilton.plugins.h_dask import DaskExecutor

        with dask_client(scheduler, workers) as client, executor_failures(client):
            yield DaskExecutor(client=client)
    else:  # ray (checked above): the executor calls ray.init and ray.shutdown itself
        from hamilton.plugins.h_ray import RayTaskExecutor

        yield RayTaskExecutor(ray_init_config=ray_init_config(scheduler, quiet))
