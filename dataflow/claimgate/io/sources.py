"""Loading pinned sources: manifest, files, hashes (helpers of the loading nodes in ``pinned_sources.py``).

This module is the only place that touches the file system for documentation
sources. It turns a manifest into a verified frame and refuses the whole run
(``IngestionError``) when anything pinned cannot be trusted; the decision logic
in ``gate/stages.py`` and ``audit/stages.py`` only ever sees the frames the loading
nodes (``io/pinned_sources.py``) build with it.

Rules (docs/gate-rules.md, "Manifest and sources"):

- Manifest: ``{"sources": [{"source_id", "version", "path", "url", "sha256"}, ...]}``,
  all five fields non-empty strings (extra fields are ignored and not carried);
  ``path`` relative to the manifest's folder; ``sha256`` the lowercase hex digest
  of the file's raw bytes.
- Every listed file is read and checked, whether or not a case uses it, in
  manifest order. Checks per entry, in this order: ``invalid_manifest``,
  ``duplicate_source_id``, ``invalid_sha256``, ``path_outside_root`` (also a Windows
  drive or UNC path), ``invalid_manifest`` for a backslash in a path, for the whole
  manifest first; then per file ``missing_source`` (naming a twin spelled in another
  Unicode normalization), ``duplicate_source_path`` (the file of an earlier entry:
  agreement must come from different files), ``source_too_large``,
  ``corpus_too_large`` (all files together), ``hash_mismatch``, ``invalid_encoding``.
  The first failure refuses the run.
- Files are opened without blocking and must be regular files (``io.files``), so a
  path swapped for a FIFO cannot hang a run; no more than a limit plus one byte is read.
- Text is decoded as strict UTF-8; one leading byte-order mark is dropped, so
  character offsets count from the first character after it. Nothing else is
  changed: CR/CRLF line endings, tabs, NULs and decomposed accents stay as written.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import unicodedata
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from claimgate.errors import IngestionError
from claimgate.io.files import (
    NotRegularFileError,
    TooLargeError,
    open_regular,
    read_capped,
    read_utf8_text,
    unicode_twin,
)
from claimgate.io.json_text import DuplicateKeyError, loads_json, unique_keys, where_json_failed
from claimgate.textlines import LINE_TERMINATORS

if TYPE_CHECKING:  # pandas only where a frame is built: reading a corpus or a manifest needs none
    import pandas as pd

MANIFEST_FIELDS = ("source_id", "version", "path", "url", "sha256")
DEFAULT_MAX_SOURCE_BYTES = 16 * 1024 * 1024  # 16 MiB: one source file or corpus document (docs/gate-rules.md)
#: All sources of a manifest together, or a whole corpus file: 64 MiB. The audit holds about twelve
#: times the text in memory (a 63.6 MiB corpus of 72,000 documents peaked at 791 MiB), so this keeps
#: a run under the 1 GiB the project aims for.
DEFAULT_MAX_CORPUS_BYTES = 64 * 1024 * 1024
_SHA256_RE = re.compile(r"^[0-9a-f]{64}\Z")  # \Z, not $: "$" would accept a trailing newline
#: A Windows drive (``C:``, ``C:\docs``) or a UNC/doubled-separator start (``\\server\share``, ``//x``).
_WINDOWS_ABSOLUTE_RE = re.compile(r"\A(?:[A-Za-z]:|[\\/]{2})")

#: Columns of ``verified_sources`` in order; every column has pandas dtype ``str``.
VERIFIED_SOURCE_COLUMNS = (*MANIFEST_FIELDS, "document_revision", "text")


def document_revision(record: Mapping[str, str]) -> str:
    """SHA-256 hex of a source record without its text.

    The record's five manifest fields are serialized as JSON with sorted keys,
    separators ``(",", ":")`` and ``ensure_ascii=False``, encoded as UTF-8 (docs/gate-rules.md, "Manifest and sources").
    """
    fields = {name: record[name] for name in MANIFEST_FIELDS}
    payload = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def manifest_document(manifest_path: str | Path) -> dict:
    """The manifest file parsed: an object with a ``sources`` list (entries not checked yet).

    Raises ``IngestionError`` ``invalid_manifest`` when the file is absent, not UTF-8
    JSON, repeats a key in one object, or is not an object with a ``sources`` list.
    """
    path = Path(manifest_path)
    text = read_utf8_text(path, "invalid_manifest", "manifest")
    try:
        document = loads_json(text, object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        raise IngestionError("invalid_manifest", f"{path} repeats the key {exc.key!r} in one object") from None
    except json.JSONDecodeError as exc:
        raise IngestionError("invalid_manifest", f"{path} is not JSON: {where_json_failed(exc)}") from None
    if not isinstance(document, dict) or not isinstance(document.get("sources"), list):
        raise IngestionError("invalid_manifest", 'expected an object with a "sources" list')
    return document


def manifest_entry_problem(entry: object, position: int, seen: set[str]) -> IngestionError | None:
    """The first problem of one manifest entry (``None`` when it is sound); adds its id to ``seen``.

    Checks, in order: ``invalid_manifest`` (not an object, a missing field, a field
    that is not a non-empty string), ``duplicate_source_id`` (an id in ``seen``),
    ``invalid_sha256`` (not 64 lowercase hex digits), ``path_outside_root`` (an absolute
    path, a ``..`` component, a Windows drive ``C:`` or network ``\\\\server`` path);
    ``invalid_manifest`` again for a path with a backslash (manifest paths separate
    folders with ``/`` on every system) or a control character (``NUL``, tab, escape, C1
    controls) or line terminator (``textlines.LINE_TERMINATORS``: U+2028, U+2029 too).
    ``pin`` applies this same check to every entry it makes, so it never writes a manifest
    the reader refuses.
    """
    where = f"sources[{position}]"
    if not isinstance(entry, dict):
        return IngestionError("invalid_manifest", f"{where} is not an object")
    for field in MANIFEST_FIELDS:
        if field not in entry:
            return IngestionError("invalid_manifest", f"{where} has no {field!r}")
        value = entry[field]
        if not isinstance(value, str) or not value:
            return IngestionError("invalid_manifest", f"{where}.{field} is not a non-empty string")
    source_id = entry["source_id"]
    if source_id in seen:
        return IngestionError("duplicate_source_id", f"{source_id!r} is listed twice")
    seen.add(source_id)
    if not _SHA256_RE.match(entry["sha256"]):
        return IngestionError("invalid_sha256", f"{source_id}: sha256 must be 64 lowercase hex digits")
    relative = entry["path"]
    parts = relative.replace("\\", "/").split("/")
    if Path(relative).is_absolute() or relative.startswith(("/", "\\")) or ".." in parts:
        return IngestionError("path_outside_root", f"{source_id}: {relative!r}")
    if _WINDOWS_ABSOLUTE_RE.match(relative):
        return IngestionError("path_outside_root", f"{source_id}: {relative!r} is a Windows drive or network path")
    if "\\" in relative:
        return IngestionError(
            "invalid_manifest", f"{source_id}: {relative!r} contains a backslash; separate folders with '/'"
        )
    # NUL cannot reach the system at all; the others break every line that shows the path (isprintable: fast path)
    if not relative.isprintable() and any(unicodedata.category(c) == "Cc" or c in LINE_TERMINATORS for c in relative):
        return IngestionError("invalid_manifest", f"{source_id}: {relative!r} contains a control character")
    return None


def read_manifest(manifest_path: str | Path) -> dict:
    """Read and shape-check a manifest file; return ``{"root": Path, "sources": [entry, ...]}``.

    Raises ``IngestionError`` for the first problem (``manifest_document``, then each
    entry's ``manifest_entry_problem`` in manifest order): ``invalid_manifest``,
    ``duplicate_source_id``, ``invalid_sha256``, ``path_outside_root``.
    """
    path = Path(manifest_path)
    document = manifest_document(path)
    entries: list[dict] = []
    seen: set[str] = set()
    for position, entry in enumerate(document["sources"]):
        problem = manifest_entry_problem(entry, position, seen)
        if problem is not None:
            raise problem
        entries.append({field: entry[field] for field in MANIFEST_FIELDS})
    return {"root": path.resolve().parent, "sources": entries}


def _resolved_file(path: str, folders: dict[str, str]) -> str:
    """``os.path.realpath(path, strict=True)``, resolving each folder once per ``folders`` (a per-run memo).

    A file that is not a symbolic link resolves to its resolved folder plus its name, so
    the thousands of files of one folder cost one ``lstat`` each instead of one per path
    component. Raises what ``realpath`` raises.
    """
    folder, name = os.path.split(path)
    if name in ("", ".", "..") or stat.S_ISLNK(os.lstat(path).st_mode):
        return os.path.realpath(path, strict=True)
    resolved_folder = folders.get(folder)
    if resolved_folder is None:
        resolved_folder = folders[folder] = os.path.realpath(folder, strict=True)
    return os.path.join(resolved_folder, name)


def _open_source(
    root: Path, entry: Mapping[str, str], folders: dict[str, str] | None = None
) -> tuple[int, os.stat_result]:
    """Resolve and open one pinned file without blocking; return ``(descriptor, fstat)``.

    ``folders``: resolved folders already seen in this run (``_resolved_file``).
    Raises ``IngestionError``: ``missing_source`` (absent, naming a twin spelled in the
    other Unicode normalization; a folder, FIFO or other non-regular file; a symlink
    loop) or ``path_outside_root`` (a symbolic link resolving outside ``root``).
    """
    source_id, relative = entry["source_id"], entry["path"]
    if relative.split("/")[-1] in ("", ".", ".."):  # "page.md/" or "page.md/." would resolve to the file
        raise IngestionError("missing_source", f"{source_id}: {relative} names a folder, not a file")
    try:
        # A str, not Path.resolve: building a Path per file cost more than reading a short page.
        resolved = _resolved_file(os.path.join(root, relative), {} if folders is None else folders)
    except (FileNotFoundError, NotADirectoryError):
        twin = unicode_twin(root, relative)
        hint = f" (not found as written; {twin!r} exists, spelled in another Unicode normalization)" if twin else ""
        raise IngestionError("missing_source", f"{source_id}: {relative}{hint}") from None
    except OSError as exc:  # symlink loops end here
        raise IngestionError("missing_source", f"{source_id}: {relative}: {exc}") from None
    inside = os.path.join(root, "")  # root with one trailing separator; root itself is resolved
    if not (resolved.startswith(inside) or resolved == str(root)):
        raise IngestionError(
            "path_outside_root", f"{source_id}: {relative} resolves outside the manifest's folder {root}"
        )
    try:
        return open_regular(resolved)
    except NotRegularFileError as exc:
        raise IngestionError("missing_source", f"{source_id}: {relative} is not a file ({exc})") from None
    except OSError as exc:
        raise IngestionError("missing_source", f"{source_id}: {relative}: {exc.strerror or exc}") from None


def _check_hash(entry: Mapping[str, str], raw: bytes) -> bytes:
    """``raw`` when its SHA-256 is the pinned one (bytes as written); ``hash_mismatch`` otherwise."""
    digest, pinned = hashlib.sha256(raw).hexdigest(), entry["sha256"]
    if digest != pinned:
        raise IngestionError("hash_mismatch", f"{entry['source_id']}: pinned {pinned[:12]}…, file has {digest[:12]}…")
    return raw


def source_text(entry: Mapping[str, str], raw: bytes) -> str:
    """A pinned file's verified bytes decoded (strict UTF-8, one leading BOM dropped); else ``invalid_encoding``."""
    try:
        return raw.decode("utf-8-sig")  # strict; drops one leading BOM
    except UnicodeDecodeError as exc:
        raise IngestionError("invalid_encoding", f"{entry['source_id']}: not UTF-8 at byte {exc.start}") from None


def pinned_paths(manifest_path: str | Path) -> dict[str, Path]:
    """``{"source <id>": path}`` of every file a manifest pins, best effort, for output checks before a run.

    A manifest that cannot be read gives ``{}`` here; the run itself then refuses it
    with its reason code.
    """
    try:
        manifest = read_manifest(manifest_path)
    except IngestionError:
        return {}
    return {f"source {e['source_id']}": manifest["root"] / e["path"] for e in manifest["sources"]}


def read_source_text(root: Path, entry: Mapping[str, str], max_source_bytes: int) -> str:
    """Read one pinned file, verify size, hash and encoding; return its text.

    Raises ``IngestionError``: ``path_outside_root`` (a symbolic link resolving outside
    ``root``), ``missing_source`` (also: not a regular file), ``source_too_large`` (more
    than ``max_source_bytes`` bytes), ``hash_mismatch``, ``invalid_encoding`` (not strict UTF-8).
    """
    return read_source_texts(root, [entry], max_source_bytes, max_corpus_bytes=None)[0]


def read_source_texts(
    root: Path,
    entries: list[Mapping[str, str]],
    max_source_bytes: int,
    max_corpus_bytes: int | None = DEFAULT_MAX_CORPUS_BYTES,
) -> list[str]:
    """Read and verify every pinned file in manifest order; return their texts.

    Besides ``read_source_text``'s refusals, raises ``IngestionError``
    ``duplicate_source_path`` when an entry names the file of an earlier entry (same
    device and inode: a symbolic or hard link, another spelling of the path): two ids
    for one file would count one page as two agreeing sources. ``corpus_too_large``
    when the files hold more than ``max_corpus_bytes`` bytes together (``None``: no limit).
    Sizes are in bytes; no more than ``max_source_bytes + 1`` bytes of a file are read.
    The checks are ``SourceReader.read``'s, one entry after another.
    """
    reader = SourceReader(root, max_source_bytes, max_corpus_bytes)
    return [reader.read(entry) for entry in entries]


def same_file_problem(entry: Mapping[str, str], earlier: Mapping[str, str]) -> IngestionError:
    """``duplicate_source_path`` for ``entry``, whose file is the one ``earlier`` pins (docs/gate-rules.md).

    The detail names both source ids, the earlier first, and the path (or both paths when they differ).
    """
    ids = f"source ids {earlier['source_id']} and {entry['source_id']}"
    if entry["path"] == earlier["path"]:
        return IngestionError("duplicate_source_path", f"{ids} both pin {entry['path']}")
    return IngestionError("duplicate_source_path", f"{ids} pin one file: {earlier['path']} and {entry['path']}")


class SourceReader:
    """The per-file checks of a manifest's sources, one entry at a time in manifest order (the gate's order).

    ``read(entry)`` opens the file (``missing_source``, ``path_outside_root``), refuses the
    file of an earlier entry read by this reader (``duplicate_source_path``: an entry claims
    its file as soon as it is opened, even when a later check refuses it), then
    ``source_too_large``, ``corpus_too_large`` (the bytes of the entries read so far),
    ``hash_mismatch`` and ``invalid_encoding``. ``read_source_texts`` stops at the first
    refusal; ``claimgate verify`` catches each and goes on, so it reports what the gate refuses.
    """

    def __init__(self, root: Path, max_source_bytes: int, max_corpus_bytes: int | None = DEFAULT_MAX_CORPUS_BYTES):
        self.root, self.max_source_bytes, self.max_corpus_bytes = root, max_source_bytes, max_corpus_bytes
        self.files: dict[tuple[int, int], Mapping[str, str]] = {}  # (device, inode) -> the entry that pinned it
        self.folders: dict[str, str] = {}  # resolved folders (``_resolved_file``)
        self.total = 0  # bytes read, in all

    def read(self, entry: Mapping[str, str]) -> str:
        """The verified text of ``entry``'s file; raises ``IngestionError`` with the first refusal's reason."""
        return source_text(entry, self.read_bytes(entry))

    def read_bytes(self, entry: Mapping[str, str]) -> bytes:
        """The bytes of ``entry``'s file as written, their SHA-256 checked (not decoded): ``read``'s checks
        but ``invalid_encoding``, for a page an extractor reads from its bytes (``io.pinned_pages``)."""
        source_id, max_source_bytes = entry["source_id"], self.max_source_bytes
        fd, info = _open_source(self.root, entry, self.folders)
        try:
            earlier = self.files.get((info.st_dev, info.st_ino))
            if earlier is not None:
                raise same_file_problem(entry, earlier)
            self.files[(info.st_dev, info.st_ino)] = entry
            try:
                if info.st_size > max_source_bytes:
                    raise TooLargeError(max_source_bytes)
                raw = read_capped(fd, max_source_bytes)  # never read more than the limit into memory
            except TooLargeError:
                raise IngestionError("source_too_large", f"{source_id}: more than {max_source_bytes} bytes") from None
        finally:
            os.close(fd)
        self.total += len(raw)
        if self.max_corpus_bytes is not None and self.total > self.max_corpus_bytes:
            raise IngestionError(
                "corpus_too_large", f"{source_id}: the sources up to here hold more than {self.max_corpus_bytes} bytes"
            )
        return _check_hash(entry, raw)


def sources_frame(records: list[dict]) -> pd.DataFrame:
    """Build the ``verified_sources`` frame from records with the manifest fields and ``text``."""
    import pandas as pd

    rows = [
        {**{f: r[f] for f in MANIFEST_FIELDS}, "document_revision": document_revision(r), "text": r["text"]}
        for r in records
    ]
    frame = pd.DataFrame(rows, columns=list(VERIFIED_SOURCE_COLUMNS))
    return frame.astype({c: "str" for c in VERIFIED_SOURCE_COLUMNS})
