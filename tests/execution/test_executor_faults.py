"""Executor faults end the run in one line and a documented exit status: never a hang, never a traceback.

Every scenario runs in a subprocess with a timeout, so a regression fails the test instead of hanging
the suite.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import textwrap
import time

import pytest
from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

from ..helpers import ROOT

RUN_PIPELINE = str(ROOT / "run_pipeline.py")


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """50 sources and 3,000 cases: thirty 100-case chunks, several in flight on two workers."""
    folder = tmp_path_factory.mktemp("faults")
    manifest = write_sources(folder / "docs", n_sources=50, seed=4, mean_bytes=2000)
    cases = write_case_table(folder / "cases.jsonl", case_rows(manifest, 3000, seed=4))
    return manifest, cases


def gate_command(table, output, executor: str) -> list[str]:
    manifest, cases = table
    return [
        sys.executable, RUN_PIPELINE, "gate", "--manifest", str(manifest), "--cases", str(cases),
        "--output", str(output), "--executor", executor, "--partition-rows", "100", "--quiet",
    ]  # fmt: skip


def limit_file_size() -> None:
    resource.setrlimit(resource.RLIMIT_FSIZE, (100_000, 100_000))  # the output stops growing at 100 kB


@pytest.mark.parametrize("output_name", ["out.jsonl", "out.json"])
def test_multiprocessing_run_exits_after_an_output_write_fails(table, tmp_path, output_name):
    """A write refused by a file-size limit: the local executor's one line and exit 2, no worker traceback."""
    output = tmp_path / output_name
    done = subprocess.run(
        gate_command(table, output, "multiprocessing"),
        preexec_fn=limit_file_size,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert done.stderr.splitlines()[-1] == f"error: cannot write {output}: File too large"
    assert "Traceback" not in done.stderr and "interrupted by" not in done.stderr
    assert not output.exists() and not list(tmp_path.glob(".*.tmp"))


# A worker stopped half-way through writing its result: the pool's manager thread has read the
# message's length and waits for the rest, which never comes; the interpreter joins that thread at
# exit. The worker writes the partial message itself, so the scenario happens every time.
PARTIAL_RESULT = textwrap.dedent(
    """
    import os, struct, sys, time, types
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from claimgate.execution import workers

    def stuck():
        writer = POOL._result_queue._writer
        os.write(writer.fileno(), struct.pack("!i", 1_000_000) + b"partial")
        time.sleep(120)

    POOL = ProcessPoolExecutor(
        1, mp_context=multiprocessing.get_context("fork"),
        initializer=workers.watch_parent, initargs=(os.getpid(),),
    )
    future = POOL.submit(stuck)
    time.sleep(1.0)  # the manager thread is now inside recv()
    workers.shutdown_pool(types.SimpleNamespace(pool=POOL))
    print("stopped", flush=True)
    """
)


def test_pool_stopped_while_a_worker_writes_its_result_lets_the_run_exit():
    done = subprocess.run(
        [sys.executable, "-c", PARTIAL_RESULT], capture_output=True, text=True, timeout=60, cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "dataflow")},
    )  # fmt: skip
    assert (done.returncode, done.stdout) == (0, "stopped\n"), done.stderr


# ----------------------------------------------------------------------------- a worker or scheduler lost

# The gate command with its chunk decider (streamed .jsonl) or its first stage (whole-table .json on
# Hamilton's executor) replaced by one that kills, with SIGKILL, its own worker (``VICTIM`` unset) or the
# process ``VICTIM`` names, once it reaches case 1,000. Forked multiprocessing workers inherit the
# replacement; Dask pickles a function of ``__main__`` by value, so its workers run it too.
KILLER = textwrap.dedent(
    """
    import functools, os, signal, sys
    from claimgate.execution import streaming
    from claimgate.gate import stages

    VICTIM = int(os.environ.get("CLAIMGATE_TEST_VICTIM") or 0)
    decided_chunk, first_stage = streaming.decided_chunk, stages.validated_requests

    def kill_at_case_1000(case_table):
        if int(case_table["position"].iloc[0]) >= 1000:
            try:
                os.kill(VICTIM or os.getpid(), signal.SIGKILL)
            except ProcessLookupError:  # another task killed it first
                pass

    def killer(case_table, constants):
        kill_at_case_1000(case_table)
        return decided_chunk(case_table, constants)

    @functools.wraps(first_stage)
    def validated_requests(case_table, verified_sources, claim_schema):
        kill_at_case_1000(case_table)
        return first_stage(case_table, verified_sources, claim_schema)

    if __name__ == "__main__":
        streaming.decided_chunk, stages.validated_requests = killer, validated_requests
        from claimgate.cli.main import main
        sys.exit(main(sys.argv[1:]))
    """
)


def run_with_killer(command: list[str], victim: int | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "dataflow"), "CLAIMGATE_TEST_VICTIM": str(victim or "")}
    return subprocess.run(
        [sys.executable, "-c", KILLER, *command[2:]], capture_output=True, text=True, timeout=120, env=env
    )


def assert_one_line_and_nothing_written(done: subprocess.CompletedProcess, output, reason: str) -> None:
    assert done.returncode == 4, done.stderr
    assert done.stderr.count("\n") == 1 and done.stderr.startswith(f"error: ExecutionError: {reason}: "), done.stderr
    assert done.stderr.endswith("; nothing was written\n")
    assert not output.exists() and not list(output.parent.glob(".*.tmp"))


@pytest.mark.parametrize("output_name", ["out.jsonl", "out.json"])
def test_a_killed_multiprocessing_worker_ends_in_one_line_and_exit_4(table, tmp_path, output_name):
    """``kill -9`` of a worker gave a BrokenProcessPool traceback (exit 1) and a false 'interrupted by SIGTERM'."""
    output = tmp_path / output_name
    done = run_with_killer(gate_command(table, output, "multiprocessing"))
    assert_one_line_and_nothing_written(done, output, "worker_lost")
    assert "multiprocessing worker stopped" in done.stderr


def test_a_killed_dask_worker_ends_in_one_line_and_exit_4(table, tmp_path):
    """A worker of the local cluster killed mid-run gave a FutureCancelledError traceback."""
    output = tmp_path / "out.jsonl"
    done = run_with_killer(gate_command(table, output, "dask"))
    assert_one_line_and_nothing_written(done, output, "worker_lost")


def test_a_lost_dask_scheduler_ends_in_one_line_and_exit_4(table, tmp_path):
    """The scheduler killed mid-run (on loopback) gave a traceback, or a line blaming the output file."""
    scheduler_file = tmp_path / "scheduler.json"
    dask = [sys.executable, "-m", "distributed.cli.dask_scheduler"]
    scheduler = subprocess.Popen(
        [*dask, "--host", "127.0.0.1", "--port", "0", "--no-dashboard", "--scheduler-file", str(scheduler_file)],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    worker = None
    try:
        deadline = time.monotonic() + 60
        while not scheduler_file.exists() or not scheduler_file.read_text():
            assert time.monotonic() < deadline, "the scheduler did not start"
            time.sleep(0.1)
        address = json.loads(scheduler_file.read_text())["address"]
        worker = subprocess.Popen(
            [sys.executable, "-m", "distributed.cli.dask_worker", "--scheduler-file", str(scheduler_file),
             "--nworkers", "2", "--nthreads", "1", "--no-dashboard"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        output = tmp_path / "out.jsonl"
        command = [*gate_command(table, output, "dask"), "--scheduler", address]
        done = run_with_killer(command, victim=scheduler.pid)
        assert_one_line_and_nothing_written(done, output, "scheduler_lost")
    finally:
        for process in (worker, scheduler):
            if process is not None:
                process.kill()
                process.wait(timeout=30)


def test_executor_failures_are_named_by_what_failed():
    """Only the executor's own failure types become ``ExecutionError``; a task's error or a write keeps its type."""
    import types
    from concurrent.futures.process import BrokenProcessPool

    from claimgate.errors import ExecutionError
    from claimgate.execution.executors import executor_failure, local_cluster_start
    from distributed import KilledWorker
    from distributed.client import FutureCancelledError
    from distributed.comm.core import CommClosedError

    local = types.SimpleNamespace(cluster=object(), status="running")
    remote_gone = types.SimpleNamespace(cluster=None, status="connecting")
    cases = [
        (BrokenProcessPool("terminated abruptly"), None, "worker_lost"),
        (KilledWorker("chunk-1", "tcp://127.0.0.1:1", 3), None, "worker_lost"),
        (FutureCancelledError("chunk-1", "lost dependencies"), None, "worker_lost"),
        (FutureCancelledError("chunk-1", "scheduler-connection-lost"), None, "scheduler_lost"),
        (CommClosedError("in ConnectionPool.scatter"), local, "worker_lost"),
        (CommClosedError("in ConnectionPool.scatter"), remote_gone, "scheduler_lost"),
    ]
    for exc, client, reason in cases:
        assert executor_failure(exc, client).reason == reason, exc
    for exc in (OSError(28, "No space left on device"), ValueError("a task's own error"), KeyError("x")):
        assert executor_failure(exc, local) is None
    with pytest.raises(ExecutionError, match="worker_lost: a worker of the local Dask cluster stopped"):
        with local_cluster_start():
            raise RuntimeError("Nanny failed to start.")
    with pytest.raises(RuntimeError, match="something else"):
        with local_cluster_start():
            raise RuntimeError("something else")
