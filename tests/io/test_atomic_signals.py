"""A termination signal at any step of ``write_atomic`` leaves no temporary and the previous output as it was.

The signal is sent by the test at an exact step (monkeypatching the step), so each
window is checked deterministically rather than by re-running under load: right after
the temporary is created (inside ``mkstemp``'s caller, before its name is known to the
clean-up), right after it is created and locked, and while the clean-up of a failed
write runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import tempfile

import pytest
from claimgate.io import atomic
from claimgate.io.atomic import write_atomic
from claimgate.runtime import signals


@pytest.fixture
def termination_handlers():
    """The command line's SIGTERM/SIGHUP handlers, installed for the test and restored after it."""
    saved = {signum: signal.getsignal(signum) for signum in signals.TERMINATION_SIGNALS}
    assert signals.install_termination_handlers()
    yield
    signals.disarm_exit_deadline()  # this process goes on after the signal it sent itself
    signals._deferral["pending"] = None
    for signum, handler in saved.items():
        signal.signal(signum, handler)


def _sigterm_self() -> None:
    """Send SIGTERM to this process and give the handler bytecodes to run on."""
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1000):
        pass


def _left_beside(output) -> list[str]:
    return sorted(p.name for p in output.parent.iterdir())


def _assert_previous_output_kept(output, caught) -> None:
    assert caught.value.signum == signal.SIGTERM
    assert output.read_text() == "previous result"
    assert _left_beside(output) == ["r.json"]  # no .r.json.XXXXXXXX.tmp


def test_sigterm_right_after_the_temporary_is_created_leaves_no_temporary(tmp_path, monkeypatch, termination_handlers):
    output = tmp_path / "r.json"
    output.write_text("previous result")
    real_mkstemp = tempfile.mkstemp

    def mkstemp_then_sigterm(*args, **kwargs):
        made = real_mkstemp(*args, **kwargs)
        _sigterm_self()  # the file exists; write_atomic does not know its name yet
        return made

    monkeypatch.setattr(atomic.tempfile, "mkstemp", mkstemp_then_sigterm)
    with pytest.raises(signals.Terminated) as caught:
        write_atomic(output, lambda handle: handle.write(b"new"))
    _assert_previous_output_kept(output, caught)


def test_sigterm_right_after_the_temporary_is_locked_leaves_no_temporary(tmp_path, monkeypatch, termination_handlers):
    output = tmp_path / "r.json"
    output.write_text("previous result")
    real_locked_temporary = atomic._locked_temporary

    def locked_then_sigterm(folder, name):
        made = real_locked_temporary(folder, name)
        _sigterm_self()  # between the temporary's creation and the write
        return made

    monkeypatch.setattr(atomic, "_locked_temporary", locked_then_sigterm)
    with pytest.raises(signals.Terminated) as caught:
        write_atomic(output, lambda handle: handle.write(b"new"))
    _assert_previous_output_kept(output, caught)


def test_sigterm_during_the_clean_up_of_a_failed_write_leaves_no_temporary(tmp_path, monkeypatch, termination_handlers):
    output = tmp_path / "r.json"
    output.write_text("previous result")

    def failing_write(handle):
        handle.write(b"half")
        raise RuntimeError("the writer failed")

    real_suppress = contextlib.suppress
    calls = {"n": 0}

    def suppress_then_sigterm(*exceptions):
        calls["n"] += 1
        if calls["n"] == 1:  # the first step of the clean-up (closing the handle)
            _sigterm_self()
        return real_suppress(*exceptions)

    monkeypatch.setattr(atomic.contextlib, "suppress", suppress_then_sigterm)
    with pytest.raises(signals.Terminated) as caught:
        write_atomic(output, failing_write)
    _assert_previous_output_kept(output, caught)
    assert isinstance(caught.value.__context__, RuntimeError)


def test_a_write_without_signals_is_unchanged(tmp_path, termination_handlers):
    output = tmp_path / "r.json"
    output.write_text("previous result")
    write_atomic(output, lambda handle: handle.write(b"new"))
    assert output.read_bytes() == b"new" and _left_beside(output) == ["r.json"]
