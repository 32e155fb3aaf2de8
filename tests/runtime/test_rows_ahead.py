"""Rows computed from both ends (``runtime.rows_ahead``): a forked helper's blocks are taken only when they are
the very block, rows and inputs this process is at; the values are those of computing every row here
(docs/audit-rules.md, "Auditing rows from both ends")."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import threading
import time

import pytest
from claimgate.runtime import rows_ahead
from claimgate.runtime.helper_process import helper_available
from hypothesis import given, settings
from hypothesis import strategies as st

needs_fork = pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")
PARENT = os.getpid()


@pytest.fixture(autouse=True)
def _every_table_forks(monkeypatch):
    monkeypatch.setattr(rows_ahead, "MIN_ROWS", 0)
    monkeypatch.setattr(rows_ahead, "fork_safe_threads", lambda: True)  # pytest's own threads are not ours


def _slow_here(compute, seconds: float = 0.01):
    """``compute``, slowed down in this process only: the helper's blocks then arrive before they are needed."""

    def slowed(rows):
        if os.getpid() == PARENT:
            time.sleep(seconds)
        return compute(rows)

    return slowed


def _values(rows):
    return [(i, i * i % 7, os.getpid()) for i in rows]


def _keys(rows):
    return list(rows)


def _valid(value):
    return type(value) is tuple and len(value) == 3


def _without_pids(values):
    return [v[:2] for v in values]


def _expected(n):
    return [(i, i * i % 7) for i in range(n)]


@needs_fork
def _first_block_late_in_the_helper(compute, seconds: float = 30.0):
    """``compute``, with the helper's last block (the one holding row 0) held back: this process computes it."""

    def held(rows):
        if os.getpid() != PARENT and 0 in rows:
            time.sleep(seconds)  # ended by the helper's close long before
        return compute(rows)

    return held


def test_the_helpers_blocks_are_taken_in_row_order():
    # Both must compute some whatever the load: the helper cannot reach row 0 in time (held back), and this
    # process, slowed to 0.05 s a block, leaves the helper 1.2 s to send the last blocks.
    compute = _first_block_late_in_the_helper(_slow_here(_values, 0.05))
    got = rows_ahead.rows_from_both_ends(200, compute, _keys, _valid, block_rows=8)
    assert _without_pids(got) == _expected(200)
    pids = [v[2] for v in got]
    helper = [p for p in pids if p != PARENT]
    assert helper and PARENT in pids  # both computed some
    first = pids.index(helper[0])
    assert all(p != PARENT for p in pids[first:])  # the helper's are the last rows, from where the two met


@needs_fork
@settings(max_examples=25, deadline=None)
@given(n=st.integers(0, 90), block=st.integers(1, 20))
def test_every_table_and_block_size_gives_the_values_of_one_pass(n, block):
    got = rows_ahead.rows_from_both_ends(n, _values, _keys, _valid, block_rows=block)
    assert _without_pids(got) == _expected(n)


def test_without_a_helper_every_block_is_computed_here():
    counted = []
    got = rows_ahead.rows_from_both_ends(
        50, _values, _keys, _valid, helper=False, progress=counted.append, block_rows=8
    )
    assert _without_pids(got) == _expected(50) and {v[2] for v in got} == {PARENT}
    assert counted == [8, 8, 8, 8, 8, 8, 2]


@needs_fork
def test_a_table_under_the_minimum_is_computed_here(monkeypatch):
    monkeypatch.setattr(rows_ahead, "MIN_ROWS", 1000)
    got = rows_ahead.rows_from_both_ends(200, _slow_here(_values, 0.002), _keys, _valid, block_rows=8)
    assert {v[2] for v in got} == {PARENT}


def _garbage_records(kind):
    def body(compute, keys, blocks):
        for number in reversed(range(len(blocks))):
            rows = blocks[number]
            values, check = list(compute(rows)), rows_ahead.rows_check(keys(rows))
            fields = {
                "not a pickle": None,
                "wrong number": (number - 1, rows.start, rows.stop, check, values),
                "wrong rows": (number, rows.start + 1, rows.stop, check, values),
                "wrong check": (number, rows.start, rows.stop, check + 1, values),
                "one value short": (number, rows.start, rows.stop, check, values[:-1]),
                "a tuple of values": (number, rows.start, rows.stop, check, tuple(values)),
                "invalid values": (number, rows.start, rows.stop, check, [(0,)] * len(values)),
                "four fields": (number, rows.start, rows.stop, check),
                "unhashable number": ([number], rows.start, rows.stop, check, values),
            }[kind]
            yield b"\x80garbage" if fields is None else pickle.dumps(fields)

    return body


@needs_fork
@pytest.mark.parametrize(
    "kind",
    [
        "not a pickle",
        "wrong number",
        "wrong rows",
        "wrong check",
        "one value short",
        "a tuple of values",
        "invalid values",
        "four fields",
        "unhashable number",
    ],
)
def test_a_record_of_another_shape_or_block_is_refused(monkeypatch, kind):
    monkeypatch.setattr(rows_ahead, "_blocks_from_the_end", _garbage_records(kind))
    got = rows_ahead.rows_from_both_ends(120, _slow_here(_values), _keys, _valid, block_rows=8)
    assert _without_pids(got) == _expected(120) and {v[2] for v in got} == {PARENT}


@needs_fork
def test_a_record_of_other_inputs_is_refused():
    inputs = list(range(100))
    keys = lambda rows: [inputs[i] for i in rows]  # noqa: E731
    helper_started = []

    def compute(rows):
        if os.getpid() == PARENT and not helper_started:
            helper_started.append(True)
            inputs[-1] = "changed"  # the helper's copy still holds the old value: its last block's check differs
        return _slow_here(_values)(rows)

    got = rows_ahead.rows_from_both_ends(100, compute, keys, _valid, block_rows=10)
    assert _without_pids(got) == _expected(100)
    assert got[-1][2] == PARENT  # the last block, whose inputs changed, was computed here
    assert any(v[2] != PARENT for v in got[:-10])  # others were taken


@needs_fork
@pytest.mark.parametrize("how", ["raises", "killed", "exits"])
def test_a_helper_that_fails_leaves_the_values_unchanged(how):
    def compute(rows):
        if os.getpid() != PARENT and rows.start < 150:
            if how == "raises":
                raise RuntimeError("the helper's own failure")
            if how == "killed":
                os.kill(os.getpid(), signal.SIGKILL)
            os._exit(3)
        return _slow_here(_values)(rows)

    got = rows_ahead.rows_from_both_ends(200, compute, _keys, _valid, block_rows=10)
    assert _without_pids(got) == _expected(200)
    assert any(v[2] != PARENT for v in got[150:])  # the blocks sent before the failure were taken


def test_a_failure_here_is_raised():
    def compute(rows):
        if rows.start >= 16:
            raise ValueError("a row this process cannot compute")
        return _values(rows)

    with pytest.raises(ValueError, match="cannot compute"):
        rows_ahead.rows_from_both_ends(40, compute, _keys, _valid, helper=False, block_rows=8)


def test_threads_other_than_jemallocs_keep_the_helper_from_forking(tmp_path, monkeypatch):
    monkeypatch.undo()
    folder = tmp_path / "task"

    def task(tid, name):
        (folder / str(tid)).mkdir(parents=True)
        (folder / str(tid) / "comm").write_text(name + "\n")

    task(os.getpid(), "python")
    assert rows_ahead.fork_safe_threads(str(folder))
    task(os.getpid() + 1, "jemalloc_bg_thd")
    assert rows_ahead.fork_safe_threads(str(folder))
    task(os.getpid() + 2, "python")  # numpy's OpenBLAS, a Python thread, a monitor: told from none of them
    assert not rows_ahead.fork_safe_threads(str(folder))
    assert not rows_ahead.fork_safe_threads(str(tmp_path / "missing"))


@needs_fork
def test_a_running_thread_means_no_helper(monkeypatch):
    monkeypatch.undo()
    monkeypatch.setattr(rows_ahead, "MIN_ROWS", 0)
    stop = threading.Event()
    thread = threading.Thread(target=stop.wait, name="a caller's thread")
    thread.start()
    try:
        assert not rows_ahead.fork_safe_threads()
        got = rows_ahead.rows_from_both_ends(100, _slow_here(_values, 0.002), _keys, _valid, block_rows=10)
    finally:
        stop.set()
        thread.join()
    assert {v[2] for v in got} == {PARENT}


_BLAS = (
    "import os; from claimgate.runtime import rows_ahead; {before}"
    "rows_ahead.no_blas_threads(); print(os.environ.get('OPENBLAS_NUM_THREADS'))"
)


@pytest.mark.parametrize(
    ("before", "preset", "expected"),
    [("", None, "1"), ("", "3", "3"), ("import numpy; ", None, "None")],
)
def test_the_command_asks_openblas_for_no_threads_unless_told_otherwise(before, preset, expected):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if preset is not None:
        env["OPENBLAS_NUM_THREADS"] = preset
    done = subprocess.run(
        [sys.executable, "-c", _BLAS.format(before=before)], capture_output=True, text=True, env=env, check=True
    )
    assert done.stdout.strip() == expected


@needs_fork
def test_a_command_process_has_no_thread_a_fork_could_not_survive():
    code = (
        "from claimgate.runtime import rows_ahead; rows_ahead.no_blas_threads(); "
        "import numpy, pyarrow, pandas; print(rows_ahead.fork_safe_threads())"
    )
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert done.stdout.strip() == "True"


@needs_fork
def test_records_larger_than_a_pipe_holds_are_taken():
    def compute(rows):
        return [(i, "x" * 100_000, os.getpid()) for i in rows]  # a block's record is about 1 MB

    got = rows_ahead.rows_from_both_ends(60, _slow_here(compute, 0.02), _keys, _valid, block_rows=6)
    assert [v[0] for v in got] == list(range(60)) and all(len(v[1]) == 100_000 for v in got)
    assert any(v[2] != PARENT for v in got)


@needs_fork
def test_a_stopped_helper_never_holds_the_caller_up():
    def compute(rows):
        if os.getpid() != PARENT and rows.start < 150:
            os.kill(os.getpid(), signal.SIGSTOP)  # a debugger, a job control stop: it never sends again
        return _slow_here(_values, 0.005)(rows)

    started = time.monotonic()
    got = rows_ahead.rows_from_both_ends(200, compute, _keys, _valid, block_rows=10)
    assert time.monotonic() - started < 1.5  # 20 blocks of 5 ms here, and the stopped helper ended at once
    assert _without_pids(got) == _expected(200)
    assert any(v[2] != PARENT for v in got[150:])


def test_threads_arrow_starts_while_recorded_count_as_fork_safe(tmp_path, monkeypatch):
    monkeypatch.undo()
    monkeypatch.setattr(rows_ahead, "_ARROW_TASKS", set())
    folder = tmp_path / "task"

    def task(tid, name):
        (folder / str(tid)).mkdir(parents=True)
        (folder / str(tid) / "comm").write_text(name + "\n")

    task(os.getpid(), "python")
    with rows_ahead.arrow_threads_recorded(str(folder)):
        task(os.getpid() + 1, "python")  # a pool thread started by the block
    assert rows_ahead.fork_safe_threads(str(folder))
    task(os.getpid() + 2, "python")  # started outside a recorded block
    assert not rows_ahead.fork_safe_threads(str(folder))
    with rows_ahead.arrow_threads_recorded(str(folder)):  # another thread was there at the start: none recorded
        task(os.getpid() + 3, "python")
    assert rows_ahead._ARROW_TASKS == {os.getpid() + 1}


@needs_fork
def test_a_table_read_by_arrow_leaves_the_process_fork_safe_where_plain_arrow_does_not(tmp_path):
    table = tmp_path / "citations.csv"
    table.write_text("citation_id,doc_id,quote\n" + "".join(f"c{i},d{i},a quote {i}\n" for i in range(3000)))
    code = (
        "import sys; from claimgate.runtime import rows_ahead; rows_ahead.no_blas_threads(); "
        "from claimgate.io import tables; import pyarrow.csv as pacsv; "
        "rows = tables.read_citation_rows(sys.argv[1]) if sys.argv[2] == 'ours' else pacsv.read_csv(sys.argv[1]); "
        "print(len(rows), rows_ahead.fork_safe_threads(), flush=True); import os; os._exit(0)"
    )  # os._exit: an interpreter ending right after an Arrow read sometimes aborts in Arrow's teardown
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    for reader, expected in (("ours", "3000 True"), ("plain", "3000 False")):
        done = subprocess.run(
            [sys.executable, "-c", code, str(table), reader], capture_output=True, text=True, env=env, check=True
        )
        assert done.stdout.strip() == expected, (reader, done.stdout, done.stderr)
