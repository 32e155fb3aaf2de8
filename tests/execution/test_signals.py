"""SIGTERM/SIGHUP handling in-process: exit statuses, deferral during start-up, signals a parent ignored."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time

import pytest
from claimgate.runtime import signals


@pytest.fixture
def handlers():
    saved = {signum: signal.getsignal(signum) for signum in signals.TERMINATION_SIGNALS}
    for signum in signals.TERMINATION_SIGNALS:  # as a shell starts a command, whatever started pytest (nohup)
        signal.signal(signum, signal.SIG_DFL)
    yield
    signals.restore_termination_handlers()
    signals.disarm_exit_deadline()  # this process goes on after the signal it sent itself
    for signum, handler in saved.items():
        signal.signal(signum, handler)


@pytest.mark.parametrize(
    "exc, status, name",
    [
        (KeyboardInterrupt(), 130, "SIGINT"),
        (signals.Terminated(signal.SIGTERM), 143, "SIGTERM"),
        (signals.Terminated(signal.SIGHUP), 129, "SIGHUP"),
    ],
)
def test_each_interruption_has_its_conventional_status_and_one_line(exc, status, name):
    stream = io.StringIO()
    assert signals.interrupted_status(exc, stream) == status
    assert stream.getvalue() == f"error: interrupted by {name}; no partial output was left\n"


def test_sigterm_raises_terminated_which_is_a_keyboard_interrupt(handlers):
    assert signals.install_termination_handlers()
    with pytest.raises(KeyboardInterrupt) as caught:
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # bytecodes for the handler to run on
            pass
    assert isinstance(caught.value, signals.Terminated) and caught.value.signum == signal.SIGTERM


def test_a_signal_during_a_deferred_block_is_raised_when_the_block_ends(handlers):
    signals.install_termination_handlers()
    reached_end_of_block = False
    with pytest.raises(signals.Terminated) as caught:
        with signals.deferred_termination():
            os.kill(os.getpid(), signal.SIGHUP)
            for _ in range(1000):  # bytecodes for the handler to run on
                pass
            reached_end_of_block = True
    assert reached_end_of_block and caught.value.signum == signal.SIGHUP


def test_a_signal_the_parent_ignored_stays_ignored(handlers):
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    signals.install_termination_handlers()
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signals._raise_terminated


def test_a_clean_up_that_hangs_is_ended_after_the_grace_period():
    # A clean-up blocked on a worker pool or a cluster must not keep a terminated run alive.
    script = (
        "import os, signal, time\n"
        "from claimgate.runtime import signals\n"
        "signals.TERMINATION_GRACE_SECONDS = 0.5\n"
        "signals.install_termination_handlers()\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    time.sleep(60)\n"
        "except signals.Terminated:\n"
        "    time.sleep(60)  # the clean-up hangs\n"
    )
    started = time.monotonic()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=50)
    assert done.returncode == 143
    assert time.monotonic() - started < 30
    assert "clean-up took over" in done.stderr


def test_a_run_that_cleans_up_in_time_keeps_its_own_status():
    script = (
        "import os, signal, sys\n"
        "from claimgate.runtime import signals\n"
        "signals.install_termination_handlers()\n"
        "try:\n"
        "    os.kill(os.getpid(), signal.SIGTERM)\n"
        "    while True: pass\n"
        "except signals.Terminated as exc:\n"
        "    sys.exit(signals.interrupted_status(exc))\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=50)
    assert done.returncode == 143
    assert done.stderr == "error: interrupted by SIGTERM; no partial output was left\n"


def test_restoring_puts_back_each_handler_and_the_unraisable_hook(handlers):
    def own_handler(signum, frame):  # a caller's own handler (a service, a notebook)
        pass

    signal.signal(signal.SIGTERM, own_handler)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup: never replaced, so left as it is
    hook = sys.unraisablehook
    try:
        signals.install_termination_handlers()
        assert signal.getsignal(signal.SIGTERM) is signals._raise_terminated
        signals.install_termination_handlers()  # a second install keeps the first handler it replaced
        signals.restore_termination_handlers()
        assert signal.getsignal(signal.SIGTERM) is own_handler
        assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
        assert sys.unraisablehook is hook
        signals.restore_termination_handlers()  # nothing left to put back: changes nothing
        assert signal.getsignal(signal.SIGTERM) is own_handler
    finally:
        sys.unraisablehook = hook


def test_after_a_handled_signal_the_next_run_still_respects_a_parents_ignore(handlers):
    # The run's handler sets both signals to SIG_IGN while it cleans up; restored, the next run
    # must see the caller's handlers, not take the parent's SIG_IGN for one of its own.
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signals.install_termination_handlers()
    with pytest.raises(signals.Terminated):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # bytecodes for the handler to run on
            pass
    signals.restore_termination_handlers()
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    signals.install_termination_handlers()
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signals._raise_terminated
    signals.restore_termination_handlers()


def test_a_second_install_after_a_handled_signal_leaves_a_parents_ignore(handlers):
    signal.signal(signal.SIGHUP, signal.SIG_IGN)  # as under nohup
    signals.install_termination_handlers()
    with pytest.raises(signals.Terminated):
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):  # bytecodes for the handler to run on
            pass
    signals.install_termination_handlers()  # the next run, without a restore in between
    assert signal.getsignal(signal.SIGHUP) is signal.SIG_IGN
    assert signal.getsignal(signal.SIGTERM) is signals._raise_terminated
