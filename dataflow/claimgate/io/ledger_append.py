"""Appending to a ledger: complete lines, one ``write`` under a lock, and never onto a file that is not a ledger.

Why: ``--ledger`` names a file a later ``claimgate recheck`` must be able to trust. Appending rows to a
citations table or an audit's output (a mistyped path) left a file that every later recheck refused, with
the other file's rows mixed in; so a non-empty file is checked before anything is written to it: its first
and last lines must be ledger rows (``io.ledger_file.checked_line``, the rule a read applies to every line),
and its last line must end in a newline. Only those two lines are read: a ledger grows to millions of
rows, and a whole read is what ``recheck`` does. Rules: docs/recheck-rules.md, "The ledger".
"""

from __future__ import annotations

import fcntl
import os
import stat
from collections.abc import Iterable
from pathlib import Path

from claimgate.errors import IngestionError, OutputError
from claimgate.io.files import file_kind
from claimgate.io.ledger_file import canonical_bytes, checked_line, format_problem, sealed
from claimgate.runtime.signals import raise_if_terminated

#: How much of the file's end is read at a time to find the start of its last line (bytes).
TAIL_STEP = 1 << 16


def _first_line(fd: int, size: int) -> bytes:
    head, at = b"", 0
    while at < size and b"\n" not in head:
        head += os.pread(fd, TAIL_STEP, at)
        at += TAIL_STEP
    return head.split(b"\n", 1)[0]


def _last_line(fd: int, size: int) -> bytes:
    tail, at = b"", size - 1  # the final newline is left out
    while at > 0 and b"\n" not in tail:
        step = min(TAIL_STEP, at)
        tail = os.pread(fd, step, at - step) + tail
        at -= step
    return tail.rsplit(b"\n", 1)[-1]


def _check_open(fd: int, path: str | Path) -> None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):  # swapped for a FIFO after the path was checked: never written into
        raise _wrong_kind(path, info.st_mode)
    size = info.st_size
    if not size:
        return
    problem = format_problem(os.pread(fd, 8, 0))
    if problem:
        raise IngestionError("ledger_invalid", f"cannot append to {path}: {problem}")
    if os.pread(fd, 1, size - 1) != b"\n":
        raise IngestionError("ledger_truncated", f"{path}: the last line has no newline (an interrupted write)")
    for where, line in (("first", _first_line(fd, size)), ("last", _last_line(fd, size))):
        _, reason, why = checked_line(line.removesuffix(b"\r"))
        if reason:
            raise IngestionError(reason, f"cannot append to {path}: its {where} line: {why}")


def _check_kind(path: str | Path) -> None:
    """``ledger_invalid`` when ``path`` exists and is a FIFO, device or socket (a folder is an output's refusal)."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return  # absent (it is created), or the open says why
    if not stat.S_ISREG(mode) and not stat.S_ISDIR(mode):
        raise _wrong_kind(path, mode)


def _wrong_kind(path: str | Path, mode: int) -> IngestionError:
    return IngestionError("ledger_invalid", f"{path} is {file_kind(mode)}: a ledger is a regular file")


def check_appendable(path: str | Path) -> None:
    """Refuse, before any work, a ``--ledger`` file rows could not be appended to; a missing file is fine.

    Raises ``IngestionError``: ``ledger_truncated`` (the last line has no newline), ``ledger_invalid`` (the
    first or last line is not a ledger row: a citations table, an output, another format),
    ``ledger_row_edited`` (the first or last row's checksum does not match); ``ledger_invalid`` too for a
    FIFO, device or socket (opening one could block). A folder or unreadable path is left to the output
    checks and to :func:`append_ledger`.
    """
    _check_kind(path)  # a FIFO is refused here, before any work: opening it would block
    if not os.path.isfile(path):
        return
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return
    try:
        _check_open(fd, path)
    finally:
        os.close(fd)


def append_ledger(path: str | Path, rows: Iterable[dict]) -> int:
    """Append ``rows`` (sealed, sorted keys) to the ledger at ``path``; returns how many were written.

    All lines go out in one ``write`` (continued after a short one) under an exclusive ``flock`` (created
    when absent, ``0o666`` less the umask, with any missing folders, as an output's); a FIFO, device or
    socket is ``ledger_invalid``. Under the lock, and before writing, a non-empty file is checked as
    :func:`check_appendable` says (its last line ends in a newline; its first and last lines are ledger
    rows); ``IngestionError`` otherwise, and nothing is written. ``OutputError`` (a usage error) when the
    file system refuses the folder or the file (a folder by that name, no permission).
    """
    data = b"".join(canonical_bytes(sealed(r)) + b"\n" for r in rows)
    _check_kind(path)
    raise_if_terminated()  # a signal something swallowed: no ledger is made or appended to after it
    try:
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # as an output's folders are made
        fd = os.open(path, os.O_RDWR | os.O_CREAT | os.O_APPEND | os.O_NONBLOCK, 0o666)
    except (FileExistsError, NotADirectoryError):  # mkdir or open met a file where a folder must be
        raise OutputError(f"cannot append to {path}: a part of its folder path is a file") from None
    except OSError as exc:
        raise OutputError(f"cannot append to {path}: {exc.strerror or exc}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        _check_open(fd, path)
        view = memoryview(data)
        while view:  # a short write (a full disk, a signal) goes on; an error raises, the file then ends mid-line
            view = view[os.write(fd, view) :]
    except OSError as exc:  # a full disk: the line cut short is refused as ledger_truncated by the next run
        raise OutputError(f"cannot append to {path}: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    return data.count(b"\n")
