"""A ``--scheduler`` that is not a Dask scheduler is one usage error within a bounded time, never a hang or traceback.

Only loopback services started by the test itself: an HTTP server (accepts, then waits
for a request line that never comes) and a service that answers garbage bytes (which
Dask's frame decoder would read as an exabyte-sized frame length).
"""

from __future__ import annotations

import http.server
import socket
import socketserver
import threading
import time
from collections.abc import Iterator

import pytest
from claimgate.errors import UsageError
from claimgate.execution import dask_scheduler, drivers

from ..helpers import FIXTURES, run_cli


class _Garbage(socketserver.BaseRequestHandler):
    def handle(self) -> None:
        self.request.sendall(b"\xff" * 64)


def _serving(server: socketserver.BaseServer) -> Iterator[str]:
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"tcp://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


@pytest.fixture
def http_server_address() -> Iterator[str]:
    """``tcp://127.0.0.1:<free port>`` of an ``http.server`` (stopped after the test)."""
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    server.daemon_threads = True
    yield from _serving(server)


@pytest.fixture
def garbage_address() -> Iterator[str]:
    """``tcp://127.0.0.1:<free port>`` of a service that answers 64 bytes of 0xff to anything."""
    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), _Garbage)
    server.daemon_threads = True
    yield from _serving(server)


def test_http_server_as_scheduler_is_a_usage_error_not_a_hang(http_server_address, monkeypatch):
    monkeypatch.setattr(dask_scheduler, "SCHEDULER_CONNECT_SECONDS", 1.0)
    started = time.monotonic()
    with pytest.raises(UsageError) as raised, drivers.dask_client(http_server_address):
        pass
    assert time.monotonic() - started < 10
    message = str(raised.value)
    assert http_server_address in message and "timed out" in message and "\n" not in message


def test_garbage_answering_service_as_scheduler_is_a_usage_error_not_a_traceback(garbage_address, monkeypatch):
    monkeypatch.setattr(dask_scheduler, "SCHEDULER_CONNECT_SECONDS", 5.0)
    with pytest.raises(UsageError) as raised, drivers.dask_client(garbage_address):
        pass
    message = str(raised.value)
    assert garbage_address in message and "\n" not in message
    assert "Error" in message  # the exception type is named, e.g. "(ValueError)" or "(MemoryError)"


def test_garbage_scheduler_through_the_command_line_exits_2_with_one_line(garbage_address, tmp_path):
    result = run_cli(
        "gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json"),
        "--output", str(tmp_path / "r.jsonl"), "--executor", "dask", "--scheduler", garbage_address,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert errors == [line for line in result.stderr.splitlines() if not line.startswith(("usage:", " "))]
    assert len(errors) == 1 and f"cannot reach the Dask scheduler {garbage_address}" in errors[0]
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "r.jsonl").exists()


def test_closed_port_as_scheduler_names_the_address(monkeypatch):
    with socket.socket() as probe:  # a free loopback port, closed again: nothing listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setattr(dask_scheduler, "SCHEDULER_CONNECT_SECONDS", 1.0)
    address = f"tcp://127.0.0.1:{port}"
    with pytest.raises(UsageError, match=f"cannot reach the Dask scheduler {address}"), drivers.dask_client(address):
        pass
