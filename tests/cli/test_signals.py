"""Killed runs leave nothing behind: a real subprocess is signalled while it writes a large result.

The gate's ``.json`` output is serialized inside the atomic writer, after its temporary
file exists: on 30,000 generated cases that takes seconds, so the tests wait until the
temporary appears and then send the signal (no sleeps guessing at timing).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from claimgate.io.atomic import temporary_name_pattern
from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

from ..helpers import ROOT

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc as on Linux")


@pytest.fixture(scope="module")
def big_inputs(tmp_path_factory) -> tuple[Path, Path]:
    folder = tmp_path_factory.mktemp("big")
    manifest = write_sources(folder / "src", n_sources=150, seed=4, mean_bytes=3000)
    cases = write_case_table(folder / "cases.jsonl", case_rows(manifest, 30_000))
    return manifest, cases


def start_gate(manifest: Path, cases: Path, output: Path, *extra: str) -> subprocess.Popen:
    command = [sys.executable, str(ROOT / "run_pipeline.py"), "gate", "--manifest", str(manifest)]
    command += ["--cases", str(cases), "--output", str(output), "--quiet", *extra]
    return subprocess.Popen(command, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def temporaries(output: Path) -> list[Path]:
    pattern = temporary_name_pattern(output.name)
    return [p for p in output.parent.glob(".*") if pattern.match(p.name)] if output.parent.exists() else []


def wait_for(condition, process: subprocess.Popen, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if process.poll() is not None:
            raise AssertionError(f"the run ended first ({process.returncode}): {process.stderr.read()}")
        if time.monotonic() > deadline:
            process.kill()
            raise AssertionError("timed out waiting")
        time.sleep(0.005)


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"])
def test_a_signal_mid_write_exits_cleanly_and_leaves_no_temporary(big_inputs, tmp_path, signum, status):
    if signal.getsignal(signum) is signal.SIG_IGN:  # the run inherits it and rightly keeps it ignored
        pytest.skip(f"{signal.Signals(signum).name} is ignored in this session (started under nohup?)")
    output = tmp_path / "made-by-run" / "r.json"
    process = start_gate(*big_inputs, output)
    wait_for(lambda: temporaries(output), process)
    process.send_signal(signum)
    _, err = process.communicate(timeout=60)
    assert process.returncode == status
    assert err == f"error: interrupted by {signal.Signals(signum).name}; no partial output was left\n"
    assert not output.parent.exists()  # no temporary, no result, and the folder the run made is gone


def test_a_signal_mid_write_keeps_the_previous_output(big_inputs, tmp_path):
    output = tmp_path / "r.json"
    output.write_text("previous result")
    process = start_gate(*big_inputs, output)
    wait_for(lambda: temporaries(output), process)
    process.terminate()
    process.communicate(timeout=60)
    assert process.returncode == 143
    assert output.read_text() == "previous result"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


def test_the_next_run_removes_the_temporary_a_kill_9_left_and_nothing_else(big_inputs, tmp_path):
    output = tmp_path / "r.json"
    neighbours = [".r.json.notours.tmp", ".other.json.abcd1234.tmp", "r.json.abcd1234.tmp", ".r.json.abcd1234.tmp.keep"]
    for name in neighbours:
        (tmp_path / name).write_text("not the run's")
    process = start_gate(*big_inputs, output)
    wait_for(lambda: temporaries(output), process)
    process.kill()
    process.communicate(timeout=60)
    left = temporaries(output)
    assert len(left) == 1  # SIGKILL cannot be caught
    done = subprocess.run(
        [sys.executable, str(ROOT / "run_pipeline.py"), "gate", "--manifest", str(big_inputs[0])]
        + ["--cases", str(ROOT / "fixtures" / "cases.json"), "--output", str(output), "--quiet"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert temporaries(output) == []
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*neighbours, "r.json"])


def children(pid: int) -> set[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid and fields[0] != "Z":
                found.add(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


@pytest.mark.parametrize("how", ["TERM", "KILL"])
def test_multiprocessing_workers_die_with_their_run(big_inputs, tmp_path, how):
    output = tmp_path / "r.jsonl"
    process = start_gate(*big_inputs, output, "--executor", "multiprocessing", "--partition-rows", "500")
    wait_for(lambda: len(children(process.pid)) >= 2, process)
    workers = children(process.pid)
    process.send_signal(signal.SIGTERM if how == "TERM" else signal.SIGKILL)
    # wait(), not communicate(): orphaned workers would keep the output pipes open.
    assert process.wait(timeout=60) == (143 if how == "TERM" else -signal.SIGKILL)
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [pid for pid in workers if alive(pid)]
    for pid in survivors:  # do not leave them to the next test
        os.kill(pid, signal.SIGKILL)
    process.stdout.close()
    process.stderr.close()
    assert survivors == []
    assert temporaries(output) == [] or how == "KILL"


def descendants(pid: int) -> set[int]:
    found, todo = set(), [pid]
    while todo:
        new = children(todo.pop())
        found |= new
        todo.extend(new)
    return found


def test_a_dask_local_cluster_is_closed_when_its_run_is_terminated(big_inputs, tmp_path):
    output = tmp_path / "r.jsonl"
    process = start_gate(*big_inputs, output, "--executor", "dask", "--partition-rows", "500")
    wait_for(lambda: len(descendants(process.pid)) >= 3, process)  # workers starting: the deferred path
    started = descendants(process.pid)
    process.terminate()
    assert process.wait(timeout=60) == 143
    err = process.stderr.read()
    process.stdout.close()
    process.stderr.close()
    deadline = time.monotonic() + 10
    while any(alive(pid) for pid in started) and time.monotonic() < deadline:
        time.sleep(0.05)
    survivors = [pid for pid in started if alive(pid)]
    for pid in survivors:
        os.kill(pid, signal.SIGKILL)
    assert survivors == []
    # (Dask may warn first that its HTTP port is taken by another cluster on the machine.)
    assert "Traceback" not in err
    assert err.splitlines()[-1] == "error: interrupted by SIGTERM; no partial output was left"
    assert not output.exists() and temporaries(output) == []


def test_main_called_in_process_gives_back_the_callers_handlers():
    # A notebook, a test or a service running a command in its own process keeps its own handlers.
    script = (
        "import signal, sys\n"
        "from claimgate.cli.main import main\n"
        "def own(signum, frame): print('own handler ran')\n"
        "signal.signal(signal.SIGTERM, own)\n"
        "signal.signal(signal.SIGHUP, signal.SIG_IGN)\n"
        "hook = sys.unraisablehook\n"
        "try:\n"
        "    main(['demo', '--help'])  # argparse ends it with SystemExit\n"
        "except SystemExit:\n"
        "    pass\n"
        "assert signal.getsignal(signal.SIGTERM) is own, signal.getsignal(signal.SIGTERM)\n"
        "status = main(['--version'])\n"
        "assert signal.getsignal(signal.SIGTERM) is own, signal.getsignal(signal.SIGTERM)\n"
        "assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN\n"
        "assert sys.unraisablehook is hook\n"
        "signal.raise_signal(signal.SIGTERM)\n"
        "print('status', status)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith("own handler ran\nstatus 0\n")
