"""Hamilton task executors for partitioned runs (multiprocessing, Dask, Ray), opened and closed safely.

``task_executor`` is the one entry point: ``None`` for a local run, otherwise an
executor whose workers die with the run (``execution.workers``), whose Dask cluster is
closed on exit and on SIGTERM (``runtime.signals``), and whose scheduler address is
checked before a client connects (``execution.dask_scheduler``). Dask and Ray are
extras (``claimgate[dask]``, ``claimgate[ray]``), imported only when chosen. ``gc_paused``
pauses the cyclic collector for bulk builds.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import logging
import warnings
from collections.abc import Iterator

from claimgate.execution import dask_scheduler
from claimgate.execution import workers as workers_module
from claimgate.runtime import signals

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


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk build, restoring it afterwards.

    A batch run allocates millions of long-lived containers (raw case rows, result
    dicts); each automatic collection rescans all of them, which cost about 40% of a
    50,000-case run. Nothing built here forms reference cycles that need collecting.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int = 2) -> Iterator[object]:
    """A ``dask.distributed.Client``, closed on exit (with its cluster when it made one), also when interrupted.

    Connects to ``scheduler`` (an address such as ``tcp://host:8786``) or, without
    one, to a ``LocalCluster`` of ``workers`` single-threaded processes with no
    dashboard and Dask's logs at ERROR. Raises ``UsageError`` when the scheduler
    cannot be reached.
    """
    from dask.distributed import Client, LocalCluster

    client = cluster = None
    try:
        # A SIGTERM while the cluster starts is held until it is up, then ends the run here,
        # where ``finally`` closes it (a half-built cluster cannot be closed).
        with signals.deferred_termination():
            if scheduler:
                client = dask_scheduler.scheduler_client(Client, scheduler)
            else:
                with warnings.catch_warnings():
                    # Another cluster on this machine holds port 8787: Dask picks another and says so.
                    warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
                    cluster = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.ERROR,
                    )
                client = Client(cluster)
        yield client
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


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
            yield pool
        finally:  # a run that ended early (an error, Ctrl-C, SIGTERM) stops its workers now
            workers_module.shutdown_pool(pool)
    elif executor == "dask":
        from hamilton.plugins.h_dask import DaskExecutor

        with dask_client(scheduler, workers) as client:
            yield DaskExecutor(client=client)
    else:  # ray (checked above): the executor calls ray.init and ray.shutdown itself
        from hamilton.plugins.h_ray import RayTaskExecutor

        yield RayTaskExecutor(ray_init_config=ray_init_config(scheduler, quiet))
