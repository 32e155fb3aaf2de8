"""Connecting to a Dask scheduler named by ``--scheduler``: bounded in time, and any failure one usage error.

Why this exists: Dask's ``Client`` bounds only the TCP connect. An address where some
other service listens either hangs the run for ever (an HTTP server accepts, then
waits for a request line; Dask waits for its handshake reply) or ends it with a
traceback (a service that answers garbage: Dask reads the bytes as a frame length and
tries to allocate exabytes). Here the address is first asked for its identity, with
one deadline for connect, handshake and reply, and only a Dask scheduler gets a client.
"""

from __future__ import annotations

import asyncio

from claimgate.errors import UsageError

#: Seconds a connection to a ``--scheduler`` may take, handshake and identity reply included.
SCHEDULER_CONNECT_SECONDS = 15.0


async def _scheduler_identity(address: str, seconds: float) -> dict:
    """The identity a Dask scheduler at ``address`` reports, within ``seconds`` in all (connect, handshake, reply).

    Dask's own ``connect`` bounds only the TCP connect: a service that accepts and never
    answers (an HTTP server) would hold its handshake forever. Raises ``TimeoutError``,
    ``OSError``, or whatever a service that answers garbage makes the decoder raise.
    """
    from distributed.comm import connect

    async def identity() -> dict:
        comm = await connect(address, timeout=seconds)
        try:
            await comm.write({"op": "identity", "reply": True})
            return await comm.read()
        finally:
            comm.abort()

    return await asyncio.wait_for(identity(), timeout=seconds)


def scheduler_client(client_class: type, scheduler: str) -> object:
    """A client of the Dask scheduler at ``scheduler``, checked first with a bounded identity request.

    Any failure while connecting (no answer within ``SCHEDULER_CONNECT_SECONDS``, a
    refused connection, a service that is not a Dask scheduler and answers garbage,
    whatever exception that causes) becomes one ``UsageError`` naming the address and
    the exception type: a wrong ``--scheduler`` is a usage error, never a traceback.
    """
    seconds = SCHEDULER_CONNECT_SECONDS
    try:
        identity = asyncio.run(_scheduler_identity(scheduler, seconds))
        if not isinstance(identity, dict) or identity.get("type") != "Scheduler":
            raise ConnectionError("the service there is not a Dask scheduler")
        return client_class(scheduler, timeout=f"{seconds}s")
    except Exception as exc:  # any failure to connect (a MemoryError from a garbage frame length too): one usage error
        kind = "timed out" if isinstance(exc, TimeoutError | asyncio.TimeoutError) else type(exc).__name__
        detail = f"no answer after {seconds:.0f} s" if kind == "timed out" else (str(exc).splitlines() or [""])[0]
        raise UsageError(f"cannot reach the Dask scheduler {scheduler} ({kind}): {detail}"[:300]) from None
