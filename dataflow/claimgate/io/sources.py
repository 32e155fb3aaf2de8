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
  ``duplicate_source_id``, ``invalid_sha256``, ``path_outside_root`` for the whole
  manifest first; then per file ``missing_source``, ``source_too_large``,
  ``hash_mismatch``, ``invalid_encoding``. The first failure refuses the run.
- Text is decoded as strict UTF-8; one leading byte-order mark is dropped, so
  character offsets count from the first character after it. Nothing else is
  changed: CR/CRLF line endings, tabs, NULs and decomposed accents stay as written.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd

from claimgate.errors import IngestionError

MANIFEST_FIELDS = ("source_id", "version", "path", "url", "sha256")
DEFAULT_MAX_SOURCE_BYTES = 16 * 1024 * 1024  # 16 MiB (docs/gate-rules.md, "Manifest and sources")
_SHA256_RE = re.compile(r"^[0-9a-f]{64}\Z")  # \Z, not $: "$" would accept a trailing newline

#: Columns of ``verified_sources`` in order; every column has pandas dtype ``str``.
VERIFIED_SOURCE_COLUMNS = (*MANIFEST_FIELDS, "document_revision", "text")


class DuplicateKeyError(ValueError):
    """A JSON object repeats a key (``json`` would silently keep the last value)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def _unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` that refuses a repeated key instead of letting the last one win."""
    document: dict = {}
    for key, value in pairs:
        if key in document:
            raise DuplicateKeyError(key)
        document[key] = value
    return document


def read_utf8_text(path: Path, reason: str, label: str) -> str:
    """The text of a small input file (manifest, corpus, case or citation table), strict UTF-8.

    One leading byte-order mark is dropped. Raises ``IngestionError`` with ``reason``
    when the file is absent (``<label> not found``), unreadable or not UTF-8.
    """
    try:
        return path.read_bytes().decode("utf-8-sig")
    except FileNotFoundError:
        raise IngestionError(reason, f"{label} not found: {path}") from None
    except UnicodeDecodeError as exc:
        raise IngestionError(reason, f"{path} is not UTF-8 (byte {exc.start})") from None
    except OSError as exc:
        raise IngestionError(reason, f"cannot read {path}: {exc.strerror}") from None


def document_revision(record: Mapping[str, str]) -> str:
    """SHA-256 hex of a source record without its text.

    The record's five manifest fields are serialized as JSON with sorted keys,
    separators ``(",", ":")`` and ``ensure_ascii=False``, encoded as UTF-8 (docs/gate-rules.md, "Manifest and sources").
    """
    fields = {name: record[name] for name in MANIFEST_FIELDS}
    payload = json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


def read_manifest(manifest_path: str | Path) -> dict:
    """Read and shape-check a manifest file; return ``{"root": Path, "sources": [entry, ...]}``.

    Raises ``IngestionError``: ``invalid_manifest`` (the manifest file is absent, not
    UTF-8 JSON, not an object with a ``sources`` list, an entry that is not an object,
    a missing field or a field that is not a non-empty string),
    ``duplicate_source_id``, ``invalid_sha256`` (not 64 lowercase hex digits),
    ``path_outside_root`` (absolute path or a ``..`` component).
    """
    path = Path(manifest_path)
    text = read_utf8_text(path, "invalid_manifest", "manifest")
    try:
        document = json.loads(text, object_pairs_hook=_unique_keys)
    except DuplicateKeyError as exc:
        raise IngestionError("invalid_manifest", f"{path} repeats the key {exc.key!r} in one object") from None
    except json.JSONDecodeError as exc:
        raise IngestionError(
            "invalid_manifest", f"{path} is not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    if not isinstance(document, dict) or not isinstance(document.get("sources"), list):
        raise IngestionError("invalid_manifest", 'expected an object with a "sources" list')

    entries: list[dict] = []
    seen: set[str] = set()
    for position, entry in enumerate(document["sources"]):
        where = f"sources[{position}]"
        if not isinstance(entry, dict):
            raise IngestionError("invalid_manifest", f"{where} is not an object")
        for field in MANIFEST_FIELDS:
            if field not in entry:
                raise IngestionError("invalid_manifest", f"{where} has no {field!r}")
            value = entry[field]
            if not isinstance(value, str) or not value:
                raise IngestionError("invalid_manifest", f"{where}.{field} is not a non-empty string")
        source_id = entry["source_id"]
        if source_id in seen:
            raise IngestionError("duplicate_source_id", f"{source_id!r} is listed twice")
        seen.add(source_id)
        if not _SHA256_RE.match(entry["sha256"]):
            raise IngestionError("invalid_sha256", f"{source_id}: sha256 must be 64 lowercase hex digits")
        relative = entry["path"]
        parts = relative.replace("\\", "/").split("/")
        if Path(relative).is_absolute() or relative.startswith(("/", "\\")) or ".." in parts:
            raise IngestionError("path_outside_root", f"{source_id}: {relative!r}")
        entries.append({field: entry[field] for field in MANIFEST_FIELDS})
    return {"root": path.resolve().parent, "sources": entries}


def read_source_text(root: Path, entry: Mapping[str, str], max_source_bytes: int) -> str:
    """Read one pinned file, verify size, hash and encoding; return its text.

    Raises ``IngestionError``: ``path_outside_root`` (a symbolic link resolving outside
    ``root``), ``missing_source``, ``source_too_large`` (more than ``max_source_bytes``
    bytes), ``hash_mismatch``, ``invalid_encoding`` (not strict UTF-8).
    """
    source_id = entry["source_id"]
    candidate = root / entry["path"]
    try:
        resolved = candidate.resolve(strict=True)
    except (FileNotFoundError, NotADirectoryError):
        raise IngestionError("missing_source", f"{source_id}: {entry['path']}") from None
    except (OSError, RuntimeError) as exc:  # symlink loops end here
        raise IngestionError("missing_source", f"{source_id}: {entry['path']}: {exc}") from None
    if not resolved.is_relative_to(root):
        raise IngestionError("path_outside_root", f"{source_id}: {entry['path']} resolves outside")
    if not resolved.is_file():
        raise IngestionError("missing_source", f"{source_id}: {entry['path']} is not a file")
    with resolved.open("rb") as handle:
        raw = handle.read(max_source_bytes + 1)  # never read more than the limit into memory
    if len(raw) > max_source_bytes:
        raise IngestionError("source_too_large", f"{source_id}: more than {max_source_bytes} bytes")
    digest = hashlib.sha256(raw).hexdigest()
    if digest != entry["sha256"]:
        raise IngestionError("hash_mismatch", f"{source_id}: pinned {entry['sha256'][:12]}…, file has {digest[:12]}…")
    try:
        return raw.decode("utf-8-sig")  # strict; drops one leading BOM
    except UnicodeDecodeError as exc:
        raise IngestionError("invalid_encoding", f"{source_id}: not UTF-8 at byte {exc.start}") from None


def sources_frame(records: list[dict]) -> pd.DataFrame:
    """Build the ``verified_sources`` frame from records with the manifest fields and ``text``."""
    rows = [
        {**{f: r[f] for f in MANIFEST_FIELDS}, "document_revision": document_revision(r), "text": r["text"]}
        for r in records
    ]
    frame = pd.DataFrame(rows, columns=list(VERIFIED_SOURCE_COLUMNS))
    return frame.astype({c: "str" for c in VERIFIED_SOURCE_COLUMNS})


def read_corpus(corpus_path: str | Path) -> dict[str, str]:
    """Read a plain corpus file ``{doc_id: text}`` (JSON object of strings).

    Raises ``IngestionError`` ``invalid_corpus`` (missing, not UTF-8 JSON, not an object,
    a document id listed twice, an empty id or a value that is not a string).
    """
    path = Path(corpus_path)
    text = read_utf8_text(path, "invalid_corpus", "corpus")
    try:
        document = json.loads(text, object_pairs_hook=_unique_keys)
    except DuplicateKeyError as exc:
        raise IngestionError("invalid_corpus", f"document {exc.key!r} is listed twice") from None
    except json.JSONDecodeError as exc:
        raise IngestionError("invalid_corpus", f"{path}: {exc.msg} at line {exc.lineno}") from None
    if not isinstance(document, dict):
        raise IngestionError("invalid_corpus", "expected a JSON object {doc_id: text}")
    for doc_id, text in document.items():
        if not doc_id:
            raise IngestionError("invalid_corpus", "a document id is empty")
        if not isinstance(text, str):
            raise IngestionError("invalid_corpus", f"document {doc_id!r} is a {type(text).__name__}, not a string")
    return document
