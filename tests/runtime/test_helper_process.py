"""``runtime.helper_process.HelperProcess``: a forked child's bytes, or ``None`` and no process left behind."""

from __future__ import annotations

import os
import time

import pytest
from claimgate.runtime import helper_process
from claimgate.runtime.helper_process import HelperProcess, helper_available

pytestmark = pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")


def _pid_and(data: bytes) -> bytes:
    return str(os.getpid()).encode() + b":" + data


def test_the_result_is_the_childs_bytes_computed_in_another_process():
    helper = HelperProcess(_pid_and, b"x" * 100_000)
    first = helper.result()
    pid, _, data = first.partition(b":")
    assert int(pid) != os.getpid() and data == b"x" * 100_000
    assert helper.result() == first and not helper._process.is_alive()  # asked again: the same bytes


def _raises():
    raise ValueError("no")


def _exits():
    os._exit(3)


def _sleeps():
    time.sleep(60)
    return b"late"


@pytest.mark.parametrize("compute", [_raises, _exits])
def test_a_failed_child_gives_none(compute):
    assert HelperProcess(compute).result() is None


def test_closing_ends_a_child_never_asked():
    helper = HelperProcess(_sleeps)
    process = helper._process
    assert process.is_alive()
    started = time.monotonic()
    with helper:
        pass
    assert not process.is_alive() and time.monotonic() - started < 10


def test_no_helper_where_fork_is_not_the_platforms_way(monkeypatch):
    monkeypatch.setattr(helper_process.sys, "platform", "darwin")
    helper = HelperProcess(_pid_and, b"x")
    assert helper._process is None and helper.result() is None


def _swallow(signum, frame):
    pass


def _marks_then_sleeps(mark):
    mark.touch()
    time.sleep(60)
    return b"late"


def test_closing_ends_a_child_whatever_termination_handler_the_caller_had(tmp_path):
    import signal

    previous = signal.signal(signal.SIGTERM, _swallow)  # a caller whose SIGTERM handler does nothing
    try:
        mark = tmp_path / "computing"
        helper = HelperProcess(_marks_then_sleeps, mark)
        process = helper._process
        waited = time.monotonic()
        while not mark.exists() and time.monotonic() - waited < 30:  # its body runs: its handlers are reset
            time.sleep(0.01)
        started = time.monotonic()
        helper.close()
        assert process.exitcode == -signal.SIGTERM  # ended by the SIGTERM, not by the SIGKILL after it
        assert time.monotonic() - started < helper_process._END_SECONDS
    finally:
        signal.signal(signal.SIGTERM, previous)
