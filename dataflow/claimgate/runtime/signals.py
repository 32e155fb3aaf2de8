"""Termination signals end a run the way Ctrl-C does: cleanly, with one line and a conventional status.

``SIGINT`` raises ``KeyboardInterrupt`` in Python, and every writer already cleans up
on it (``io.atomic.write_atomic`` removes its temporary, a staged picture folder is
deleted, executors are shut down). ``SIGTERM`` (what ``timeout``, CI cancellation and
``docker stop`` send) and ``SIGHUP`` (a closed terminal) would instead kill the process
at once and leave temporaries behind. ``install_termination_handlers`` makes them raise
``Terminated``, a ``KeyboardInterrupt``, so the same clean-up runs; ``interrupted_status``
turns any of them into the exit status ``128 + signal number`` (130, 143, 129) and one
line on stderr. ``SIGKILL`` cannot be caught: the next run of the same output removes
what it left (``io.atomic.remove_stale_temporaries``).
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
from collections.abc import Iterator
from typing import TextIO

#: Signals turned into ``Terminated``; SIGINT keeps Python's own ``KeyboardInterrupt``.
TERMINATION_SIGNALS = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))


class Terminated(KeyboardInterrupt):
    """The run received ``signum`` (SIGTERM or SIGHUP); raised where the main thread was."""

    def __init__(self, signum: int) -> None:
        self.signum = signum
        super().__init__(signal.Signals(signum).name)


#: Seconds the clean-up of a terminated run may take before the process exits anyway (``os._exit``).
#: A clean-up that waits on a worker pool or a cluster half-way through start-up can block; a
#: supervisor that sent SIGTERM expects the process to end. What such an exit leaves (a locked
#: temporary) is removed by the next run of the same output (``io.atomic.remove_stale_temporaries``).
TERMINATION_GRACE_SECONDS = 20.0

_exit_deadline: dict = {"timer": None}

#: The process that installed the handlers (``install_termination_handlers``); forked children differ.
_installed_in: dict = {"pid": None}

#: Whether this run already printed its one "interrupted by" line (``interrupted_status`` or the deadline).
_said: dict = {"interrupted": False}

#: While a ``deferred_termination`` block runs, a termination signal is noted here instead of raised.
_deferral: dict = {"depth": 0, "pending": None}

#: The termination signal this run received (``_raise_terminated``), kept until the run ends (the next
#: ``install_termination_handlers``, or ``disarm_exit_deadline``): ``raise_if_terminated`` reads it.
_received: dict = {"signum": None}
#: Signals the handler set to ``SIG_IGN`` itself (not a parent's ``nohup``): installed again by the next run.
_ignored_by_us: set = set()
#: The handlers ``install_termination_handlers`` replaced, by signal: ``restore_termination_handlers`` puts them back.
_replaced_handlers: dict = {}


def _raise_terminated(signum: int, frame: object) -> None:
    if _installed_in["pid"] not in (None, os.getpid()):
        # A forked child (a pool worker before its initializer ran) inherited this handler: it has no
        # clean-up of the run's to do, so it ends by the signal's default action, as if never handled.
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
        return
    # Ignore further termination signals while cleaning up: a second SIGTERM (some
    # supervisors repeat it) must not interrupt the clean-up of the first.
    for other in TERMINATION_SIGNALS:
        if signal.signal(other, signal.SIG_IGN) is not signal.SIG_IGN:  # a parent's SIG_IGN stays the parent's
            _ignored_by_us.add(other)
    _received["signum"] = signum
    _arm_exit_deadline(signum)
    if _deferral["depth"]:
        _deferral["pending"] = signum
        return
    raise Terminated(signum)


def _arm_exit_deadline(signum: int) -> None:
    """Exit with ``128 + signum`` after ``TERMINATION_GRACE_SECONDS`` if the clean-up has not ended the run.

    The line is printed once, by the process that installed the handlers, and only when the run
    had not already said it was interrupted (``interrupted_status``): one line on stderr either way.
    """

    def force_exit() -> None:
        if _installed_in["pid"] in (None, os.getpid()) and not _said["interrupted"]:
            _said["interrupted"] = True
            print(
                f"error: interrupted by {signal.Signals(signum).name}; clean-up took over "
                f"{TERMINATION_GRACE_SECONDS:.0f} s, exiting (the next run removes any temporary left)",
                file=sys.stderr,
                flush=True,
            )
        os._exit(128 + signum)

    if _exit_deadline["timer"] is not None:
        return
    timer = threading.Timer(TERMINATION_GRACE_SECONDS, force_exit)
    timer.daemon = True  # a run that ends in time exits without waiting for it
    _exit_deadline["timer"] = timer
    timer.start()


def disarm_exit_deadline() -> None:
    """Cancel the forced exit armed by a termination signal and forget the signal (for callers that go on
    after handling it: ``raise_if_terminated`` no longer raises for it)."""
    _received["signum"] = None
    _ignored_by_us.clear()  # the caller restores or keeps the handlers as it sees fit
    timer, _exit_deadline["timer"] = _exit_deadline["timer"], None
    if timer is not None:
        timer.cancel()


@contextlib.contextmanager
def deferred_termination() -> Iterator[None]:
    """Hold a SIGTERM/SIGHUP that arrives inside the block until the block ends, then raise ``Terminated``.

    For start-up steps that cannot be interrupted half-way and cleaned up (a Dask
    ``LocalCluster`` being built has no object to close yet): the signal ends the run
    right after, where the caller's clean-up is in place. Ctrl-C is not deferred.
    """
    _deferral["depth"] += 1
    try:
        yield
    finally:
        _deferral["depth"] -= 1
    pending = _deferral["pending"]
    if pending is not None and not _deferral["depth"]:
        _deferral["pending"] = None
        raise Terminated(pending)


def raise_if_terminated() -> None:
    """Raise ``Terminated`` again when this run received SIGTERM/SIGHUP and still goes on; else nothing.

    Called where an output is about to be committed (``io.atomic.write_atomic`` before its rename, a
    staged folder's commit, a ledger append) and between the chunks of a streamed run. The handler's
    ``Terminated`` ends the run wherever the main thread is, unless code there drops it without a
    trace: a library's ``except BaseException: pass``, or a C function that clears whatever error a
    Python callback left (unlike a ``__del__``, nothing reaches ``sys.unraisablehook``). The run then
    went on and wrote its output, exit 0, as if never signalled. Here it ends before anything is
    committed. Inside a ``deferred_termination`` block the held signal is raised at the block's end.
    """
    signum = _received["signum"]
    if signum is not None and not _deferral["depth"] and _installed_in["pid"] == os.getpid():
        raise Terminated(signum)


def _swallowed_terminated(unraisable: object) -> None:
    """``sys.unraisablehook``: a ``Terminated`` raised where Python ignores exceptions is delivered again.

    The handler raises wherever the main thread is; inside an at-fork callback (a pool forking its
    workers runs ``logging``'s), a ``__del__`` or a weak-reference callback Python prints "Exception
    ignored in …" and goes on, and the run would finish as if never signalled. Instead the signal is
    sent again, so ``Terminated`` is raised at the next bytecode of the main thread, in the run's code.
    Every other unraisable exception goes to the hook that was there before.
    """
    exc = getattr(unraisable, "exc_value", None)
    if not isinstance(exc, Terminated) or _installed_in["pid"] != os.getpid():
        _previous_unraisablehook["hook"](unraisable)
        return
    signal.signal(exc.signum, _raise_terminated)  # the handler had set it to SIG_IGN
    # Sent from a thread, a moment later: sent from here, the handler would run again at once, still
    # inside the frame that ignores exceptions. Swallowed again, it comes back here and is resent.
    resend = threading.Timer(REDELIVERY_SECONDS, os.kill, (os.getpid(), exc.signum))
    resend.daemon = True
    resend.start()


_previous_unraisablehook: dict = {"hook": sys.unraisablehook}
#: How long after a swallowed ``Terminated`` its signal is sent again (``_swallowed_terminated``).
REDELIVERY_SECONDS = 0.01


def install_termination_handlers() -> bool:
    """Make SIGTERM and SIGHUP raise ``Terminated`` in the main thread; return whether installed.

    Does nothing (returns ``False``) outside the main thread, where Python cannot set
    handlers, and leaves a signal alone that the parent process set to be ignored
    (``nohup`` ignores SIGHUP on purpose). A signal an earlier run of this process received is
    forgotten, and the handlers it set aside are installed again (``main`` called twice).
    """
    if threading.current_thread() is not threading.main_thread():
        return False
    _installed_in["pid"] = os.getpid()
    ours = set(_ignored_by_us)  # set aside by an earlier run's handler, not by a parent: installed again
    disarm_exit_deadline()  # a run in this process (``main`` called again) starts unsignalled, no deadline
    _said["interrupted"] = False
    if sys.unraisablehook is not _swallowed_terminated:
        _previous_unraisablehook["hook"] = sys.unraisablehook
        sys.unraisablehook = _swallowed_terminated
    for signum in TERMINATION_SIGNALS:
        if signal.getsignal(signum) is signal.SIG_IGN and signum not in ours:
            _replaced_handlers.pop(signum, None)  # ignored by the caller now: nothing of ours to undo
            continue
        replaced = signal.signal(signum, _raise_terminated)
        if replaced is not _raise_terminated and not (replaced is signal.SIG_IGN and signum in ours):
            _replaced_handlers[signum] = replaced  # the caller's, not an earlier run's of this process
    return True


def restore_termination_handlers() -> None:
    """Put back the SIGTERM/SIGHUP handlers and the unraisable hook ``install_termination_handlers`` replaced.

    ``main`` calls it when the command returns, so a caller that runs a command in its own process
    (a notebook, a test, a service) keeps the handlers it had. A handler that was set outside Python
    (``signal.getsignal`` gives ``None``) cannot be set again from Python: that signal is left at its
    default action. Does nothing outside the main thread or in a forked child. A signal the run
    received still ends the process as before (its exit deadline stays armed).
    """
    if threading.current_thread() is not threading.main_thread() or _installed_in["pid"] != os.getpid():
        return
    for signum, handler in _replaced_handlers.items():
        signal.signal(signum, signal.SIG_DFL if handler is None else handler)
    _ignored_by_us.clear()  # what the run's handler set aside is back as the caller had it
    _replaced_handlers.clear()
    if sys.unraisablehook is _swallowed_terminated:
        sys.unraisablehook = _previous_unraisablehook["hook"]


def interrupted_status(exc: KeyboardInterrupt, stream: TextIO | None = None) -> int:
    """Print one line for an interrupted run and return its exit status (128 + signal number).

    ``Terminated`` gives 143 (SIGTERM) or 129 (SIGHUP); a plain ``KeyboardInterrupt``
    (SIGINT) gives 130. Outputs are all or nothing, so whatever was not complete was
    not written.
    """
    signum = exc.signum if isinstance(exc, Terminated) else int(signal.SIGINT)
    name = signal.Signals(signum).name
    _said["interrupted"] = True
    print(f"error: interrupted by {name}; no partial output was left", file=stream or sys.stderr)
    return 128 + signum
