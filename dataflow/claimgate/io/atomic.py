"""All-or-nothing outputs: atomic files, staged folders, and the checks made before any work.

Why this exists: an operator kills runs (``timeout``, CI cancellation, container stops),
fills disks and mistypes paths. Whatever happens, a result file is either the complete
new file or the file that was there before; no temporary is left behind by a run that
could clean up, and the next run removes the ones a ``kill -9`` left; an input is never
overwritten by an output (see README, "What is refused, and why").

- ``write_atomic`` writes into ``.<name>.<8 random characters>.tmp`` beside the target,
  holding an exclusive ``flock`` on it while it writes, fsyncs, and renames it into
  place. A temporary of the same output name whose lock nobody holds belongs to a dead
  run and is removed (``remove_stale_temporaries``); a live run's is never touched.
  Folders the write had to create are removed again when it fails.
- ``staged_folder`` collects a set of files (the DAG pictures) in a hidden folder, moved into place on ``commit``.
- ``check_outputs`` refuses, before any work, an output that is one of the inputs or another output (the same
  file, however reached: same ``st_dev``/``st_ino`` or same resolved path), cannot be written, or lies inside
  an input folder (``--corpus-dir``).
"""

from __future__ import annotations

import contextlib
import errno
import fcntl
import io
import os
import re
import shutil
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from claimgate.errors import OutputError
from claimgate.runtime.signals import deferred_termination, raise_if_terminated

#: ``tempfile`` names are 8 characters of this alphabet; anything else is not one of ours.
_RANDOM_PART = r"[a-z0-9_]{8}"


def temporary_name_pattern(name: str) -> re.Pattern[str]:
    """The names ``write_atomic`` gives temporaries of an output called ``name``: ``.<name>.<8 chars>.tmp``."""
    return re.compile(rf"\.{re.escape(name)}\.{_RANDOM_PART}\.tmp\Z")


def remove_stale_temporaries(target: str | Path) -> list[Path]:
    """Remove temporaries of ``target``'s name left beside it by runs that died; return the paths removed.

    A temporary is removed only when its name matches ``temporary_name_pattern`` exactly,
    it is a regular file, and an exclusive ``flock`` on it can be taken at once: a live
    writer holds that lock until it renames the file, and the kernel drops it when the
    writer dies, even by ``SIGKILL``. Other files, other outputs' temporaries and a live
    concurrent run's temporary are never touched. Errors are ignored (cleanup is best effort).
    """
    folder, pattern = Path(target).parent, temporary_name_pattern(Path(target).name)
    removed: list[Path] = []
    try:
        names = [n for n in os.listdir(folder) if pattern.match(n)]
    except OSError:
        return removed
    for name in sorted(names):
        path = folder / name
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC)
        except OSError:
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                continue
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            # Still the file we locked (not replaced between listing and opening)?
            if os.path.samestat(os.fstat(fd), os.lstat(path)):
                os.unlink(path)
                removed.append(path)
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed


def _make_parents(folder: Path) -> list[Path]:
    """Create ``folder`` and its missing parents; return the folders created, innermost first."""
    missing: list[Path] = []
    current = folder
    while not current.exists() and current != current.parent:
        missing.append(current)
        current = current.parent
    for created in reversed(missing):
        try:
            created.mkdir()
        except FileExistsError:
            if not created.is_dir():
                raise
            missing.remove(created)  # made by someone else meanwhile: not ours to remove
    return missing


def remove_empty_folders(folders: Iterable[Path]) -> None:
    """Remove each folder of ``folders`` (innermost first) if it is empty; ignore the rest."""
    for folder in folders:
        with contextlib.suppress(OSError):
            folder.rmdir()


def _locked_temporary(folder: Path, name: str) -> tuple[int, str]:
    """A new temporary for output ``name`` in ``folder``, exclusively ``flock``-ed: ``(fd, path)``.

    ``remove_stale_temporaries`` in another run could unlink the file between its
    creation and the lock; then it has no links left and another one is made. On a
    file system without ``flock`` the file is left unlocked; cleaners there cannot
    lock it either, so they leave it alone.
    """
    while True:
        fd, temporary = tempfile.mkstemp(prefix=f".{name}.", suffix=".tmp", dir=folder)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
        except OSError as exc:
            if exc.errno not in (errno.ENOLCK, errno.EOPNOTSUPP, errno.ENOSYS, errno.EINVAL):
                os.close(fd)
                os.unlink(temporary)
                raise
            return fd, temporary
        if os.fstat(fd).st_nlink > 0:
            return fd, temporary
        os.close(fd)


def write_atomic(path: str | Path, write: Callable[[io.BufferedWriter], None]) -> None:
    """Write a file atomically: ``write(handle)`` fills a temporary file beside ``path``.

    The temporary file is fsynced and renamed over ``path`` only when ``write``
    returns; on any exception (or interruption: ``KeyboardInterrupt`` and the
    ``SIGTERM``/``SIGHUP`` the command line turns into one) it is removed, the folders
    this write created are removed again, and ``path`` is untouched. Temporaries of
    the same output left by a killed run are removed first (``remove_stale_temporaries``).
    The file gets the mode of the file it replaces, else ``0o666`` less the umask.
    Raises ``OutputError`` (a usage error) when the file system refuses: ``path`` is a
    folder, a parent is a file, no permission, disk full.
    """
    target = Path(path)
    created: list[Path] = []
    temporary: str | None = None
    handle: io.BufferedWriter | None = None
    try:
        if target.is_dir():
            raise IsADirectoryError(errno.EISDIR, "is a folder", str(target))
        created = _make_parents(target.parent)
        if not _inside_staging(target.parent):  # a staging folder is new and private: nothing stale in it
            remove_stale_temporaries(target)
        mode = target.stat().st_mode & 0o7777 if target.exists() else 0o666 & ~_umask()
        # Order matters: a SIGTERM/SIGHUP between the file's creation (inside mkstemp) and the moment its
        # name and handle are known here would leave it behind; it is held until both are recorded, then raised.
        with deferred_termination():
            fd, temporary = _locked_temporary(target.parent, target.name)
            handle = os.fdopen(fd, "wb")
        with handle:
            write(handle)
            handle.flush()
            os.fsync(handle.fileno())
            os.chmod(temporary, mode)
            raise_if_terminated()  # a signal something swallowed: nothing is committed after it
            os.replace(temporary, target)  # while the lock is held: the name is never stale-looking
    except BaseException as exc:
        # The clean-up itself is not cut short by a first termination signal arriving now.
        with deferred_termination():
            if handle is not None:
                with contextlib.suppress(OSError):
                    handle.close()
            if temporary is not None:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(temporary)
            remove_empty_folders(created)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {target}: {exc.strerror or exc}") from None
        raise


def _umask() -> int:
    """The process umask (read by setting and restoring it)."""
    current = os.umask(0o022)
    os.umask(current)
    return current


# --------------------------------------------------------------------------- staged folders


_STAGING_PATTERN = re.compile(rf"\.claimgate-staging\.{_RANDOM_PART}\.tmp\Z")
_STAGING_LOCK = ".lock"  # held with flock while the staging folder is in use


def _inside_staging(folder: Path) -> bool:
    """Whether ``folder`` is, or is inside, a staging folder of ``staged_folder``."""
    return any(_STAGING_PATTERN.match(part) for part in folder.parts)


class StagedFolder:
    """Files written under ``folder`` (hidden, beside ``destination``) until ``commit`` moves them into place."""

    def __init__(self, destination: Path, folder: Path) -> None:
        self.destination = destination
        self.folder = folder
        self.committed = False

    def final_text(self, text: str) -> str:
        """``text`` (a note naming staged files) with the staging folder's path replaced by ``destination``."""
        return text.replace(str(self.folder), str(self.destination))

    def commit(self) -> list[Path]:
        """Move every staged file to the same relative place under ``destination``; return the new paths.

        Renames within one file system (the staging folder sits in ``destination``), so
        nothing is copied and no new data blocks are needed. Raises ``OutputError``.
        """
        moved: list[Path] = []
        lock = self.folder / _STAGING_LOCK
        raise_if_terminated()  # a signal something swallowed: nothing is moved into place after it
        try:
            for staged in sorted(p for p in self.folder.rglob("*") if p.is_file() and p != lock):
                final = self.destination / staged.relative_to(self.folder)
                final.parent.mkdir(parents=True, exist_ok=True)
                os.replace(staged, final)
                moved.append(final)
        except OSError as exc:
            raise OutputError(f"cannot move pictures into {self.destination}: {exc.strerror or exc}") from None
        self.committed = True
        return moved


def remove_stale_staging(destination: str | Path) -> list[Path]:
    """Remove staging folders in ``destination`` left by dead runs (their ``.lock`` is not held); return them."""
    removed: list[Path] = []
    with contextlib.suppress(OSError):
        for name in sorted(n for n in os.listdir(destination) if _STAGING_PATTERN.match(n)):
            folder = Path(destination) / name
            try:
                fd = os.open(folder / _STAGING_LOCK, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
            except OSError:
                continue
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                shutil.rmtree(folder)
                removed.append(folder)
            except OSError:
                continue
            finally:
                os.close(fd)
    return removed


@contextlib.contextmanager
def staged_folder(destination: str | Path) -> Iterator[StagedFolder]:
    """A hidden staging folder ``.claimgate-staging.<random>.tmp`` in ``destination``, removed on exit.

    Write files under ``stage.folder`` and call ``stage.commit()`` when the run's
    result is in place; on an exception (or without a commit) the staged files are
    deleted, and so are the folders created for them. Staging folders of dead runs
    are removed first. Raises ``OutputError`` when the staging folder cannot be made.
    """
    destination = Path(destination)
    created: list[Path] = []
    lock_fd = -1
    try:
        created = _make_parents(destination)
        remove_stale_staging(destination)
        folder = Path(tempfile.mkdtemp(prefix=".claimgate-staging.", suffix=".tmp", dir=destination))
        lock_fd = os.open(folder / _STAGING_LOCK, os.O_WRONLY | os.O_CREAT | os.O_CLOEXEC, 0o600)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
    except OSError as exc:
        if lock_fd >= 0:
            os.close(lock_fd)
        remove_empty_folders(created)
        raise OutputError(f"cannot write into {destination}: {exc.strerror or exc}") from None
    stage = StagedFolder(destination, folder)
    try:
        yield stage
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        os.close(lock_fd)
        if not stage.committed:
            remove_empty_folders(created)


# --------------------------------------------------------------------------- checks before any work


def _file_identity(path: Path) -> tuple[int, int] | None:
    """``(st_dev, st_ino)`` of the file at ``path`` (links followed); ``None`` where there is none."""
    try:
        info = path.stat()
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _resolved(path: Path) -> Path | None:
    """``path`` fully resolved (links followed, ``..`` removed; it need not exist); ``None`` if it cannot be."""
    try:
        return Path(os.path.realpath(path))  # not Path.resolve, which builds a Path for each step
    except (OSError, ValueError):
        return None


def check_output_not_input(output: str | Path, inputs: Mapping[str, str | Path | None], role: str = "input") -> None:
    """Refuse (``OutputError``) an ``output`` that is the same file as one of ``inputs``.

    ``inputs`` maps a label (``--cases``) to a path or ``None``; ``role`` names them in the message (``it is the
    --cases input``; ``"output"`` where they are other outputs). Same file means the same ``(st_dev, st_ino)``
    (hard links, symbolic links, ``./`` spellings) or, where either file does not exist yet, the same fully
    resolved path (so paths are resolved only for files that are missing: a manifest pins thousands).
    """
    out_same = _file_identity(Path(output))
    out_resolved = None
    for label, given in inputs.items():
        if given is None or given == "":
            continue
        in_same = _file_identity(Path(given))
        if in_same is not None and out_same is not None:
            same = in_same == out_same
        else:
            out_resolved = out_resolved or _resolved(Path(output))
            same = out_resolved is not None and out_resolved == _resolved(Path(given))
        if same:
            also = role == "output"
            what = "another output" if also else f"the {label} {role}"
            raise OutputError(f"cannot write {output}: it is {what} ({given}); refusing to overwrite it")


def check_output_writable(output: str | Path) -> None:
    """Refuse (``OutputError``) an ``output`` path that cannot be written, before any work: a folder, under a
    nearest existing parent that is not a folder, or not writable and searchable here. Nothing is created."""
    target = Path(output)
    if target.is_dir():
        raise OutputError(f"cannot write {target}: is a folder")
    parent = target.parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise OutputError(f"cannot write {target}: {parent} is not a folder")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"cannot write {target}: {parent} is not writable")


def check_output_outside(output: str | Path, folders: Mapping[str, str | Path | None]) -> None:
    """Refuse (``OutputError``) an ``output`` inside one of the input ``folders`` (at any depth).

    ``folders`` maps a label (``--corpus-dir``) to a folder or ``None``. Inside means the
    output's fully resolved path (symbolic links followed, ``..`` removed; the file need
    not exist yet) lies under the folder's resolved path: the output would become an
    input of the next run over that folder.
    """
    out_resolved = _resolved(Path(output))
    for label, given in folders.items():
        if given is None or given == "":
            continue
        folder_resolved = _resolved(Path(given))
        if out_resolved is not None and folder_resolved is not None and out_resolved.is_relative_to(folder_resolved):
            raise OutputError(
                f"cannot write {output}: it is inside the {label} folder ({given}), "
                "which is read as input; write it elsewhere"
            )


def check_inputs_outside(folder: str | Path, label: str, inputs: Mapping[str, str | Path | None]) -> None:
    """Refuse (``OutputError``) writing into ``folder`` when one of ``inputs`` lies inside it (at any depth).

    For outputs named by the data (one picture per case id under ``cases/``): which files
    they will be is known only after the run, so no input may be where they go.
    """
    folder_resolved = _resolved(Path(folder))
    if folder_resolved is None:
        return
    for input_label, given in inputs.items():
        if given is None or given == "":
            continue
        resolved = _resolved(Path(given))
        if resolved is not None and resolved.is_relative_to(folder_resolved):
            raise OutputError(
                f"cannot write {label} into {folder}: the {input_label} input ({given}) is inside it; "
                "write the output elsewhere"
            )


def check_outputs(
    outputs: Iterable[str | Path],
    inputs: Mapping[str, str | Path | None],
    input_folders: Mapping[str, str | Path | None] | None = None,
) -> None:
    """``check_output_writable``, ``check_output_not_input`` and ``check_output_outside`` for every output, and
    no two of ``outputs`` the same file (``--output L.jsonl --ledger L.jsonl`` wrote rows over the ledger).

    Made before any work; ``input_folders`` are folders read as inputs (``--corpus-dir``).
    """
    outputs = list(outputs)
    for i, output in enumerate(outputs):
        check_output_writable(output)
        check_output_not_input(output, inputs)
        check_output_outside(output, input_folders or {})
        check_output_not_input(output, {str(o): o for o in outputs[:i]}, role="output")
