"""Pinning documentation: writing a manifest from files (``claimgate pin``); checking one is ``gate.verifying``.

It sits on the gate's side of the layers (it reads the schema's version scheme, ``gate.versions``);
the commands that call it are ``cli.pin``, the file primitives it uses are ``io``.

Why: the gate trusts a page only through its manifest entry (path, version, SHA-256 of
the raw bytes), and one stale hash refuses the whole run. Computing hashes by hand
after every edit is where users give up, so ``pinned_manifest`` writes them (and
``gate.verifying.verify_manifest`` says, for every entry at once, which pins no longer hold).

What it refuses to do: guess. Two files that would get the same ``source_id`` are
refused (``duplicate_source_id``), never numbered; a file outside the manifest's
folder is refused (``path_outside_root``), never copied; a file the gate would refuse
(not UTF-8, too large) is refused here too, so a fresh pin always verifies. See
docs/gate-rules.md, "Pinning".

Order (deterministic): entries already in the manifest keep their place (a re-pinned
entry is replaced where it stands); new entries are appended sorted by ``path``, so
the bytes do not depend on the order of the arguments or of the shell's glob.
"""

from __future__ import annotations

import hashlib
import os
import re
import string
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

from claimgate.errors import IngestionError, OutputError, UsageError
from claimgate.gate.pin_folders import files_by_version, refuse_one_id_twice
from claimgate.gate.versions import VersionScheme
from claimgate.io.atomic import check_output_not_input
from claimgate.io.manifest_lock import manifest_locked
from claimgate.io.sources import (
    DEFAULT_MAX_SOURCE_BYTES,
    MANIFEST_FIELDS,
    manifest_document,
    manifest_entry_problem,
    read_manifest,
    read_source_text,
    same_file_problem,
)
from claimgate.io.writers import write_json
from claimgate.textlines import LINE_TERMINATORS

SOURCE_ID_MODES = ("stem", "path")
#: Placeholders a ``--url-template`` may use; without a template the url is the relative path.
URL_FIELDS = ("source_id", "version", "path", "stem")
DEFAULT_URL_TEMPLATE = "{path}"
HASH_PREFIX = 12  # hex digits shown when a hash is reported


@dataclass
class PinReport:
    """What ``pinned_manifest`` did: entries ``added``, ``repinned`` (``(old, new)`` pairs), ``unchanged``, ``removed``.

    ``sources`` is the whole manifest as written (or as it stands when nothing changed);
    ``written`` says whether the file was (re)written.
    """

    sources: list[dict]
    added: list[dict] = field(default_factory=list)
    repinned: list[tuple[dict, dict]] = field(default_factory=list)
    unchanged: list[dict] = field(default_factory=list)
    removed: list[dict] = field(default_factory=list)
    written: bool = False


def file_sha256(path: Path, max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES) -> str:
    """Lowercase hex SHA-256 of the file's raw bytes (reads at most ``max_source_bytes + 1`` bytes).

    Raises ``IngestionError`` ``source_too_large`` beyond the limit.
    """
    with path.open("rb") as handle:
        raw = handle.read(max_source_bytes + 1)
    if len(raw) > max_source_bytes:
        raise IngestionError("source_too_large", f"{path}: more than {max_source_bytes} bytes")
    return hashlib.sha256(raw).hexdigest()


def check_url_template(template: str) -> None:
    """Refuse (``UsageError``) a ``--url-template`` that is more than text and plain ``URL_FIELDS`` placeholders.

    Allowed: literal text (``{{`` and ``}}`` for braces) and ``{source_id}``, ``{version}``,
    ``{path}``, ``{stem}``. Refused, naming the field: an unknown or positional name
    (``{sha}``, ``{}``, ``{0}``), attribute or index access (``{path.__class__}``,
    ``{path[0]}``), a conversion (``{path!r}``) or a format spec (``{path:>20}``); and a
    template that does not parse (a lone ``{`` or ``}``). See docs/gate-rules.md, "Pinning".
    """
    fields = ", ".join("{" + name + "}" for name in URL_FIELDS)
    try:
        parsed = list(string.Formatter().parse(template))
    except ValueError as exc:
        raise UsageError(f"--url-template {template!r}: {exc}") from None
    for _, name, spec, conversion in parsed:
        if name is None:  # literal text only
            continue
        shown = "{" + name + (f"!{conversion}" if conversion else "") + (f":{spec}" if spec else "") + "}"
        if name in URL_FIELDS and not spec and conversion is None:
            continue
        if name not in URL_FIELDS and re.fullmatch(r"\w*", name):
            raise UsageError(f"--url-template: unknown placeholder {shown} (use {fields})")
        raise UsageError(
            f"--url-template: {shown} is not a plain placeholder (use {fields}, with no attribute, index, "
            "!conversion or :format)"
        )


def url_for(template: str, entry: dict) -> str:
    """``template`` filled with ``source_id``, ``version``, ``path`` and ``stem`` of ``entry``.

    Raises ``UsageError`` for a template ``check_url_template`` refuses, or an empty result.
    """
    check_url_template(template)
    values = {**{name: entry[name] for name in ("source_id", "version", "path")}, "stem": Path(entry["path"]).stem}
    url = template.format(**values)
    if not url:
        raise UsageError("--url-template gives an empty url")
    return url


def _relative_path(file: Path, root: Path) -> str:
    """``file`` relative to ``root`` with ``/`` separators; refuses a file that is absent or outside.

    Compared as written first (``docs/guide.md`` under ``./``), then with symbolic links
    resolved on both sides (a folder reached through a link).
    """
    absolute = Path(os.path.abspath(file))
    if not absolute.exists():
        raise IngestionError("missing_source", f"{file}: no such file")
    if not absolute.is_file():
        raise IngestionError("missing_source", f"{file}: not a file")
    if absolute.is_relative_to(root):
        return absolute.relative_to(root).as_posix()
    resolved, resolved_root = absolute.resolve(), root.resolve()
    if resolved.is_relative_to(resolved_root):
        return resolved.relative_to(resolved_root).as_posix()
    raise IngestionError("path_outside_root", f"{file} is outside the manifest's folder {root}")


def new_entries(
    files: list[str | Path],
    version: str,
    root: Path,
    *,
    source_id: str = "stem",
    url_template: str | None = None,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
) -> list[dict]:
    """One manifest entry per distinct file, sorted by relative path, each read and checked like the gate would.

    ``root`` is the manifest's folder (absolute). ``source_id`` is ``"stem"`` (the file
    name without its extension) or ``"path"`` (the relative path). The url is
    ``url_template`` filled by ``url_for`` (``None`` → the relative path).

    Raises ``IngestionError``: ``missing_source``, ``path_outside_root``,
    ``source_too_large``, ``invalid_encoding``, ``duplicate_source_id`` (two files, one
    id), ``invalid_manifest`` (a path the manifest reader refuses: ``manifest_entry_problem``,
    such as a file name with a tab, an escape or a newline); ``UsageError`` for an empty
    version, an unknown ``source_id`` mode or a bad template.
    """
    if not isinstance(version, str) or not version.strip():
        raise UsageError("--version must be a non-empty string")
    if source_id not in SOURCE_ID_MODES:
        raise UsageError(f"--source-id must be one of {', '.join(SOURCE_ID_MODES)}")
    paths = sorted({_relative_path(Path(f), root) for f in files})
    entries: dict[str, dict] = {}
    for relative in paths:
        sid = Path(relative).stem if source_id == "stem" else relative
        if not sid:
            raise IngestionError("invalid_manifest", f"{relative}: the file name gives an empty source_id")
        if sid in entries:
            raise IngestionError(
                "duplicate_source_id",
                f"{sid!r} names both {entries[sid]['path']} and {relative}; use --source-id path",
            )
        entry = {"source_id": sid, "version": version, "path": relative, "url": "", "sha256": ""}
        entry["url"] = url_for(url_template or DEFAULT_URL_TEMPLATE, entry)
        entry["sha256"] = file_sha256(root / relative, max_source_bytes)
        # The manifest reader's own entry check (a control character or line terminator in the path):
        # a name it would refuse is refused here, before anything is written.
        problem = manifest_entry_problem(entry, len(entries), set())
        if problem is not None:
            raise problem
        # The gate's own checks (inside the folder, size, hash, UTF-8), so a fresh pin always verifies.
        read_source_text(root.resolve(), entry, max_source_bytes)
        entries[sid] = entry
    return list(entries.values())


def merged_sources(existing: list[dict], pinned: list[dict], keep_urls: bool) -> PinReport:
    """The manifest after pinning: ``existing`` entries in place, re-pinned where ``pinned`` has them, new ones after.

    An entry is re-pinned when ``pinned`` has its ``source_id`` with the same ``path``;
    with ``keep_urls`` (no ``--url-template`` given) it keeps its url. Raises
    ``IngestionError`` ``duplicate_source_id`` when a pinned id is already in the
    manifest for another path.
    """
    by_id = {entry["source_id"]: entry for entry in pinned}
    report = PinReport(sources=[])
    for old in existing:
        new = by_id.pop(old["source_id"], None)
        if new is None:
            report.sources.append(old)
            continue
        if new["path"] != old["path"]:
            raise IngestionError(
                "duplicate_source_id",
                f"{old['source_id']!r} is already pinned to {old['path']}; "
                f"pin {new['path']} with --source-id path (or rename it)",
            )
        if keep_urls:
            new = {**new, "url": old["url"]}
        if all(new[f] == old[f] for f in MANIFEST_FIELDS):
            report.unchanged.append(old)
            report.sources.append(old)
        else:
            report.repinned.append((old, new))
            report.sources.append(new)
    for entry in pinned:  # still sorted by path
        if entry["source_id"] in by_id:
            report.added.append(entry)
            report.sources.append(entry)
    return report


def version_shape_problem(version: str) -> str:
    """``""`` when ``version`` may be pinned under any scheme, else the one-line detail of the refusal.

    Refused whatever the scheme: white space before or after the version (``" 1.4.0"``
    never equals the ``"1.4.0"`` a case asks for) and any control character or line
    terminator inside it (a newline would split the version on every terminal and log).
    See docs/gate-rules.md, "Pinning".
    """
    if version != version.strip():
        return f"{version!r} has white space before or after it"
    if any(c in LINE_TERMINATORS or unicodedata.category(c) == "Cc" for c in version):
        return f"{version!r} contains a control character"
    return ""


def check_not_the_manifest(files: list[str | Path], manifest_path: Path) -> None:
    """Refuse (``OutputError``, a usage error) a FILE that is the manifest being written, however spelled.

    Same file as in ``check_output_not_input``: the same ``(device, inode)`` (hard and
    symbolic links, ``./`` spellings) or, when either does not exist, the same resolved
    path. A manifest that pinned itself would fail ``verify`` after every write.
    """
    for file in files:
        try:
            check_output_not_input(manifest_path, {"FILE": file})
        except OutputError:
            raise OutputError(
                f"FILE {file} is the --output manifest {manifest_path}; a manifest cannot pin itself: leave it out"
            ) from None


def pinned_manifest(
    files: list[str | Path],
    version: str,
    manifest_path: str | Path,
    *,
    source_id: str = "stem",
    url_template: str | None = None,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    versions: VersionScheme | None = None,
    schema_sha256: str | None = None,
    remove_missing: bool = False,
) -> PinReport:
    """Pin ``files`` at ``version`` into ``manifest_path`` (created, or updated with the others kept).

    Checked first, before any file is read: ``UsageError`` for a FILE that is the
    manifest itself (``check_not_the_manifest``) or a template ``check_url_template``
    refuses; ``IngestionError`` ``invalid_source_version`` for a ``version`` with outer
    white space or a control character (``version_shape_problem``) or, with
    ``versions`` (a schema's scheme), a ``version`` the gate would refuse as a source version.
    Everything is checked before anything is written; the manifest is read, changed and
    written under an exclusive lock (``io.manifest_lock``: a second ``pin`` of the same
    manifest waits, then adds to what the first wrote), and written atomically, as
    2-space-indented JSON ``{"sources": [...]}`` with the five fields of each entry, and
    only when something changed. Raises what ``new_entries``,
    ``read_manifest`` (an existing manifest that is not sound) and ``merged_sources``
    raise; ``UsageError`` when ``manifest_path`` does not end in ``.json`` or is a folder.

    ``version`` may also be a dict ``{file: version}`` (``pin --version-from-path``): each
    file is pinned at its own version, every version checked as above. ``schema_sha256``
    (the SHA-256 of the schema pinned with) is recorded as the manifest's top-level
    ``schema_sha256`` (kept when not given); ``remove_missing`` (``pin --update``) drops
    the entries whose file no longer exists, listed in ``removed``.
    """
    path = Path(manifest_path)
    if path.suffix.lower() != ".json":
        raise UsageError("--output must be a .json manifest")
    if path.is_dir():
        raise UsageError(f"--output {path} is a folder")
    check_not_the_manifest(files, path)
    if url_template is not None:
        check_url_template(url_template)
    by_version = files_by_version(files, version)
    for each in by_version:
        if isinstance(each, str) and each.strip():
            problem = version_shape_problem(each) or (versions.problem(each) if versions is not None else "")
            if problem:
                raise IngestionError("invalid_source_version", f"--version {problem}")
    root = Path(os.path.abspath(path)).parent
    with manifest_locked(path):  # read, change and write under one lock: a concurrent pin waits, loses nothing
        document = manifest_document(path) if path.exists() else {}
        existing = read_manifest(path)["sources"] if path.exists() else []
        gone = [e for e in existing if remove_missing and not (root / e["path"]).exists()]
        existing = [e for e in existing if e not in gone]
        pinned = [
            entry
            for each, group in by_version.items()
            for entry in new_entries(
                group, each, root, source_id=source_id, url_template=url_template, max_source_bytes=max_source_bytes
            )
        ]
        refuse_one_id_twice(pinned)
        report = merged_sources(existing, sorted(pinned, key=lambda e: e["path"]), keep_urls=url_template is None)
        report.removed = gone
        if report.added or report.repinned:
            _refuse_one_file_twice(root, report.sources)
        recorded = schema_sha256 or document.get("schema_sha256")
        changed_schema = recorded != document.get("schema_sha256")
        if report.added or report.repinned or gone or changed_schema or not path.exists():
            form = {"schema_sha256": recorded, "sources": report.sources} if recorded else {"sources": report.sources}
            write_json(path, form)
            report.written = True
    return report


def _file_key(root: Path, entry: dict) -> tuple[int, int] | None:
    """``(device, inode)`` of the file an entry pins, links followed; ``None`` when it cannot be reached."""
    try:
        info = os.stat(root / entry["path"])
    except (OSError, ValueError):
        return None
    return info.st_dev, info.st_ino


def _refuse_one_file_twice(root: Path, sources: list[dict]) -> None:
    """Refuse ``duplicate_source_path`` when two entries pin one file (the gate would refuse the manifest).

    Two ids for one file would count one page as two agreeing sources (docs/gate-rules.md,
    "Manifest and sources"); an entry whose file cannot be reached is left to ``verify``.
    """
    seen: dict[tuple[int, int], dict] = {}
    for entry in sources:
        key = _file_key(root, entry)
        if key is None:
            continue
        if key in seen:
            raise same_file_problem(entry, seen[key])
        seen[key] = entry
