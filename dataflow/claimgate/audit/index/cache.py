"""The corpus index kept on disk between runs, keyed by the corpus's bytes and the normalizer's version.

Why this module exists: an audit of a fixed corpus (documentation that changes
weekly, checked many times a day) rebuilds the same index every run. The index is
a pure function of the documents' ids and texts and of the normalization rules,
so it is stored once under a key that covers exactly those and loaded when the key
matches.

What it refuses to do: load anything whose key does not match. The key is the
SHA-256 of the index format, :data:`claimgate.audit.text.normalize.NORMALIZER_VERSION`
and every ``(doc_id, text)`` in id order (UTF-8, length-prefixed); an edited,
added or removed document gives another key, so another file. A file that is
missing, of another format or whose recorded key differs is ignored and the
index is rebuilt and written again (fail safe: a cache can cost a rebuild, never
change a verdict). Damage inside a file (a flipped bit, a truncation, bytes
appended) is caught by the SHA-256 of the payload the header records, checked
before anything is decoded; a damaged file, or any error while reading,
decoding or rebuilding the index from it, gives one ``warning:`` line on stderr,
a rebuild and a rewrite of the file. Files are written atomically
(:func:`claimgate.io.atomic.write_atomic`). The cache holds the normalized tokens,
their offsets and everything found per document when the index was built
(negations, elision stops, ellipses, brackets, joined words), not the texts (they
come from the corpus itself on load): a load runs no per-document rule.

Reading a file runs no code from it, whoever wrote it: the payload is one line of
plain JSON records (``json.loads``) and numpy ``.npy`` arrays read with
``allow_pickle=False`` (an object array is refused, never unpickled), each checked
for the dtype this module writes. No pickle is on the load path. A cache folder, or
a cache file in it, that another user owns or that group or others may write is
refused before any work (:func:`check_cache_folder`, a usage error, exit 2); a file
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
numbers).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import struct
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

import numpy as np

from claimgate.audit.index.payload import index_from as _index_from
from claimgate.audit.index.payload import payload_of as _payload
from claimgate.audit.index.payload import read_arrays as _read_arrays
from claimgate.audit.index.payload import records as _records
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.text.normalize import NORMALIZER_VERSION
from claimgate.errors import OutputError
from claimgate.io.atomic import check_output_not_input, check_output_outside, write_atomic

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
INDEX_FORMAT = 5
_MAGIC = b"claimgate-corpus-index\n"


def corpus_key(documents: Mapping[str, str]) -> str:
    """Hex SHA-256 of the index format, the normalizer's version and every ``(doc_id, text)`` in id order."""
    digest = hashlib.sha256(f"claimgate-index format={INDEX_FORMAT} normalizer={NORMALIZER_VERSION}\n".encode())
    for doc_id in sorted(documents):
        for part in (doc_id, documents[doc_id]):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(struct.pack("<Q", len(data)))
            digest.update(data)
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
    path = cache_path(cache_dir, key)
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
            if not isinstance(header, dict) or header != _header(key, len(documents), header.get("payload_sha256")):
                raise DamagedCacheError("its header does not match this corpus and format")
            start = handle.tell()
            # file_digest reads in fixed-size chunks: memory stays flat whatever the corpus
            if hashlib.file_digest(handle, _DIGEST).hexdigest() != header["payload_sha256"]:
                raise DamagedCacheError("its payload does not match the digest in its header")
            handle.seek(start)
            records = _records(handle.readline())
            payload = {"records": records, "arrays": _read_arrays(handle, records["arrays"])}
        if records["doc_ids"] != sorted(documents):
            raise DamagedCacheError("its document ids differ from the corpus's")
        return _index_from(payload, documents)
    except DamagedCacheError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to load a cache file means: rebuild (fail safe)
        reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]  # one line, bounded
        raise DamagedCacheError(f"it cannot be loaded ({reason})") from None


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


def store_index(cache_dir: str | Path, key: str, index: CorpusIndex) -> Path:
    """Write ``index`` under ``key`` atomically (the folder is created ``0o700`` if needed); returns the file's path.

    The payload is written straight into the file while its SHA-256 is computed, then
    the header's placeholder digest (same length) is overwritten with it: the payload
    is never held in memory as one more copy. The file is left ``0o600`` (mode bits
    group or others could write through would make the next run refuse it).
    """
    path = cache_path(cache_dir, key)
    n_documents = len(index.doc_ids)
    payload = _payload(index)
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
            files = [e for e in entries if e.name.startswith("corpus-index-")]
        for entry in files:
            unsafe = _unsafe_owner_or_mode(entry.stat(follow_symlinks=False))
            if unsafe:
                raise OutputError(
                    f"{label}: the cache file {entry.path} is {unsafe}; remove it or keep the cache elsewhere"
                )
    except OSError:  # missing, under a file, unreadable: nothing planted to load; writing it will warn if it fails
        return


def cached_corpus_index(
    documents: Mapping[str, str], cache_dir: str | Path | None, build: Callable[[Mapping[str, str]], CorpusIndex]
) -> CorpusIndex:
    """``build(documents)``, or its copy from ``cache_dir`` when one with this corpus's key is there.

    Without ``cache_dir`` this is ``build(documents)``. After a build the index is
    stored; when the folder cannot be written the run goes on with the built index
    and one ``warning:`` line on stderr (a cache only ever saves time). A damaged
    file (see :func:`read_index`) gives one ``warning:`` line too, and is rebuilt and
    written again. A folder of another user or writable by others is refused
    (``OutputError``, see :func:`check_cache_owner`).
    """
    if cache_dir is None:
        return build(documents)
    check_cache_owner(cache_dir, "cache")  # again: Audit(documents, cache=...) has no check before this
    key = corpus_key(documents)
    try:
        index = read_index(cache_dir, key, documents)
    except DamagedCacheError as exc:
        print(f"warning: index cache {cache_path(cache_dir, key)} is damaged, rebuilt: {exc}", file=sys.stderr)
        index = None
    if index is None:
        index = build(documents)
        try:
            store_index(cache_dir, key, index)
        except (OSError, OutputError) as exc:
            print(f"warning: index cache not written: {exc}", file=sys.stderr)
    return index
