"""One function computed in a forked helper process while the caller goes on (a leaf: the recheck's ledger scan).

Why: a recheck of a big ledger spends most of its time scanning the ledger's bytes and importing the audit, both
on one core; a forked copy of the process can scan part of the bytes it already holds while the caller imports
and scans the rest, so the second core shortens the run (docs/recheck-rules.md, "Reading a big ledger").

What it refuses to do: let the helper decide anything. The helper returns bytes or nothing; when it cannot run
(no ``fork`` on this platform), fails or is killed, ``HelperProcess.result`` is ``None`` and the caller computes
the same bytes itself, so an outcome never depends on whether the helper ran. Uses ``multiprocessing``'s fork
context (the child inherits the caller's memory: nothing is pickled on the way in, one ``bytes`` on the way out).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

#: Seconds ``HelperProcess.close`` waits for a child it sent SIGTERM before it sends SIGKILL.
_END_SECONDS = 2.0
#: Bytes a ``HelperStream`` message may hold at most: with its 4-byte length it is one write of at most
#: ``PIPE_BUF`` (4,096 bytes on Linux), which a pipe delivers whole, so a reader that sees one waiting never
#: waits for the rest of it (a child stopped in the middle of a longer one would hold the reader up). A child
#: that yields a longer message ends there, as one that fails.
STREAM_MESSAGE_BYTES = 512


#: A per-user process limit (``ulimit -u``) below this leaves no helper: one more process could take the last
#: slot the caller's own threads need (numpy's start at import), and the run would fail where it would not alone.
MIN_PROCESS_LIMIT = 4096
#: Tasks (processes and threads) a control group (``pids.max``: a container's ``--pids-limit``, systemd's
#: ``TasksMax``) must still have free for a helper, for the same reason.
MIN_FREE_TASKS = 64
#: Where the control groups are mounted (cgroup v2: ``pids.max`` in each group's folder; v1: under ``pids/``).
CGROUP_ROOT = "/sys/fs/cgroup"


def helper_available() -> bool:
    """Whether a forked helper can run here: Linux (``fork`` is the platform's own way to start a process; macOS
    and Windows start processes fresh, which would import everything again), no per-user process limit
    under ``MIN_PROCESS_LIMIT``, and no control group of this process with fewer than ``MIN_FREE_TASKS``
    tasks left (:func:`free_tasks`)."""
    if not (sys.platform.startswith("linux") and hasattr(os, "fork")):
        return False
    import resource

    soft, _ = resource.getrlimit(resource.RLIMIT_NPROC)
    if soft != resource.RLIM_INFINITY and soft < MIN_PROCESS_LIMIT:
        return False
    free = free_tasks()
    return free is None or free >= MIN_FREE_TASKS


def free_tasks(cgroup_file: str = "/proc/self/cgroup") -> int | None:
    """The fewest tasks any control group of this process (its own and each one above it) has left under its
    ``pids.max``, or ``None`` when none sets a limit or none can be read (unreadable files count as no limit)."""
    try:
        with open(cgroup_file, encoding="utf-8") as lines:
            entries = [line.rstrip("\n").split(":", 2) for line in lines]
    except OSError:
        return None
    fewest = None
    for entry in entries:
        if len(entry) != 3:
            continue
        _, controllers, path = entry
        if "pids" in controllers.split(","):  # cgroup v1: the pids controller's own tree
            root = os.path.join(CGROUP_ROOT, "pids")
        elif controllers == "":  # cgroup v2: one tree
            root = CGROUP_ROOT
        else:
            continue
        parts = [part for part in path.split("/") if part]
        for depth in range(len(parts), -1, -1):
            left = _tasks_left(os.path.join(root, *parts[:depth]))
            if left is not None:
                fewest = left if fewest is None else min(fewest, left)
    return fewest


def _tasks_left(folder: str) -> int | None:
    """``pids.max - pids.current`` of one control group's folder (``None``: no limit, or not readable)."""
    try:
        with open(os.path.join(folder, "pids.max")) as limit_file, open(os.path.join(folder, "pids.current")) as now:
            limit, current = limit_file.read().strip(), now.read().strip()
    except OSError:
        return None
    return int(limit) - int(current) if limit.isdigit() and current.isdigit() else None


def _run(send: Any, receive: Any, compute: Callable[..., Any], args: tuple, stream: bool = False) -> None:
    """The helper's body: ``compute(*args)`` sent back as one message (``stream``: each ``bytes`` it yields, one
    message each, as they come), then ``os._exit`` (no clean-up of the caller's runs to do: the caller's atexit
    handlers, files and buffers are the caller's).

    The pipe's reading end, inherited from the caller, is closed first: were the caller killed (SIGKILL, the
    out-of-memory killer), the helper's write then fails at once instead of waiting for a reader forever.
    """
    receive.close()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C reaches the whole group: the caller ends the helper
    for name in ("SIGTERM", "SIGHUP"):  # ended by the caller's SIGTERM whatever handler the caller had installed
        if hasattr(signal, name):
            signal.signal(getattr(signal, name), signal.SIG_DFL)
    try:
        if stream:
            for message in compute(*args):
                if len(message) > STREAM_MESSAGE_BYTES:
                    os._exit(1)
                send.send_bytes(message)
        else:
            send.send_bytes(compute(*args))
    except BaseException:  # noqa: BLE001 - any failure is "no result": the caller computes it itself
        os._exit(1)
    os._exit(0)


def write_whole(fd: int, data: bytes) -> None:
    """Write all of ``data`` to ``fd`` (``os.write`` may write less at a time). Raises ``OSError`` as it does.

    For a helper that writes its records to a file the two processes share and sends only their places
    (:data:`STREAM_MESSAGE_BYTES`): a record is whole in the file before its place is sent.
    """
    view, written = memoryview(data), 0
    while written < len(view):
        written += os.write(fd, view[written:])


def read_place(fd: int, offset: int, length: int) -> bytes | None:
    """The ``length`` bytes at ``offset`` of ``fd`` (read with ``os.pread``), or ``None`` for a negative place,
    a failed read or fewer bytes than that (raises nothing): a place a helper sent, read back."""
    if offset < 0 or length < 0:
        return None
    try:
        data = os.pread(fd, length, offset)
    except OSError:
        return None
    return data if len(data) == length else None


class HelperProcess:
    """``compute(*args)`` (returning ``bytes``) in a forked child, started at construction.

    ``result()`` waits for the child and gives its bytes (the same bytes when asked again), or ``None`` (not
    started: ``helper_available`` is False; the child failed, was killed, or sent nothing). ``close()`` (or
    leaving the ``with`` block) ends a child whose result was never asked for, so an exception in the caller
    leaves no process behind. Raises nothing of its own.
    """

    _stream = False  # HelperStream: compute yields its messages

    def __init__(self, compute: Callable[..., Any], *args: Any) -> None:
        self._process = self._receive = self._payload = None
        if not helper_available():
            return
        import multiprocessing

        context = multiprocessing.get_context("fork")
        self._receive, send = context.Pipe(duplex=False)
        process = context.Process(target=_run, args=(send, self._receive, compute, args, self._stream), daemon=True)
        try:
            process.start()
        except OSError:  # no process could be made (a limit): the caller computes it itself
            self._receive.close()
            self._receive = None
            return
        finally:
            send.close()
        self._process = process

    def result(self, timeout: float | None = None) -> bytes | None:
        """The child's bytes, or ``None`` when it did not give them (see the class) or has sent nothing
        within ``timeout`` seconds (then it is ended: a stopped or starved helper never holds the caller up)."""
        if self._process is None or self._receive is None:  # none started, or asked (or closed) before
            return self._payload
        try:
            payload = self._receive.recv_bytes() if self._receive.poll(timeout) else None
        except (EOFError, OSError):  # it ended without sending
            payload = None
        if payload is not None:
            self._process.join(timeout=_END_SECONDS)  # it exits right after sending
            self._payload = payload if self._process.exitcode == 0 else None
        self.close()  # one that sent nothing in time, or has not exited since (stopped), is ended
        return self._payload

    def close(self) -> None:
        """End the child if it still runs, and wait for it (idempotent)."""
        if self._receive is not None:
            self._receive.close()
            self._receive = None
        if self._process is not None and self._process.exitcode is None:
            self._process.terminate()
            with contextlib.suppress(OSError):  # a stopped child (SIGSTOP, a debugger) acts on SIGTERM once it runs
                os.kill(self._process.pid, signal.SIGCONT)
            self._process.join(timeout=_END_SECONDS)
            if self._process.exitcode is None:  # SIGTERM reached it before its handlers were reset
                self._process.kill()
                self._process.join()

    def __enter__(self) -> HelperProcess:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class HelperStream(HelperProcess):
    """``compute(*args)``, a generator of ``bytes`` messages of at most :data:`STREAM_MESSAGE_BYTES` each (a
    place in a file the two share, say), in a forked child started at construction.

    ``arrived()`` gives the messages the child has sent since it was last asked, without waiting; ``finished``
    is True once the child has ended (all its messages read) or was never started. A child that fails or is
    killed simply sends no more. ``close()`` (or leaving the ``with`` block) ends a child still running.
    Raises nothing of its own.
    """

    _stream = True

    @property
    def finished(self) -> bool:
        """Whether no more messages can come (never started, ended, or closed)."""
        return self._receive is None

    def arrived(self) -> list[bytes]:
        """Every message sent and not yet read (in the order sent); ``[]`` when none has come (never waits)."""
        messages: list[bytes] = []
        while self._receive is not None:
            try:
                if not self._receive.poll(0):
                    break
                messages.append(self._receive.recv_bytes())
            except (EOFError, OSError):  # it ended: nothing more comes
                self.close()
        return messages

    def result(self, timeout: float | None = None) -> bytes | None:  # noqa: ARG002 - a stream has no one result
        raise TypeError("a HelperStream's messages are read with arrived()")
