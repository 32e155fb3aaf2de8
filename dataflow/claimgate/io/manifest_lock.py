"""One ``pin`` at a time per manifest: an exclusive lock held from reading the manifest to writing it.

Why: ``pin`` reads the manifest, adds or re-pins entries and writes it back. Two ``pin`` runs on one
manifest at once both read the same entries, and the second write dropped the first run's additions:
in 2 of 5 trials a manifest held 300 of 600 pages and both runs exited 0. The write itself is atomic
(``io.atomic``), so readers (``verify``, ``gate``, ``audit``) never see half a file and take no lock;
only the read-change-write of ``pin`` needs one.

How: ``fcntl.flock`` on a lock file beside the manifest, ``.<manifest name>.lock`` (hidden, so a shell
glob such as ``docs/*`` or a ``--corpus-dir`` listing does not pick it up). The file is created when
missing and left in place (removing it would let a third run lock a new file while a second holds the
old one); it stays empty. The lock is released when the descriptor closes, also when the process dies.
A second run waits for the first, then reads what it wrote. See docs/gate-rules.md, "Pinning".

Fails closed: a lock file that cannot be opened or created (a read-only folder, no permission) is an
``OutputError`` (a usage error: the manifest could not be written there either). Systems without
``fcntl`` (Windows) take no lock. When the manifest's folder does not exist no lock is taken: no file
can be pinned into it, and the refusal of the files follows.
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections.abc import Iterator
from pathlib import Path

from claimgate.errors import OutputError

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

_LOCK_FLAGS = (
    os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
)


def lock_path(manifest_path: str | Path) -> Path:
    """The lock file of a manifest: ``.<name>.lock`` in the manifest's folder."""
    path = Path(manifest_path)
    return path.with_name(f".{path.name}.lock")


@contextlib.contextmanager
def manifest_locked(manifest_path: str | Path) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``lock_path(manifest_path)`` for the ``with`` block (waits for another holder).

    Raises ``OutputError`` when the lock file cannot be opened or created, or is not a regular file
    (a symbolic link is not followed).
    """
    if fcntl is None:
        yield
        return
    lock = lock_path(manifest_path)
    try:
        fd = os.open(lock, _LOCK_FLAGS, 0o644)
    except (FileNotFoundError, NotADirectoryError):  # no folder: nothing can be pinned into it
        yield
        return
    except OSError as exc:
        raise OutputError(f"cannot lock the manifest {manifest_path}: {lock}: {exc.strerror or exc}") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OutputError(f"cannot lock the manifest {manifest_path}: {lock} is not a regular file")
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        os.close(fd)
