"""A SIGTERM/SIGHUP that lands where Python ignores exceptions still ends the run, with one line.

The handler (``runtime.signals``) raises ``Terminated`` wherever the main thread is. A process pool
forking its workers runs ``logging``'s at-fork callbacks, and a ``__del__`` may run at any moment;
an exception raised there is printed as "Exception ignored in …" and dropped, and the run went on
(exit 0, a result written) or hung until the 20 s deadline, whose line then came after the run's
own. Now the swallowed ``Terminated`` is sent again (``signals._swallowed_terminated``) and the
deadline's line is printed only by a run that had not said it was interrupted.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import time

import pytest
from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

from ..cli.test_signals import alive, children, start_gate, temporaries, wait_for

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="signals and /proc as on Linux")

PRELUDE = (
    "import os, signal, sys, time\n"
    "from claimgate.runtime import signals\n"
    "signals.install_termination_handlers()\n"
    "def ran_on():\n"
    "    end = time.monotonic() + 5\n"
    "    while time.monotonic() < end:\n"
    "        time.sleep(0.001)\n"
    "    print('the run went on')\n"
)


def _run(body: str) -> subprocess.CompletedProcess:
    script = PRELUDE + "try:\n" + body + "    ran_on()\nexcept KeyboardInterrupt as exc:\n"
    script += "    sys.exit(signals.interrupted_status(exc))\n"
    return subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)


@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"])
def test_a_signal_swallowed_by_a_del_still_ends_the_run_with_one_line(signum, status):
    done = _run(f"    class Dropped:\n        def __del__(self): signal.raise_signal({int(signum)})\n    Dropped()\n")
    assert (done.returncode, done.stdout) == (status, "")
    assert done.stderr == f"error: interrupted by {signal.Signals(signum).name}; no partial output was left\n"


def test_a_signal_swallowed_by_an_at_fork_callback_still_ends_the_run_with_one_line():
    done = _run(
        "    os.register_at_fork(after_in_parent=lambda: signal.raise_signal(signal.SIGTERM))\n"
        "    if os.fork() == 0:\n"
        "        os._exit(0)\n"
    )
    assert (done.returncode, done.stdout) == (143, "")
    assert done.stderr == "error: interrupted by SIGTERM; no partial output was left\n"


def test_the_deadline_line_is_not_printed_after_the_runs_own_line():
    script = (
        "import os, signal, time\n"
        "from claimgate.runtime import signals\n"
        "signals.TERMINATION_GRACE_SECONDS = 0.3\n"
        "signals.install_termination_handlers()\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(60)\n"
        "except signals.Terminated as exc:\n"
        "    signals.interrupted_status(exc)\n"
        "    time.sleep(60)  # the exit hangs (a pool's thread joined at exit)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 143
    assert done.stderr == "error: interrupted by SIGTERM; no partial output was left\n"


@pytest.fixture(scope="module")
def streamed_inputs(tmp_path_factory):
    folder = tmp_path_factory.mktemp("streamed")
    manifest = write_sources(folder / "src", n_sources=100, shape="short")
    return manifest, write_case_table(folder / "cases.jsonl", case_rows(manifest, 60_000, shape="short"))


@pytest.mark.parametrize("attempt", range(3))
@pytest.mark.parametrize("signum, status", [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"])
def test_a_signal_during_a_streamed_multiprocessing_run_ends_it_at_once(
    streamed_inputs, tmp_path, signum, status, attempt
):
    if signal.getsignal(signum) is signal.SIG_IGN:
        pytest.skip(f"{signal.Signals(signum).name} is ignored in this session (started under nohup?)")
    output = tmp_path / "out" / "r.jsonl"
    process = start_gate(*streamed_inputs, output, "--executor", "multiprocessing", "--partition-rows", "1000")
    wait_for(lambda: temporaries(output), process)
    time.sleep(0.05 * attempt)  # while workers start, and later
    workers = children(process.pid)
    process.send_signal(signum)
    started = time.monotonic()
    _, err = process.communicate(timeout=15)
    assert time.monotonic() - started < 10  # never the 20 s deadline
    assert process.returncode == status
    assert err == f"error: interrupted by {signal.Signals(signum).name}; no partial output was left\n"
    assert temporaries(output) == [] and not output.exists()
    deadline = time.monotonic() + 3
    while any(alive(pid) for pid in workers) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(alive(pid) for pid in workers)
