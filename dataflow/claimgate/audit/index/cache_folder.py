"""Which folders may hold the index cache: refused before any work when they would clobber, feed or betray a run.

Why this module exists: anyone who can write a cache file can plant an index that changes
verdicts, and a cache inside the corpus folder would be read as documents by the next run.
These checks run before any work (a usage error) and again when a file is opened
(:mod:`claimgate.audit.index.cache`); the file format and its own checks live there.

What it refuses to do: accept an empty path, a file, an input or output, a folder inside
an input folder, or a folder or cache file of another user or writable by group or others.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

from claimgate.errors import OutputError
from claimgate.io.atomic import check_output_not_input, check_output_outside

__all__ = ["check_cache_folder", "check_cache_owner"]


def _unsafe_owner_or_mode(st: os.stat_result) -> str | None:
    """Why a cache folder or file with this status cannot be trusted (another owner, writable by others), or None."""
    if not hasattr(os, "geteuid"):  # no POSIX owners (Windows): nothing to check
        return None
    if st.st_uid != os.geteuid():
        return f"owned by another user (uid {st.st_uid})"
    if st.st_mode & (stat.S_IWGRP | stat.S_IWOTH):
        return f"writable by group or others (mode {stat.S_IMODE(st.st_mode):04o})"
    return None


def check_cache_folder(
    cache_dir: str | Path,
    inputs: Mapping[str, str | Path | None],
    outputs: Mapping[str, str | Path | None] | None = None,
    input_folders: Mapping[str, str | Path | None] | None = None,
    label: str = "--cache",
) -> None:
    """Refuse (``OutputError``, a usage error) a cache folder that would clobber or feed the run, before any work.

    Refused: an empty path (it would mean the current folder); an existing file that is
    not a folder; a path that is, or
    resolves to, one of ``inputs`` or ``outputs`` (labels such as ``--citations`` to
    paths; the same-file rules of :func:`claimgate.io.atomic.check_output_not_input`);
    a path inside one of ``input_folders`` (``--corpus-dir``), where the cache files
    would be read as documents by the next run
    (:func:`claimgate.io.atomic.check_output_outside`); an existing folder, or an
    existing cache file in it, that another user owns or that group or others may
    write (anyone who can write there could plant an index that changes verdicts).
    The message is one line starting with ``label`` (the option or argument naming the cache).
    """
    if str(cache_dir).strip() == "":
        raise OutputError(f"{label}: the path is empty; give the folder to keep the corpus index in")
    try:
        check_output_not_input(cache_dir, inputs)
        check_output_not_input(cache_dir, outputs or {}, role="file")
        check_output_outside(cache_dir, input_folders or {})
    except OutputError as exc:
        raise OutputError(f"{label}: {exc}") from None
    if Path(cache_dir).exists() and not Path(cache_dir).is_dir():
        raise OutputError(f"{label}: {cache_dir} is a file, not a folder; give the folder to keep the corpus index in")
    check_cache_owner(cache_dir, label)


def check_cache_owner(cache_dir: str | Path, label: str = "--cache") -> None:
    """Refuse (``OutputError``) an existing cache folder, or a cache file in it, of another user or writable by others.

    A folder that does not exist yet is fine (:func:`store_index` creates it ``0o700``).
    The folder's status follows a symbolic link (a link to one's own folder is fine);
    the files' do not (a link in the folder is judged as the link).
    """
    try:
        unsafe = _unsafe_owner_or_mode(os.stat(cache_dir))
        if unsafe:
            raise OutputError(
                f"{label}: the folder {cache_dir} is {unsafe}; keep the index cache in a folder of your own"
            )
        with os.scandir(cache_dir) as entries:
            files = [e for e in entries if e.name.startswith(("corpus-index-", "corpus-delta-"))]
        for entry in files:
            unsafe = _unsafe_owner_or_mode(entry.stat(follow_symlinks=False))
            if unsafe:
                raise OutputError(
                    f"{label}: the cache file {entry.path} is {unsafe}; remove it or keep the cache elsewhere"
                )
    except OSError:  # missing, under a file, unreadable: nothing planted to load; writing it will warn if it fails
        return
