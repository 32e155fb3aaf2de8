"""Worker processes that die with the run that started them.

Hamilton's ``MultiProcessingExecutor`` runs tasks in a ``ProcessPoolExecutor``. Its
workers outlive a parent that is killed: they block on a queue whose other end the
dead parent's siblings still hold, or finish a task of hundreds of megabytes nobody
will collect. Two guards here:

- each worker starts a watchdog thread that ends the worker (``os._exit``) within
  ``WATCH_SECONDS`` once the run's process is gone, which covers ``SIGKILL``;
- ``shutdown_pool`` cancels queued tasks and terminates the workers at once (killing
  any that outlive SIGTERM); the driver calls it when a run ends early (an exception,
  Ctrl-C, SIGTERM/SIGHUP, a failed output write).
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from concurrent.futures import ProcessPoolExecutor

from hamilton.execution.executors import MultiProcessingExecutor

from claimgate.runtime import signals

WATCH_SECONDS = 0.5  # how often a worker checks that its run is alive


def _run_is_gone(run_pid: int, first_parent: int) -> bool:
    """Whether the run ``run_pid`` has ended (or this worker was re-parented away from ``first_parent``)."""
    if os.getppid() != first_parent:
        return True
    try:
        os.kill(run_pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:  # exists, owned by someone else: not ours any more
        return True
    return False


def _watch(run_pid: int, first_parent: int) -> None:
    while not _run_is_gone(run_pid, first_parent):
        time.sleep(WATCH_SECONDS)
    os._exit(1)


def watch_parent(run_pid: int) -> None:
    """Pool initializer: start the watchdog thread of a worker belonging to run ``run_pid``.

    The worker ignores SIGINT: Ctrl-C in a terminal reaches the whole process group,
    and the run, not each worker, decides how to stop (it terminates its workers).
    SIGTERM and SIGHUP get their default action back: a forked worker inherits the
    command's handlers (``runtime.signals``), which would raise ``Terminated`` inside the
    worker, print its traceback and a false "interrupted by SIGTERM" line, and could leave
    it stuck holding a pool queue's lock while the run waited to reap it (``shutdown_pool``).
    """
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    for signum in signals.TERMINATION_SIGNALS:
        signal.signal(signum, signal.SIG_DFL)
    threading.Thread(target=_watch, args=(run_pid, os.getppid()), name="claimgate-watchdog", daemon=True).start()


class ParentBoundProcessExecutor(MultiProcessingExecutor):
    """Hamilton's multiprocessing executor whose workers die with the run (``watch_parent``)."""

    def create_pool(self) -> ProcessPoolExecutor:
        return ProcessPoolExecutor(max_workers=self.max_tasks, initializer=watch_parent, initargs=(os.getpid(),))


def shutdown_pool(executor: MultiProcessingExecutor) -> None:
    """Stop ``executor``'s pool now: cancel queued tasks and terminate its live workers.

    Safe to call on an executor that was never initialized or already finalized.
    """
    pool = getattr(executor, "pool", None)
    if pool is None:
        return
    processes = list((getattr(pool, "_processes", None) or {}).values())  # no public handle before 3.14
    manager = getattr(pool, "_executor_manager_thread", None)  # shutdown() forgets it
    results = getattr(pool, "_result_queue", None)
    with contextlib.suppress(Exception):
        pool.shutdown(wait=False, cancel_futures=True)
    for process in processes:
        with contextlib.suppress(Exception):
            if process.is_alive():
                process.terminate()
    for process in processes:
        with contextlib.suppress(Exception):
            process.join(timeout=5)
    for process in processes:  # one that did not stop on SIGTERM is killed: the run must not wait on it
        with contextlib.suppress(Exception):
            if process.is_alive():
                process.kill()
                process.join(timeout=5)
    # A worker stopped while it wrote a result leaves the pool's manager thread waiting for the rest
    # of that message; the parent holds the queue's write end too, so the read never ends, and the
    # interpreter waits for that thread at exit: the command printed its error and never exited.
    # With every worker gone, closing the parent's write end ends the read (the pool is broken).
    with contextlib.suppress(Exception):
        if results is not None:
            results._writer.close()
    if manager is not None:
        with contextlib.suppress(Exception):
            manager.join(timeout=5)
