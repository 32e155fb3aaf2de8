"""Rows of a table computed from both ends: this process from the first block forward, a forked helper from the
last block back, until the two meet (a leaf: the audit's matching and diagnosis loops use it).

Why: once the corpus index is built, a cold audit spends about a third of its time matching and diagnosing the
citations one by one on one core, while the second core is idle. A forked copy of the process already holds the
index and the citations (nothing is pickled on the way in), so it can work out the last rows while this process
works out the first ones (docs/audit-rules.md, "Auditing rows from both ends").

What it refuses to do: let the helper decide anything, or change a row. The helper runs the caller's own
``compute`` on the caller's own rows and writes each block's values as a pickled record to an unnamed temporary
file (``tempfile.TemporaryFile``: no name in any folder, mode ``0o600``), sending only the record's place over
the pipe once it is written: a notice of 16 bytes arrives whole or not at all, so a helper stopped in the
middle of a record (SIGSTOP, a debugger) never holds this process up, as a record in the pipe would. A record is taken
only when its block number, rows and :func:`rows_check` of the rows' inputs are those of the block this process
is at, and it holds one value per row that the caller's ``valid`` accepts. Anything else (a helper that failed,
was killed, or sent a damaged record) is ignored and this process computes that block itself. It never waits for
the helper, so the values are the same, in the same order, with or without one.

It forks only from a process whose threads are its main thread, jemalloc's background thread (pyarrow's
allocator, whose fork handlers stop and restart it) and the threads of Arrow's pools seen starting
(:func:`arrow_threads_recorded`): another thread could hold a lock the child would then wait on forever
(:func:`fork_safe_threads`). The command asks OpenBLAS for no threads of its own
(:func:`no_blas_threads`), since it does no linear algebra.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import sys
import tempfile
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from claimgate.runtime.helper_process import HelperStream, read_place, write_whole

#: Rows per block: small enough that the two processes meet within a few milliseconds of each other, large
#: enough that a record's pickling is a small share of the block's work (a citation takes 0.1 to 0.2 ms here).
BLOCK_ROWS = 64
#: Fewer rows than this are computed in this process alone. Measured on 20,000 real-prose documents: the fork
#: takes 5-9 ms and the helper's first block of 64 citations arrives 30-50 ms after it (page copies, cold
#: caches), against about 0.13 ms a citation here, so under about 300 citations a helper saves nothing.
MIN_ROWS = 1024
#: Threads (by the name the kernel shows, ``/proc/self/task/*/comm``) that survive a fork safely.
FORK_SAFE_THREADS = frozenset({"jemalloc_bg_thd"})
_ARROW_TASKS: set[int] = set()  # thread ids Arrow's pools were seen to start (arrow_threads_recorded)
_RECORD_FIELDS = 5
_NOTICE = struct.Struct("<qq")  # a record's offset in the helper's file and its length (bytes)


def fork_safe_threads(task_folder: str = "/proc/self/task") -> bool:
    """Whether every thread of this process but the calling one is in :data:`FORK_SAFE_THREADS` or was started
    by Arrow inside :func:`arrow_threads_recorded` (``False`` when the threads cannot be listed). Python
    threads, an executor's workers, a progress bar's monitor: not safe."""
    tasks = _task_ids(task_folder)
    if tasks is None:
        return False
    names = []
    try:
        for task in sorted(tasks - _ARROW_TASKS - {os.getpid()}):  # not the main thread, nor Arrow's pools
            with open(os.path.join(task_folder, str(task), "comm"), encoding="utf-8", errors="replace") as comm:
                names.append(comm.read().strip())
    except OSError:
        return False
    return all(name in FORK_SAFE_THREADS for name in names)


@contextlib.contextmanager
def arrow_threads_recorded(task_folder: str = "/proc/self/task") -> Iterator[None]:
    """Around a pyarrow call that starts Arrow's CPU or I/O thread pool (its CSV and Parquet readers do, even
    with ``use_threads=False``): the threads that appear meanwhile count as fork-safe, since Arrow's pools
    re-create themselves in a forked child (apache/arrow, "Make thread pool fork-safe", ARROW-2963).

    Recorded only when the process has no other thread at the start (:func:`fork_safe_threads`), so no
    thread of anyone else's can start meanwhile and be taken for Arrow's. Raises what the block raises.
    """
    before = _task_ids(task_folder) if fork_safe_threads(task_folder) else None
    try:
        yield
    finally:
        after = _task_ids(task_folder) if before is not None else None
        if after is not None:
            _ARROW_TASKS.update(after - before)


def _task_ids(task_folder: str) -> set[int] | None:
    """The thread ids of this process (``None`` when they cannot be listed)."""
    try:
        return {int(task) for task in os.listdir(task_folder)}
    except (OSError, ValueError):
        return None


def no_blas_threads() -> None:
    """Set ``OPENBLAS_NUM_THREADS=1`` unless the environment already sets it or numpy is already imported.

    numpy's wheels bring OpenBLAS, which starts a thread per core at import; the audit does no linear algebra,
    and an idle BLAS thread keeps :func:`rows_from_both_ends` from forking (:func:`fork_safe_threads` cannot
    tell it from any other). Only the command calls this, first thing (a library caller's process and its
    threads are the caller's own). The value reaches the command's child processes too (executor workers).
    """
    if "numpy" not in sys.modules:
        os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def rows_check(keys: Sequence[object]) -> int:
    """``hash(tuple(keys))``: equal in this process and in its forks (which share its hash key); different keys
    give the same value about once in 2**64 (the key is secret and random per run unless ``PYTHONHASHSEED``)."""
    return hash(tuple(keys))


def block_ranges(n_rows: int, block_rows: int = BLOCK_ROWS) -> list[range]:
    """Consecutive ranges of at most ``block_rows`` rows covering ``range(n_rows)`` (``[]`` for no rows)."""
    return [range(start, min(start + block_rows, n_rows)) for start in range(0, n_rows, block_rows)]


def _blocks_from_the_end(compute: Callable, keys: Callable, blocks: list[range]) -> Iterator[bytes]:
    """The helper's body: each block's record (number, start, stop, check, values), from the last block back."""
    for number in reversed(range(len(blocks))):
        rows = blocks[number]
        values = list(compute(rows))
        yield pickle.dumps(
            (number, rows.start, rows.stop, rows_check(keys(rows)), values), protocol=pickle.HIGHEST_PROTOCOL
        )


def _written_from_the_end(fd: int, compute: Callable, keys: Callable, blocks: list[range]) -> Iterator[bytes]:
    """The helper's body: write each record of :func:`_blocks_from_the_end` to ``fd`` whole, then yield its
    notice (``_NOTICE``: offset, length)."""
    offset = 0
    for record in _blocks_from_the_end(compute, keys, blocks):
        write_whole(fd, record)
        yield _NOTICE.pack(offset, len(record))
        offset += len(record)


def _record_at(fd: int, notice: bytes) -> bytes | None:
    """The record a notice places in the helper's file, or ``None`` (a notice of another shape, a short read)."""
    return read_place(fd, *_NOTICE.unpack(notice)) if len(notice) == _NOTICE.size else None


def _fields_of(record: bytes | None) -> tuple | None:
    """The fields of a record (number, start, stop, check, values), or ``None`` for bytes of another shape."""
    if record is None:
        return None
    try:
        fields = pickle.loads(record)  # noqa: S301 - written by this process's own fork (see the module)
    except Exception:  # noqa: BLE001 - a damaged record is no block
        return None
    if type(fields) is not tuple or len(fields) != _RECORD_FIELDS or type(fields[0]) is not int:
        return None
    return fields


def _values_of(fields: tuple, number: int, rows: range, check: int, valid: Callable) -> list | None:
    """The values of a record's ``fields`` when it is block ``number``'s, of ``rows`` with inputs checking to
    ``check``, with one value per row that ``valid`` accepts; else ``None`` (raises nothing)."""
    got, start, stop, got_check, values = fields
    if (got, start, stop, got_check) != (number, rows.start, rows.stop, check):
        return None
    if type(values) is not list or len(values) != len(rows):
        return None
    try:
        return values if all(valid(value) for value in values) else None
    except Exception:  # noqa: BLE001 - a value the check cannot read is not valid
        return None


def rows_from_both_ends(
    n_rows: int,
    compute: Callable[[range], Sequence[Any]],
    keys: Callable[[range], Sequence[object]],
    valid: Callable[[Any], bool],
    helper: bool = True,
    progress: Callable[[int], object] | None = None,
    block_rows: int | None = None,
) -> list:
    """``compute`` over ``range(n_rows)``, block by block: a list of ``n_rows`` values in row order.

    ``compute(rows)`` gives one value per row of ``rows`` (a ``range``): the same function is run here and in the
    helper, so it must read only what the process held when this was called (the fork's copy) and its values must
    pickle. ``keys(rows)`` gives the inputs that decide those rows (hashed into each record's check: a record of
    other rows is refused); ``valid(value)`` tells a value of the right shape. ``helper``: fork one when it can run
    (:func:`claimgate.runtime.helper_process.helper_available`, :func:`fork_safe_threads`, at least
    :data:`MIN_ROWS` rows); without one every block is computed here. ``progress(k)`` is called with the rows of
    each block as it is done; ``block_rows``: rows per block (``None``: :data:`BLOCK_ROWS`). Raises what
    ``compute`` raises in this process (the helper's failures are its own: it then sends no more).
    """
    blocks = block_ranges(n_rows, BLOCK_ROWS if block_rows is None else block_rows)
    stream = file = None
    if helper and n_rows >= MIN_ROWS and len(blocks) > 1 and fork_safe_threads():
        try:
            file = tempfile.TemporaryFile(prefix="claimgate-rows-")
        except OSError:  # no temporary file: no helper
            file = None
    if file is not None:
        with warnings.catch_warnings():  # 3.12+ warns of any thread at a fork: the ones left are fork-safe (above)
            warnings.simplefilter("ignore", DeprecationWarning)
            stream = HelperStream(_written_from_the_end, file.fileno(), compute, keys, blocks)
    out: list = []
    arrived: dict[object, tuple] = {}
    try:
        for number, rows in enumerate(blocks):
            if stream is not None and not stream.finished:
                for notice in stream.arrived():
                    fields = _fields_of(_record_at(file.fileno(), notice))
                    if fields is not None:
                        arrived[fields[0]] = fields
            fields = arrived.pop(number, None)
            values = None
            if fields is not None:
                values = _values_of(fields, number, rows, rows_check(keys(rows)), valid)
            if values is None:
                values = list(compute(rows))
            out.extend(values)
            if progress is not None:
                progress(len(rows))
    finally:
        if stream is not None:
            stream.close()
        if file is not None:
            file.close()
    return out
