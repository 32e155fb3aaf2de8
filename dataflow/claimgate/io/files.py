"""Opening input files so that nothing on the file system can hang or flood a run.

Every input (manifest, pinned sources, case and citation tables, corpus, schema) is
opened here, the same way:

- ``O_NONBLOCK``: a path swapped for a FIFO (named pipe) between a check and the open
  would block ``open()`` until someone writes to it; with ``O_NONBLOCK`` the open
  returns at once, and the ``fstat`` that follows refuses anything that is not a
  regular file. The check is on the descriptor actually read, so there is no window
  between checking and reading (see README, "What is refused, and why").
- A size cap: at most ``limit + 1`` bytes are ever read into memory, so a file over its
  limit is refused after reading one byte past it, whatever its size.

Nothing here decides a reason code: callers turn ``NotRegularFileError`` and
``TooLargeError`` into their own refusals, and pass the reason ``read_utf8_text``
raises with.
"""

from __future__ import annotations

import errno
import os
import stat
import unicodedata
from pathlib import Path

from claimgate.errors import IngestionError

_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
_CHUNK = 1 << 20  # bytes per read() call


class NotRegularFileError(OSError):
    """The path names something other than a regular file (a folder, FIFO, socket or device)."""


class TooLargeError(ValueError):
    """The file holds more bytes than its limit allows (only ``limit + 1`` bytes were read)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        super().__init__(f"more than {limit} bytes")


def file_kind(mode: int) -> str:
    """A word for what ``mode`` (an ``st_mode``) names: ``folder``, ``FIFO``, ``socket``, ``device``…"""
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def open_regular(path: str | Path) -> tuple[int, os.stat_result]:
    """Open ``path`` read-only without blocking; return ``(descriptor, fstat result)``.

    Raises ``FileNotFoundError`` (and other ``OSError``) from ``open``, and
    ``NotRegularFileError`` (the descriptor already closed) when the opened object is
    not a regular file. The caller closes the descriptor.
    """
    try:
        fd = os.open(path, _OPEN_FLAGS)
    except OSError as exc:
        raise _named(exc, lambda: os.stat(path), path) from None
    return _regular_or_closed(fd, path)


def _named(exc: OSError, stat_of, name: str | Path) -> OSError:
    """``exc`` from opening ``name``, or ``NotRegularFileError`` naming what it is when opening failed because it
    is not a file at all: a Unix socket cannot be opened (``ENXIO``, "No such device or address")."""
    if exc.errno == errno.ENXIO:
        try:
            mode = stat_of().st_mode
        except OSError:
            return exc
        if not stat.S_ISREG(mode):
            return NotRegularFileError(f"{name} is {file_kind(mode)}")
    return exc


def _regular_or_closed(fd: int, name: str | Path) -> tuple[int, os.stat_result]:
    """``(fd, its fstat)`` when ``fd`` is a regular file; else ``fd`` is closed and ``NotRegularFileError`` raised."""
    try:
        info = os.fstat(fd)
    except BaseException:
        os.close(fd)
        raise
    if not stat.S_ISREG(info.st_mode):
        os.close(fd)
        raise NotRegularFileError(f"{name} is {file_kind(info.st_mode)}")
    return fd, info


def open_regular_beneath(root: str | Path, relative: str) -> tuple[int, os.stat_result]:
    """Open ``root/relative`` as ``open_regular`` does, following no symbolic link below ``root``.

    Each folder of ``relative`` (``os.sep`` separated, no ``.``/``..`` component: a resolved path
    inside ``root``) is opened from the one before it with ``O_NOFOLLOW``, and so is the file, so a
    component swapped for a symbolic link after it was checked ends in ``OSError`` (``ELOOP`` or
    ``ENOTDIR``) instead of reading outside ``root``; the file is opened without blocking and checked
    once open. Raises what ``open_regular`` raises, and ``ValueError`` for a ``.``/``..`` component.
    Where ``os.open`` takes no ``dir_fd`` (Windows) this is ``open_regular(root/relative)``.
    """
    parts = relative.split(os.sep)
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{relative!r} is not a resolved path below its folder")
    if os.open not in os.supports_dir_fd:  # pragma: no cover - Windows
        return open_regular(os.path.join(root, relative))
    folder_flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
    folder = os.open(root, os.O_RDONLY | os.O_DIRECTORY | getattr(os, "O_CLOEXEC", 0))
    try:
        for part in parts[:-1]:
            inner = os.open(part, folder_flags, dir_fd=folder)
            os.close(folder)
            folder = inner
        try:
            fd = os.open(parts[-1], _OPEN_FLAGS | os.O_NOFOLLOW, dir_fd=folder)
        except OSError as exc:
            raise _named(exc, lambda: os.stat(parts[-1], dir_fd=folder, follow_symlinks=False), relative) from None
    finally:
        os.close(folder)
    return _regular_or_closed(fd, relative)


def read_capped(fd: int, limit: int | None, size: int | None = None) -> bytes:
    """All bytes of the open file ``fd``, or raise ``TooLargeError`` after reading ``limit + 1`` of them.

    ``limit`` is in bytes; ``None`` means no limit. ``size``: the file's size when known
    (``fstat``): the first read asks for all of it and one byte more, so a file that did not
    grow is read into one buffer, never joined from chunks (one copy of its bytes in memory, not two).
    """
    chunks: list[bytes] = []
    total = 0
    while limit is None or total <= limit:
        step = size + 1 if size is not None and not chunks else _CHUNK
        want = step if limit is None else min(step, limit + 1 - total)
        chunk = os.read(fd, want)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        total += len(chunk)
    raise TooLargeError(limit)


def read_regular_bytes(path: str | Path, limit: int | None = None) -> tuple[bytes, os.stat_result]:
    """The bytes of the regular file ``path`` (``open_regular`` then ``read_capped``) and its ``fstat``.

    Raises ``FileNotFoundError``/``OSError``, ``NotRegularFileError`` or ``TooLargeError``.
    """
    fd, info = open_regular(path)
    try:
        if limit is not None and info.st_size > limit:  # refused without reading; the cap still holds if it grows
            raise TooLargeError(limit)
        return read_capped(fd, limit, info.st_size), info
    finally:
        os.close(fd)


def unicode_twin(root: Path, relative: str) -> str | None:
    """The spelling on disk of ``relative`` (under ``root``) when it differs only in Unicode normalization.

    A manifest written on one system in NFC (``café`` as one code point) names a file
    that another system (macOS) stores in NFD (``e`` + combining accent): the bytes
    differ, so the file is missing as named. Returns the on-disk relative path (with
    ``/``) when every component matches some entry under NFC, else ``None``. Used only
    to name the twin in a ``missing_source`` message; the file is never read under the
    other spelling.
    """
    folder = root
    found: list[str] = []
    for part in relative.split("/"):
        if part in ("", "."):
            continue
        if (folder / part).exists():
            folder, name = folder / part, part
        else:
            wanted = unicodedata.normalize("NFC", part)
            try:
                names = [n for n in os.listdir(folder) if unicodedata.normalize("NFC", n) == wanted]
            except OSError:
                return None
            if not names:
                return None
            name = sorted(names)[0]
            folder = folder / name
        found.append(name)
    twin = "/".join(found)
    return twin if twin != relative.strip("/") else None


def read_utf8_text(path: Path, reason: str, label: str, limit: int | None = None) -> str:
    """The text of an input file (manifest, corpus, case or citation table), strict UTF-8.

    The file is opened without blocking and must be a regular file. One
    leading byte-order mark is dropped. Raises ``IngestionError`` with ``reason`` when
    the file is absent (``<label> not found``), not a regular file (a folder, a FIFO),
    unreadable or not UTF-8; raises ``TooLargeError`` when it holds more than
    ``limit`` bytes (``None``: no limit), for the caller to name.
    """
    return utf8_text(read_input_bytes(path, reason, label, limit), path, reason)


def utf8_text(data: bytes, path: Path, reason: str) -> str:
    """``data`` (the bytes of the input file ``path``) decoded as strict UTF-8, one leading byte-order mark dropped.

    Raises ``IngestionError`` with ``reason`` (``<path> is not UTF-8 (byte N)``, N 0-based) otherwise.
    """
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestionError(reason, f"{path} is not UTF-8 (byte {exc.start})") from None


def read_input_bytes(path: Path, reason: str, label: str, limit: int | None = None) -> bytes:
    """The bytes of an input file, read as :func:`read_utf8_text` reads them (the same refusals, but no decoding)."""
    try:
        return read_regular_bytes(path, limit)[0]
    except FileNotFoundError:
        raise IngestionError(reason, f"{label} not found: {path}") from None
    except NotRegularFileError:
        raise IngestionError(reason, f"{label} is not a regular file: {path}") from None
    except OSError as exc:
        raise IngestionError(reason, f"cannot read {path}: {exc.strerror}") from None
