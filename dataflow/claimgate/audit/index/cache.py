"""The corpus index kept on disk between runs, keyed by the corpus's bytes and the normalizer's version.

Why this module exists: an audit of a fixed corpus (documentation that changes
weekly, checked many times a day) rebuilds the same index every run. The index is
a pure function of the documents' ids and texts and of the normalization rules,
so it is stored once under a key that covers exactly those and loaded when the key
matches; and each document's part of it is a function of that document's text
alone, so an edited corpus reuses the parts of the unchanged documents.

What it refuses to do: load anything whose key does not match. The key is the
SHA-256 of the index format, :data:`claimgate.audit.text.normalize.NORMALIZER_VERSION`
and every ``(doc_id, SHA-256 of its text)`` in id order (UTF-8, length-prefixed);
an edited, added, removed or renamed document gives another key, so another file.
On a miss the newest index file in the folder of this format and normalizer is
read as a base (checked exactly as a file under the key: owner and mode, payload
digest before decoding) and every document whose text's SHA-256 it records
(``documents_sha256``, whatever the id) takes its part from it; the others are
built (:func:`claimgate.audit.index.reuse.reused_index`, equal to a cold build).
A file that is missing, of another format or whose recorded key differs is
ignored and the index is rebuilt and written again (fail safe: a cache can cost a
rebuild, never change a verdict). Damage inside a file (a flipped bit, a
truncation, bytes appended) is caught by the SHA-256 of the payload the header
records, checked before anything is decoded; a damaged file, or any error while
reading, decoding or rebuilding the index from it, gives one ``warning:`` line on
stderr, a rebuild and a rewrite of the file (a damaged base: one ``warning:``
line and a cold build). Files are written atomically
(:func:`claimgate.io.atomic.write_atomic`). The cache holds the normalized tokens,
their offsets and everything found per document when the index was built
(negations, elision stops, ellipses, brackets, joined words) and each text's
SHA-256, not the texts (they come from the corpus itself on load): a load runs no
per-document rule. Every corpus version keeps its own file: the folder grows by
one index per edited corpus until it is emptied.

Reading a file runs no code from it, whoever wrote it: the payload is one line of
plain JSON records (``json.loads``) and numpy ``.npy`` arrays read with
``allow_pickle=False`` (an object array is refused, never unpickled), each checked
for the dtype this module writes. No pickle is on the load path. A cache folder, or
a cache file in it, that another user owns or that group or others may write is
refused before any work (:func:`claimgate.audit.index.cache_folder.check_cache_folder`,
a usage error, exit 2); a file
found so when it is opened is treated as damaged (a warning and a rebuild, which
replaces it with a file of this user's, mode ``0o600``). A folder this module
creates is made ``0o700``.

File format: the line ``claimgate-corpus-index``, a JSON header line
``{"documents", "format", "key", "normalizer", "payload_sha256"}`` (keys sorted), then
the payload: one line of JSON records (document ids, the token strings, segment
starts, ellipses, brackets, and the names of the arrays that follow,
in order), then those arrays as ``.npy`` streams (int32 token ids and character
offsets by run of documents; per-document negations and elision stops in
compressed-row form; joined words likewise; postings as int64 distinct keys, offsets and int32 document
numbers; ``documents_sha256``, uint8, 32 bytes per document).
"""

from __future__ import annotations

import hashlib
import json
import os
import struct
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from claimgate.audit.index.cache_folder import (
    _unsafe_owner_or_mode,
    check_cache_owner,
)
from claimgate.audit.index.payload import digests_from as _digests_from
from claimgate.audit.index.payload import index_from as _index_from
from claimgate.audit.index.payload import payload_of as _payload
from claimgate.audit.index.payload import read_arrays as _read_arrays
from claimgate.audit.index.payload import records as _records
from claimgate.audit.index.reuse import document_digest, reused_index
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.text.normalize import NORMALIZER_VERSION
from claimgate.errors import OutputError
from claimgate.io.atomic import write_atomic

_DIGEST = "sha256"  # measured faster than blake2b on a 47 MiB cache here (SHA extensions); see store_index
_NO_DIGEST = "0" * 64  # the header's digest while the payload is written (same length as a real one)


class DamagedCacheError(Exception):
    """A cache file that exists under its key but cannot be trusted; the message says why, on one line."""


#: Version of the file layout below; bump on any change to it or to ``CorpusIndex``'s fields.
#: 2: the elision stops of documents with an unlisted script are stored (format 1 recomputed
#: them on every load with a regular-expression pass over every document).
#: 3: postings as distinct keys, offsets and documents (:class:`claimgate.audit.index.postings.Postings`);
#: tokens as the segments of a :class:`claimgate.audit.index.document_table.DocumentTable`.
#: 4: the header records ``payload_sha256``, the SHA-256 of every byte after the header line.
#: 5: no pickle: JSON records and ``.npy`` arrays (read with ``allow_pickle=False``).
#: 6: the SHA-256 of each document's text (``documents_sha256``), so an edited corpus reuses the
#: unchanged documents' parts; the key covers each text through its SHA-256.
INDEX_FORMAT = 6
_MAGIC = b"claimgate-corpus-index\n"


def document_digests(documents: Mapping[str, str]) -> dict[str, bytes]:
    """``{doc_id: 32-byte SHA-256 of its text}`` (:func:`claimgate.audit.index.reuse.document_digest`)."""
    return {doc_id: document_digest(text) for doc_id, text in documents.items()}


def corpus_key(documents: Mapping[str, str], digests: Mapping[str, bytes] | None = None) -> str:
    """Hex SHA-256 of the index format, the normalizer's version and every ``(doc_id, SHA-256 of text)`` in id order.

    ``digests``: :func:`document_digests` of ``documents`` when already computed.
    """
    digests = document_digests(documents) if digests is None else digests
    digest = hashlib.sha256(f"claimgate-index format={INDEX_FORMAT} normalizer={NORMALIZER_VERSION}\n".encode())
    for doc_id in sorted(documents):
        data = doc_id.encode("utf-8", "surrogatepass")
        digest.update(struct.pack("<Q", len(data)))
        digest.update(data)
        digest.update(digests[doc_id])
    return digest.hexdigest()


def cache_path(cache_dir: str | Path, key: str) -> Path:
    """The file holding the index of the corpus with ``key``."""
    return Path(cache_dir) / f"corpus-index-{key}.bin"


def _header(key: str, n_documents: int, payload_sha256: str) -> dict:
    return {
        "format": INDEX_FORMAT,
        "normalizer": NORMALIZER_VERSION,
        "key": key,
        "documents": n_documents,
        "payload_sha256": payload_sha256,
    }


def _header_line(header: dict) -> bytes:
    return json.dumps(header, sort_keys=True).encode() + b"\n"


def _checked_payload(path: Path, header_fits: Callable[[dict], bool]) -> dict | None:
    """The payload (``{"records", "arrays", "header"}``) of the file at ``path``; ``None`` when it is missing.

    Raises ``DamagedCacheError`` (see :func:`read_index`) for every other failure, and for a
    header ``header_fits`` rejects. The payload's SHA-256 is checked before it is decoded.
    """
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DamagedCacheError(f"cannot read it: {exc.strerror or exc}") from None
    try:
        with handle:
            unsafe = _unsafe_owner_or_mode(os.fstat(handle.fileno()))
            if unsafe:
                raise DamagedCacheError(f"it is {unsafe}")
            if handle.readline() != _MAGIC:
                raise DamagedCacheError("not an index cache file")
            header = json.loads(handle.readline())
            if not isinstance(header, dict) or not header_fits(header):
                raise DamagedCacheError("its header does not match this corpus and format")
            start = handle.tell()
            # file_digest reads in fixed-size chunks: memory stays flat whatever the corpus
            if hashlib.file_digest(handle, _DIGEST).hexdigest() != header["payload_sha256"]:
                raise DamagedCacheError("its payload does not match the digest in its header")
            handle.seek(start)
            records = _records(handle.readline())
            payload = {"records": records, "arrays": _read_arrays(handle, records["arrays"]), "header": header}
        if header["documents"] != len(records["doc_ids"]):
            raise DamagedCacheError("its header and records count different documents")
        return payload
    except DamagedCacheError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to load a cache file means: rebuild (fail safe)
        raise _unloadable(exc) from None


def _unloadable(exc: Exception) -> DamagedCacheError:
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]  # one line, bounded
    return DamagedCacheError(f"it cannot be loaded ({reason})")


def read_index(cache_dir: str | Path, key: str, documents: Mapping[str, str]) -> CorpusIndex | None:
    """The cached index of ``documents`` (whose :func:`corpus_key` is ``key``); ``None`` when there is no file.

    Raises ``DamagedCacheError`` for a file that is there but unreadable, foreign, of
    another format or normalizer, with another key or document count, whose payload's
    SHA-256 differs from the one its header records (any flipped bit, truncation or
    appended byte), that another user owns or group or others may write (checked on
    the open file), or that fails in any way while it is decoded and turned into an
    index. The digest is checked before the payload is decoded: damaged bytes never
    reach the decoder, and the decoder runs no code (JSON and ``allow_pickle=False``).
    """
    payload = _checked_payload(
        cache_path(cache_dir, key), lambda header: header == _header(key, len(documents), header.get("payload_sha256"))
    )
    if payload is None:
        return None
    if payload["records"]["doc_ids"] != sorted(documents):
        raise DamagedCacheError("its document ids differ from the corpus's")
    try:
        return _index_from(payload, documents)
    except Exception as exc:  # noqa: BLE001 - as above: rebuild
        raise _unloadable(exc) from None


class _OtherRules(DamagedCacheError):
    """A cache file of another format or normalizer: not damaged, only not reusable as a base."""


class _NoTexts(dict):
    """The texts of a base index: none are stored, none are needed (a reused part is tokens, not text)."""

    def __missing__(self, doc_id: str) -> str:
        return ""


def read_base(path: Path) -> tuple[CorpusIndex, list[bytes]] | None:
    """``(index, per-document SHA-256 of the texts)`` of a cache file to reuse parts of; ``None`` if unusable.

    ``None`` (no warning) for a missing file and for one of another format or normalizer
    (its parts were made by other rules). ``DamagedCacheError`` as :func:`read_index` for
    any other failure, checked the same way (owner and mode, payload digest before
    decoding) and for a header whose key is not the one the file's name carries. The
    index's originals are empty strings.
    """
    key = path.name.removeprefix("corpus-index-").removesuffix(".bin")

    def fits(header: dict) -> bool:
        if header.get("format") != INDEX_FORMAT or header.get("normalizer") != NORMALIZER_VERSION:
            raise _OtherRules
        return header == _header(key, header.get("documents"), header.get("payload_sha256"))

    try:
        payload = _checked_payload(path, fits)
    except _OtherRules:
        return None
    if payload is None:
        return None
    try:
        return _index_from(payload, _NoTexts()), _digests_from(payload)
    except Exception as exc:  # noqa: BLE001 - as above: rebuild
        raise _unloadable(exc) from None


def newest_base(cache_dir: str | Path, key: str) -> tuple[CorpusIndex, list[bytes]] | None:
    """The most recently written index in ``cache_dir`` other than ``key``'s, to reuse parts of (see :func:`read_base`).

    ``None`` when the folder holds none of this format and normalizer; a damaged one
    gives one ``warning:`` line on stderr and ``None`` (the corpus is built cold).
    """
    try:
        with os.scandir(cache_dir) as entries:
            files = [
                (e.stat(follow_symlinks=False).st_mtime_ns, e.name)
                for e in entries
                if e.name.startswith("corpus-index-") and e.name.endswith(".bin") and e.name != cache_path("", key).name
            ]
    except OSError:
        return None
    for _, name in sorted(files, reverse=True)[:1]:  # the newest only: one file's reading at most
        path = Path(cache_dir) / name
        try:
            return read_base(path)
        except DamagedCacheError as exc:
            print(f"warning: index cache {path} is damaged, not reused: {exc}", file=sys.stderr)
    return None


def load_index(cache_dir: str | Path, key: str, documents: Mapping[str, str]) -> CorpusIndex | None:
    """The cached index of ``documents`` (whose :func:`corpus_key` is ``key``), or ``None``.

    ``None`` (never an exception) for a missing file and for every damage
    :func:`read_index` reports: the caller rebuilds.
    """
    try:
        return read_index(cache_dir, key, documents)
    except DamagedCacheError:
        return None


class _DigestingWriter:
    """A file-like ``write`` that feeds every byte written to ``digest`` too (arrays are written in chunks)."""

    def __init__(self, handle, digest) -> None:
        self.handle = handle
        self.digest = digest

    def write(self, data) -> int:
        self.digest.update(data)
        return self.handle.write(data)


def store_index(
    cache_dir: str | Path, key: str, index: CorpusIndex, digests: Mapping[str, bytes] | None = None
) -> Path:
    """Write ``index`` under ``key`` atomically (the folder is created ``0o700`` if needed); returns the file's path.

    ``digests``: :func:`document_digests` of the index's documents (computed from its
    originals when not given), stored so that a later, edited corpus reuses their parts.

    The payload is written straight into the file while its SHA-256 is computed, then
    the header's placeholder digest (same length) is overwritten with it: the payload
    is never held in memory as one more copy. The file is left ``0o600`` (mode bits
    group or others could write through would make the next run refuse it).
    """
    path = cache_path(cache_dir, key)
    n_documents = len(index.doc_ids)
    if digests is None:
        digests = {d.doc_id: document_digest(d.original) for d in index.docs}
    payload = _payload(index, [digests[doc_id] for doc_id in index.doc_ids])
    Path(cache_dir).mkdir(mode=0o700, parents=True, exist_ok=True)

    def write(handle) -> None:
        handle.write(_MAGIC)
        placeholder = _header_line(_header(key, n_documents, _NO_DIGEST))
        handle.write(placeholder)
        digest = hashlib.new(_DIGEST)
        out = _DigestingWriter(handle, digest)
        out.write(json.dumps(payload["records"], separators=(",", ":")).encode() + b"\n")
        for name in payload["records"]["arrays"]:
            np.lib.format.write_array(out, np.ascontiguousarray(payload["arrays"][name]), allow_pickle=False)
        header = _header_line(_header(key, n_documents, digest.hexdigest()))
        if len(header) != len(placeholder):  # sorted keys, fixed-length hex: the line keeps its length
            raise RuntimeError("index cache header changed length")
        handle.seek(len(_MAGIC))
        handle.write(header)
        handle.seek(0, 2)

    write_atomic(path, write)
    os.chmod(path, 0o600)
    return path


def cached_corpus_index(
    documents: Mapping[str, str],
    cache_dir: str | Path | None,
    build: Callable[[Mapping[str, str]], CorpusIndex],
    base: CorpusIndex | None = None,
) -> CorpusIndex:
    """``build(documents)``, its copy from ``cache_dir``, or the index of an edited corpus from a previous one.

    Without ``cache_dir`` or ``base`` this is ``build(documents)``. With ``cache_dir``, an
    index stored under this corpus's key is loaded; else the parts of the documents a
    previous index holds (``base``, an index in memory whose originals are its texts, or
    else the newest index file in ``cache_dir``, see :func:`newest_base`) are reused and
    only the other documents built (:func:`claimgate.audit.index.reuse.reused_index`: the
    same index as a cold build). After a build the index is stored; when the folder
    cannot be written the run goes on with the built index and one ``warning:`` line on
    stderr (a cache only ever saves time). A damaged file (see :func:`read_index`) gives
    one ``warning:`` line too, and is rebuilt and written again. A folder of another user
    or writable by others is refused (``OutputError``, see :func:`check_cache_owner`).
    """
    if cache_dir is None and base is None:
        return build(documents)
    digests = document_digests(documents)
    if cache_dir is None:
        return _reused(base, None, documents, digests, build)
    check_cache_owner(cache_dir, "cache")  # again: Audit(documents, cache=...) has no check before this
    key = corpus_key(documents, digests)
    try:
        index = read_index(cache_dir, key, documents)
    except DamagedCacheError as exc:
        print(f"warning: index cache {cache_path(cache_dir, key)} is damaged, rebuilt: {exc}", file=sys.stderr)
        index = None
    if index is None:
        found = None if base is not None else newest_base(cache_dir, key)
        index = _reused_from_file(found, documents, digests, build) if found else None
        if index is None:
            index = _reused(base, None, documents, digests, build)
        try:
            store_index(cache_dir, key, index, digests)
        except (OSError, OutputError) as exc:
            print(f"warning: index cache not written: {exc}", file=sys.stderr)
    return index


def _reused_from_file(found: tuple, documents, digests, build) -> CorpusIndex | None:
    """``reused_index`` of a base read from a file; ``None`` with one ``warning:`` line if its parts do not fit.

    The file passed every check (:func:`read_base`), but a consistent file can still hold
    parts that do not fit together (a token id past its vocabulary): fail safe, a cold build.
    """
    try:
        return _reused(*found, documents, digests, build)
    except Exception as exc:  # noqa: BLE001 - a base that cannot be reused means: build (fail safe)
        print(f"warning: index cache base not reused: {_unloadable(exc)}", file=sys.stderr)
        return None


def _reused(base, base_digests, documents, digests, build) -> CorpusIndex:
    """``reused_index`` of ``base`` (digests computed from its originals when ``None``), or ``build`` without one."""
    if base is None:
        return build(documents)
    if base_digests is None:
        base_digests = [document_digest(d.original) for d in base.docs]
    return reused_index(base, base_digests, documents, digests, build)
