"""A SIGTERM/SIGHUP that lands where Python ignores exceptions still ends the run, with one line.

The handler (``runtime.signals``) raises ``Terminated`` wherever the main thread is. A process pool
forking its workers runs ``logging``'s at-fork callbacks, and a ``__del__`` may run at any moment;
an exception raised there is printed as "Exception ignored in …" and dropped, and the run went on
(exit 0, a result written) or hung until the 20 s deadline, whose line then came after the run's
own. Now the swallowed ``Terminated`` is sent again (``signals._swallowed_terminated``) and the
deadline's line is printed only by a run that had not said it was interrupted. A ``Terminated`` dropped
without a trace (no unraisable report) is raised again where an output would be committed and between
a streamed run's chunks (``signals.raise_if_terminated``): the streamed multiprocessing run below once
exited 0 with its output written, one run in about forty under load.
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
    if signal.getsignal(signum) is signal.SIG_IGN:  # inherited as ignored, the run rightly keeps it ignored
        pytest.skip(f"{signal.Signals(signum).name} is ignored in this session (started under nohup?)")
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


# A ``Terminated`` that code drops without a trace (a library's ``except BaseException: pass``, or a C
# function clearing the error a Python callback left): nothing reaches ``sys.unraisablehook``, so only
# ``signals.raise_if_terminated`` at the commit points stops the run from going on to write its output.
DROPPED = (
    "def dropped():\n"
    "    try:\n"
    "        os.kill(os.getpid(), signal.SIGTERM)\n"
    "        time.sleep(5)\n"
    "    except BaseException:\n"
    "        pass  # someone's code that drops every exception\n"
)

COMMITS = {
    "write_atomic": (
        "from claimgate.io.atomic import write_atomic\n"
        "def write(handle):\n"
        "    handle.write(b'the whole result')\n"
        "    dropped()\n"
        "write_atomic(os.path.join(FOLDER, 'result.json'), write)\n"
    ),
    "staged_folder": (
        "from claimgate.io.atomic import staged_folder\n"
        "with staged_folder(os.path.join(FOLDER, 'pictures')) as stage:\n"
        "    (stage.folder / 'dag.svg').write_text('<svg/>')\n"
        "    dropped()\n"
        "    stage.commit()\n"
    ),
    "append_ledger": (
        "from claimgate.io.ledger_append import append_ledger\n"
        "dropped()\n"
        "append_ledger(os.path.join(FOLDER, 'ledger.jsonl'), [{'kind': 'request', 'corpus_sha256': '0' * 64, "
        "'sources': {}}])\n"
    ),
}


@pytest.mark.parametrize("commit", sorted(COMMITS))
def test_a_signal_dropped_without_a_trace_still_commits_nothing(commit, tmp_path):
    script = (
        "import os, signal, sys, time\n"
        f"FOLDER = {str(tmp_path)!r}\n"
        "from claimgate.runtime import signals\n"
        "signals.install_termination_handlers()\n" + DROPPED + "try:\n"
    )
    script += "".join(f"    {line}\n" for line in COMMITS[commit].splitlines())
    script += (
        "    print('committed')\nexcept KeyboardInterrupt as exc:\n    sys.exit(signals.interrupted_status(exc))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout) == (143, "")
    assert done.stderr == "error: interrupted by SIGTERM; no partial output was left\n"
    assert sorted(p.name for p in tmp_path.rglob("*")) == []  # no result, temporary, staging folder or ledger


def test_without_a_signal_the_same_commits_are_made(tmp_path):
    script = f"import os\nFOLDER = {str(tmp_path)!r}\ndef dropped():\n    pass\n"
    script += "".join(COMMITS[name] for name in sorted(COMMITS))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["dag.svg", "ledger.jsonl", "pictures", "result.json"]


def test_a_signal_dropped_in_a_streamed_run_ends_it_after_that_chunk(streamed_inputs, tmp_path):
    manifest, cases = streamed_inputs
    output = tmp_path / "r.jsonl"
    script = (
        "import os, signal, sys, time\n"
        "from claimgate.runtime import signals\n"
        "from claimgate.execution import streaming\n"
        "from claimgate.execution.settings import RunSettings\n"
        "signals.install_termination_handlers()\n" + DROPPED + "decided = streaming.decided_chunk\n"
        "calls = []\n"
        "def deciding(*args):\n"
        "    calls.append(1)\n"
        "    if len(calls) == 2:\n"
        "        dropped()\n"
        "    return decided(*args)\n"
        "streaming.decided_chunk = deciding\n"
        "try:\n"
        f"    streaming.stream_gate({str(manifest)!r}, {str(cases)!r}, {str(output)!r}, "
        "settings=RunSettings(chunk_rows=1000))\n"
        "except KeyboardInterrupt as exc:\n"
        "    print(len(calls))\n"
        "    sys.exit(signals.interrupted_status(exc))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert (done.returncode, done.stdout, done.stderr) == (
        143,
        "2\n",  # of the table's 60 chunks: the one the signal landed in, and none after it
        "error: interrupted by SIGTERM; no partial output was left\n",
    )
    assert sorted(p.name for p in tmp_path.iterdir()) == []


def test_a_second_run_in_the_same_process_after_a_terminated_one_writes_its_output(tmp_path):
    script = (
        "import os, signal, sys\n"
        "from claimgate.runtime import signals\n"
        "from claimgate.io.atomic import write_atomic\n"
        "signals.install_termination_handlers()\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    import time; time.sleep(5)\n"
        "except KeyboardInterrupt as exc:\n"
        "    first = signals.interrupted_status(exc)\n"
        "signals.install_termination_handlers()  # the next run, as main() does\n"
        f"write_atomic({str(tmp_path / 'second.json')!r}, lambda h: h.write(b'ok'))\n"
        "assert signal.getsignal(signal.SIGTERM) is not signal.SIG_IGN\n"
        "print(first)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout) == (0, "143\n"), done.stderr
    assert (tmp_path / "second.json").read_bytes() == b"ok"
