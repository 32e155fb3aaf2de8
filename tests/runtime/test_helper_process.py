"""``runtime.helper_process.HelperProcess``: a forked child's bytes, or ``None`` and no process left behind."""

from __future__ import annotations

import os
import signal
import time

import pytest
from claimgate.runtime import helper_process
from claimgate.runtime.helper_process import STREAM_MESSAGE_BYTES, HelperProcess, HelperStream, helper_available

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


ORPHANED = """
import os, sys, time
from claimgate.runtime.helper_process import HelperProcess

def compute(mark):
    with open(mark, "w") as f:
        f.write(str(os.getpid()))
    time.sleep(0.5)  # the caller is killed meanwhile
    return b"x" * 1_000_000  # more than a pipe holds: the write waits for a reader

helper = HelperProcess(compute, sys.argv[1])
while not os.path.exists(sys.argv[1]) or not open(sys.argv[1]).read():
    time.sleep(0.01)
os.kill(os.getpid(), 9)
"""


def alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, ended but not yet reaped by its new parent, does not)."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rpartition(")")[2].split()[0] != "Z"
    except FileNotFoundError:
        return False


def test_a_helper_whose_caller_was_killed_ends_instead_of_waiting_for_a_reader(tmp_path):
    import subprocess
    import sys

    mark = tmp_path / "helper.pid"
    done = subprocess.run([sys.executable, "-c", ORPHANED, str(mark)], capture_output=True, timeout=60)
    assert done.returncode == -9
    pid = int(mark.read_text())
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if not alive(pid):
            return  # it ended
        time.sleep(0.05)
    os.kill(pid, 9)
    pytest.fail("the helper outlived its killed caller, waiting on its own pipe")


def test_a_helper_that_sends_nothing_in_time_gives_none_and_is_ended():
    helper = HelperProcess(_sleeps)
    process = helper._process
    started = time.monotonic()
    assert helper.result(timeout=0.3) is None
    assert not process.is_alive() and time.monotonic() - started < 10


def test_a_stopped_helper_does_not_hold_the_caller_up():
    import signal

    helper = HelperProcess(_sleeps)
    os.kill(helper._process.pid, signal.SIGSTOP)  # it cannot act on SIGTERM now: SIGKILL ends it
    started = time.monotonic()
    assert helper.result(timeout=0.3) is None
    assert not helper._process.is_alive() and time.monotonic() - started < 10


@pytest.mark.parametrize("limit, available", [(100, False), (4095, False), (4096, True), (None, True)])
def test_no_helper_under_a_low_process_limit(monkeypatch, limit, available):
    import resource

    soft = resource.RLIM_INFINITY if limit is None else limit
    monkeypatch.setattr(resource, "getrlimit", lambda which: (soft, soft))
    assert helper_available() is available


def _counts_then(n: int, then: str):
    for i in range(n):
        yield f"{os.getpid()}:{i}".encode()
    if then == "raise":
        raise ValueError("no")
    if then == "sleep":
        time.sleep(60)


def _all_messages(stream: HelperStream, seconds: float = 30) -> list[bytes]:
    messages, deadline = [], time.monotonic() + seconds
    while not stream.finished and time.monotonic() < deadline:
        messages += stream.arrived()
        time.sleep(0.01)
    return messages


def test_a_stream_gives_each_message_in_order_from_another_process():
    with HelperStream(_counts_then, 50, "end") as stream:
        messages = _all_messages(stream)
    pids = {m.split(b":")[0] for m in messages}
    assert [int(m.split(b":")[1]) for m in messages] == list(range(50))
    assert len(pids) == 1 and int(pids.pop()) != os.getpid()
    assert stream.finished and stream.arrived() == []


def test_a_stream_that_fails_keeps_the_messages_it_sent_and_ends():
    with HelperStream(_counts_then, 3, "raise") as stream:
        messages = _all_messages(stream)
    assert [int(m.split(b":")[1]) for m in messages] == [0, 1, 2] and stream.finished


def test_arrived_never_waits_and_closing_ends_a_stream_still_running():
    stream = HelperStream(_counts_then, 1, "sleep")
    process = stream._process
    deadline = time.monotonic() + 30
    messages = []
    while not messages and time.monotonic() < deadline:
        messages = stream.arrived()
    started = time.monotonic()
    assert stream.arrived() == [] and time.monotonic() - started < 1  # the child sleeps: nothing more, no wait
    assert not stream.finished
    stream.close()
    assert not process.is_alive() and stream.finished


def test_no_stream_where_fork_is_not_the_platforms_way(monkeypatch):
    monkeypatch.setattr(helper_process.sys, "platform", "darwin")
    stream = HelperStream(_counts_then, 3, "end")
    assert stream._process is None and stream.finished and stream.arrived() == []
    with pytest.raises(TypeError):
        stream.result()


def _group(root, path: str, limit: str, current: int) -> None:
    folder = root.joinpath(*[p for p in path.split("/") if p])
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "pids.max").write_text(limit + "\n")
    (folder / "pids.current").write_text(f"{current}\n")


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_free_tasks_is_the_fewest_left_in_the_process_group_or_any_above_it(tmp_path, monkeypatch, version):
    from claimgate.runtime import helper_process

    monkeypatch.setattr(helper_process, "CGROUP_ROOT", str(tmp_path))
    tree = tmp_path / "pids" if version == "v1" else tmp_path
    line = "7:pids:/box/job\n" if version == "v1" else "0::/box/job\n"
    (tmp_path / "cgroup").write_text("4:memory:/elsewhere\n" + line)
    _group(tree, "/box/job", "max", 5)
    assert helper_process.free_tasks(str(tmp_path / "cgroup")) is None  # no limit anywhere
    _group(tree, "/box", "40", 30)  # a container's limit one level up: 10 left
    assert helper_process.free_tasks(str(tmp_path / "cgroup")) == 10
    _group(tree, "/box/job", "500", 2)
    assert helper_process.free_tasks(str(tmp_path / "cgroup")) == 10
    assert helper_process.free_tasks(str(tmp_path / "missing")) is None


@pytest.mark.parametrize("left, available", [(None, True), (10, False), (63, False), (64, True)])
def test_no_helper_when_a_control_group_has_few_tasks_left(monkeypatch, left, available):
    # a container's --pids-limit or systemd's TasksMax: a helper (and numpy's threads) could take the last slots
    from claimgate.runtime import helper_process

    monkeypatch.setattr(helper_process, "free_tasks", lambda: left)
    assert helper_process.helper_available() is available


def _one_long_message(size: int):
    yield b"short"
    yield b"x" * size
    yield b"never sent"


@pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")
def test_a_stream_message_longer_than_the_bound_ends_the_child():
    with HelperStream(_one_long_message, STREAM_MESSAGE_BYTES + 1) as stream:
        messages = _all_messages(stream)
    assert messages == [b"short"] and stream.finished
    with HelperStream(_one_long_message, STREAM_MESSAGE_BYTES) as stream:
        assert [len(m) for m in _all_messages(stream)] == [5, STREAM_MESSAGE_BYTES, 10]


def _stopped():
    os.kill(os.getpid(), signal.SIGSTOP)
    return b"never"


@pytest.mark.skipif(not helper_available(), reason="the helper is forked (Linux only)")
def test_closing_ends_a_stopped_child_at_once():
    helper = HelperProcess(_stopped)
    process = helper._process
    time.sleep(0.3)  # it has stopped itself by now
    started = time.monotonic()
    helper.close()
    assert not process.is_alive() and time.monotonic() - started < 1  # not the 2 s wait before SIGKILL
