"""Rows of a table computed from both ends: this process from the first block forward, a forked helper from the
last block back, until the two meet (a leaf: the audit's matching and diagnosis loops use it).

Why: once the corpus index is built, a cold audit spends about a third of its time matching and diagnosing the
citations one by one on one core, while the second core is idle. A forked copy of the process already holds the
index and the citations (nothing is pickled on the way in), so it can work out the last rows while this process
works out the first ones (docs/audit-rules.md, "Auditing rows from both ends").

What it refuses to do: let the helper decide anything, or change a row. The helper runs the caller's own
``compute`` on the caller's own rows and sends each block's values back as a pickled record; a record is taken
only when its block number, rows and :func:`rows_check` of the rows' inputs are those of the block this process
is at, and it holds one value per row that the caller's ``valid`` accepts. Anything else (a helper that failed,
was killed, or sent a damaged record) is ignored and this process computes that block itself. It never waits for
the helper, so the values are the same, in the same order, with or without one.

It forks only from a process whose threads are its main thread and jemalloc's background thread (pyarrow's
allocator, whose fork handlers stop and restart it): another thread could hold a lock the child would then
wait on forever (:func:`fork_safe_threads`). The command asks OpenBLAS for no threads of its own
(:func:`no_blas_threads`), since it does no linear algebra.
"""

from __future__ import annotations

import os
import pickle
import sys
import warnings
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from claimgate.runtime.helper_process import HelperStream

#: Rows per block: small enough that the two processes meet within a few milliseconds of each other, large
#: enough that a record's pickling is a small share of the block's work (an audited citation takes about 0.2 ms).
BLOCK_ROWS = 64
#: Fewer rows than this are computed in this process alone: the fork and the helper's first page copies cost
#: about as much as the second core saves on a few hundred citations.
MIN_ROWS = 1024
#: Threads (by the name the kernel shows, ``/proc/self/task/*/comm``) that survive a fork safely.
FORK_SAFE_THREADS = frozenset({"jemalloc_bg_thd"})
_RECORD_FIELDS = 5


def fork_safe_threads(task_folder: str = "/proc/self/task") -> bool:
    """Whether every thread of this process but the calling one is in :data:`FORK_SAFE_THREADS` (``False`` when
    the threads cannot be listed). Python threads, an executor's workers, a progress bar's monitor: not safe."""
    try:
        tasks = os.listdir(task_folder)
        names = []
        for task in tasks:
            if int(task) == os.getpid():  # the main thread (a task id equal to the process id)
                continue
            with open(os.path.join(task_folder, task, "comm"), encoding="utf-8", errors="replace") as comm:
                names.append(comm.read().strip())
    except (OSError, ValueError):
        return False
    return all(name in FORK_SAFE_THREADS for name in names)


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


def _fields_of(record: bytes) -> tuple | None:
    """The fields of a record (number, start, stop, check, values), or ``None`` for bytes of another shape."""
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
    stream = None
    if helper and n_rows >= MIN_ROWS and len(blocks) > 1 and fork_safe_threads():
        with warnings.catch_warnings():  # 3.12+ warns of any thread at a fork: the ones left are fork-safe (above)
            warnings.simplefilter("ignore", DeprecationWarning)
            stream = HelperStream(_blocks_from_the_end, compute, keys, blocks)
    out: list = []
    arrived: dict[object, tuple] = {}
    try:
        for number, rows in enumerate(blocks):
            if stream is not None and not stream.finished:
                for fields in filter(None, map(_fields_of, stream.arrived())):
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
    return out
