"""Executor faults end the run in one line and a documented exit status: never a hang, never a traceback.

Every scenario runs in a subprocess with a timeout, so a regression fails the test instead of hanging
the suite.
"""

from __future__ import annotations

import os
import resource
import subprocess
import sys
import textwrap

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
