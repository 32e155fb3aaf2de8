"""Pinning whole folders: which files a folder holds, and each file's version from its path (``claimgate pin DIR…``).

Patterns (``--glob``, ``--exclude``, ``--version-from-path``) are matched against the
file's path relative to the folder given (``--glob``, ``--exclude``) or to the current
folder / project root (``--version-from-path``), with ``/`` separators and these rules
(docs/gate-rules.md, "Pinning folders"): ``**/`` is any number of folders (none too, so
``**/*.md`` matches a top-level page), ``**`` anything, ``*`` any characters but ``/``,
``?`` one character but ``/``, ``{version}`` (only in ``--version-from-path``) one folder
name, which becomes the version. Every match is in full; nothing is guessed, so a file
the version pattern does not match is refused, never pinned at a default.
"""

from __future__ import annotations

import re
from pathlib import Path

from claimgate.errors import IngestionError, UsageError

#: The files a folder contributes when no ``--glob`` is given: the page formats the gate reads as text.
DEFAULT_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".html", ".htm")


def glob_regex(pattern: str, version: bool = False) -> re.Pattern[str]:
    """The full-match regular expression of a path pattern (rules in the module docstring)."""
    parts, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            parts.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            parts.append(".*")
            i += 2
        elif pattern[i] == "*":
            parts.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            parts.append("[^/]")
            i += 1
        elif version and pattern.startswith("{version}", i):
            parts.append("(?P<version>[^/]+)")
            i += len("{version}")
        else:
            parts.append(re.escape(pattern[i]))
            i += 1
    if version and "(?P<version>" not in "".join(parts):
        raise UsageError(f"--version-from-path {pattern!r} has no {{version}}")
    return re.compile("".join(parts) + r"\Z")


def folder_files(paths: list[str], glob: str | None = None, exclude: tuple[str, ...] = ()) -> list[str]:
    """The files to pin: each FILE as given, each folder's regular files (recursively) that ``glob`` matches.

    Without ``glob`` a folder contributes its files ending in ``DEFAULT_SUFFIXES``; a file
    (given or found) whose path relative to its folder matches an ``exclude`` pattern is
    left out, and so is anything under a folder whose name starts with ``.``. Sorted,
    each once. A path that is not a folder is kept as given (pinning refuses it with its
    reason when it is not a regular file).
    """
    wanted = glob_regex(glob) if glob else None
    excluded = [glob_regex(pattern) for pattern in exclude]
    found: set[str] = set()
    for given in paths:
        path = Path(given)
        if not path.is_dir():  # a file, or a path pinning refuses with its own reason (missing_source, …)
            found.add(str(given))
            continue
        for file in sorted(path.rglob("*")):
            relative = file.relative_to(path).as_posix()
            if any(part.startswith(".") for part in Path(relative).parts) or not file.is_file():
                continue
            if wanted is not None and not wanted.match(relative):
                continue
            if wanted is None and file.suffix.lower() not in DEFAULT_SUFFIXES:
                continue
            if any(pattern.match(relative) for pattern in excluded):
                continue
            found.add(str(file))
    return sorted(found)


def versions_from_path(files: list[str], pattern: str, root: str | Path = ".") -> dict[str, str]:
    """``{file: version}`` from ``pattern`` (``docs/{version}/**``) matched on each file's path relative to ``root``.

    Raises ``UsageError`` for a file the pattern does not match (no version is guessed).
    """
    regex = glob_regex(pattern, version=True)
    base = Path(root).resolve()
    versions = {}
    for file in files:
        resolved = Path(file).resolve()
        try:
            relative = resolved.relative_to(base).as_posix()
        except ValueError:
            relative = Path(file).as_posix()
        match = regex.match(relative)
        if match is None:
            raise UsageError(f"--version-from-path {pattern!r} does not match {relative} (no version is guessed)")
        versions[file] = match["version"]
    return versions


def files_by_version(files: list[str | Path], version: str | dict) -> dict:
    """``{version: [files]}``: every file at ``version``, or each at its own when ``version`` is a dict by file."""
    if not isinstance(version, dict):
        return {version: list(files)}
    grouped: dict = {}
    for file in files:
        grouped.setdefault(version[file], []).append(file)
    return grouped


def refuse_one_id_twice(entries: list[dict]) -> None:
    """``duplicate_source_id`` when two files pinned at different versions get one source id."""
    seen: dict[str, str] = {}
    for entry in entries:
        if entry["source_id"] in seen:
            raise IngestionError(
                "duplicate_source_id",
                f"{entry['source_id']!r} names both {seen[entry['source_id']]} and {entry['path']}; "
                "use --source-id path",
            )
        seen[entry["source_id"]] = entry["path"]
