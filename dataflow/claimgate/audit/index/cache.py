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
On a miss a full index file of this key, then a delta file
(:mod:`claimgate.audit.index.delta`) is looked for; else the newest full index file in
the folder of this format and normalizer is read as a base (checked exactly as a file
under the key: owner and mode, payload digest before decoding), every document whose
text's SHA-256 it records (``documents_sha256``, whatever the id) takes its part from
it, the others are built (:func:`claimgate.audit.index.reuse.merged_index`, equal to a
cold build), and the result is stored as a delta on that base (or as a full file when
the delta would be large: the compaction).
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
per-document rule. Every corpus version keeps its own file, a delta for an edited
one: the folder grows until it is emptied.

Reading a file runs no code from it, whoever wrote it: the payload is one line of
plain JSON records (``orjson``/``json``) and ``.npy``-framed arrays read as views of the
file's bytes (:func:`claimgate.audit.index.payload.read_arrays`: an object array is
refused, never unpickled), each checked for the dtype this module writes. No pickle is
on the load path. A cache folder, or a cache file in it, that another user owns or that group or others may write is
refused before any work (:func:`claimgate.audit.index.cache_folder.check_cache_folder`,
a usage error, exit 2); a file
found so when it is opened is treated as damaged (a warning and a rebuild, which
replaces it with a file of this user's, mode ``0o600``). A folder this module
creates is made ``0o700``.

File format: the line ``claimgate-corpus-index``, a JSON header line
``{"documents", "format", "key", "normalizer", "payload_sha256"}`` (keys sorted), then
the payload: one line of JSON records (document ids, the token strings, segment
starts, ellipses, brackets, and the names of the arrays that follow,
in order), then those arrays as ``.npy`` streams, each at a multiple of 64 bytes of the
file (token ids and character offsets, each uint16 when every value of the segment fits,
else int32; per-document negations and elision stops in compressed-row form; joined words
likewise; postings as int64 distinct keys, offsets and int32 document numbers;
``documents_sha256``, uint8, 32 bytes per document).
"""

from __future__ import annotations

import hashlib
import struct
import sys
from collections.abc import Callable, Mapping
from pathlib import Path

from claimgate.audit.index import delta as _delta
from claimgate.audit.index.cache_file import DamagedCacheError, read_checked, unloadable, write_checked
from claimgate.audit.index.cache_folder import check_cache_owner
from claimgate.audit.index.payload import index_from as _index_from
from claimgate.audit.index.payload import payload_of as _payload
from claimgate.audit.index.payload import read_arrays as _read_arrays
from claimgate.audit.index.reuse import EMPTY_INDEX, document_digest, merged_index, reuse_plan, reused_index
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.text.normalize import NORMALIZER_VERSION
from claimgate.errors import OutputError

__all__ = ["DamagedCacheError", "INDEX_FORMAT", "cached_corpus_index", "corpus_key", "load_index", "store_index"]

#: Version of the file layout below; bump on any change to it or to ``CorpusIndex``'s fields.
#: 2: the elision stops of documents with an unlisted script are stored (format 1 recomputed
#: them on every load with a regular-expression pass over every document).
#: 3: postings as distinct keys, offsets and documents (:class:`claimgate.audit.index.postings.Postings`);
#: tokens as the segments of a :class:`claimgate.audit.index.document_table.DocumentTable`.
#: 4: the header records ``payload_sha256``, the SHA-256 of every byte after the header line.
#: 5: no pickle: JSON records and ``.npy`` arrays (read with ``allow_pickle=False``).
#: 6: the SHA-256 of each document's text (``documents_sha256``), so an edited corpus reuses the
#: unchanged documents' parts; the key covers each text through its SHA-256.
#: 7: each array at a multiple of 64 bytes of the file (read as views of one buffer, no copy), and
#: delta files (``corpus-delta-<key>.bin``, :mod:`claimgate.audit.index.delta`) for edited corpora.
INDEX_FORMAT = 7


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
    """The file holding the full index of the corpus with ``key``."""
    return _delta.full_path(cache_dir, key)


def _header(key: str, n_documents: int, payload_sha256: str) -> dict:
    return {
        "format": INDEX_FORMAT,
        "normalizer": NORMALIZER_VERSION,
        "key": key,
        "documents": n_documents,
        "payload_sha256": payload_sha256,
    }


def read_index(cache_dir: str | Path, key: str, documents: Mapping[str, str]) -> CorpusIndex | None:
    """The cached full index of ``documents`` (whose :func:`corpus_key` is ``key``); ``None`` when there is no file.

    Raises ``DamagedCacheError`` for a file that is there but unreadable, foreign, of
    another format or normalizer, with another key or document count, whose payload's
    SHA-256 differs from the one its header records (any flipped bit, truncation or
    appended byte), that another user owns or group or others may write (checked on
    the open file), or that fails in any way while it is decoded and turned into an
    index. The digest is checked before the payload is decoded: damaged bytes never
    reach the decoder, and the decoder runs no code (JSON and ``allow_pickle=False``).
    """
    payload = read_checked(
        cache_path(cache_dir, key),
        lambda header: header == _header(key, len(documents), header.get("payload_sha256")),
        _read_arrays,
    )
    if payload is None:
        return None
    if payload["records"]["doc_ids"] != sorted(documents):
        raise DamagedCacheError("its document ids differ from the corpus's")
    try:
        return _index_from(payload, documents)
    except Exception as exc:  # noqa: BLE001 - any failure to load a cache file means: rebuild (fail safe)
        raise unloadable(exc) from None


def load_index(cache_dir: str | Path, key: str, documents: Mapping[str, str]) -> CorpusIndex | None:
    """The cached index of ``documents`` (whose :func:`corpus_key` is ``key``), full or as a delta, or ``None``.

    ``None`` (never an exception) for a missing file and for every damage
    :func:`read_index` or :func:`claimgate.audit.index.delta.read_delta` reports: the caller rebuilds.
    """
    try:
        index = read_index(cache_dir, key, documents)
        return index if index is not None else _delta.read_delta(cache_dir, key, documents, None, _header)
    except DamagedCacheError:
        return None


def store_index(
    cache_dir: str | Path, key: str, index: CorpusIndex, digests: Mapping[str, bytes] | None = None
) -> Path:
    """Write ``index`` as a full file under ``key`` atomically (folder created ``0o700``); returns the file's path.

    ``digests``: :func:`document_digests` of the index's documents (computed from its
    originals when not given), stored so that a later, edited corpus reuses their parts.
    Written by :func:`claimgate.audit.index.cache_file.write_checked` (payload streamed, its
    digest put in the header after; the file left ``0o600``: mode bits group or others
    could write through would make the next run refuse it).
    """
    if digests is None:
        digests = {d.doc_id: document_digest(d.original) for d in index.docs}
    payload = _payload(index, [digests[doc_id] for doc_id in index.doc_ids])
    n_documents = len(index.doc_ids)
    header = lambda digest: _header(key, n_documents, digest)  # noqa: E731
    return write_checked(cache_path(cache_dir, key), header, payload["records"], payload["arrays"])


def cached_corpus_index(
    documents: Mapping[str, str],
    cache_dir: str | Path | None,
    build: Callable[[Mapping[str, str]], CorpusIndex],
    base: CorpusIndex | None = None,
) -> CorpusIndex:
    """``build(documents)``, its copy from ``cache_dir``, or the index of an edited corpus from a previous one.

    Without ``cache_dir`` or ``base`` this is ``build(documents)``. With ``cache_dir``, an
    index stored under this corpus's key is loaded, full or as a delta on a base
    (:mod:`claimgate.audit.index.delta`); else the newest full index file in ``cache_dir``
    is the base: the documents whose texts it holds take their parts from it, the others
    are built (from ``base``'s parts where it holds them: an index in memory whose
    originals are its texts) and the index is stored as a delta on that base, or as a
    full file when the delta would be large or there is no base (the same index as a cold
    build either way: :func:`claimgate.audit.index.reuse.merged_index`). When the folder
    cannot be written the run goes on with one ``warning:`` line on stderr (a cache only
    ever saves time). A damaged file (see :func:`read_index`) gives one ``warning:`` line
    too, and is rebuilt and written again. A folder of another user or writable by others
    is refused (``OutputError``, see :func:`check_cache_owner`).
    """
    if cache_dir is None and base is None:
        return build(documents)
    digests = document_digests(documents)
    if cache_dir is None:
        return _reused(base, None, documents, digests, build)
    check_cache_owner(cache_dir, "cache")  # again: Audit(documents, cache=...) has no check before this
    key = corpus_key(documents, digests)
    damaged_full = False  # then a full file is written over it, never a delta beside it (which would leave it)
    for read, path in ((read_index, cache_path), (_delta.read_delta, _delta.delta_path)):
        try:
            index = read(cache_dir, key, documents) if read is read_index else read(
                cache_dir, key, documents, digests, _header
            )  # fmt: skip
        except DamagedCacheError as exc:
            print(f"warning: index cache {path(cache_dir, key)} is damaged, rebuilt: {exc}", file=sys.stderr)
            index, damaged_full = None, damaged_full or read is read_index
        if index is not None:
            return index
    found = _delta.newest_base(cache_dir, key, _header)
    index = _on_base(found, base, cache_dir, key, documents, digests, build, damaged_full) if found else None
    if index is None:
        index = _reused(base, None, documents, digests, build)
        _stored(lambda: store_index(cache_dir, key, index, digests))
    return index


def _stored(write: Callable[[], Path]) -> None:
    try:
        write()
    except (OSError, OutputError) as exc:
        print(f"warning: index cache not written: {exc}", file=sys.stderr)


def _on_base(
    found: _delta.Base, base, cache_dir, key: str, documents, digests, build, full: bool
) -> CorpusIndex | None:
    """The index of ``documents`` on the base file ``found``, stored as a delta or (``full``, or a large delta) a
    full file; ``None`` if no part of ``found`` serves (another corpus) or, with one ``warning:`` line, if its
    parts do not fit together.

    The file passed every check (:func:`claimgate.audit.index.delta.read_base`), but a
    consistent file can still hold parts that do not fit (a token id past its vocabulary):
    fail safe, the caller builds cold.
    """
    doc_ids, sources, new_ids = reuse_plan(found.index.doc_ids, found.digests, documents, digests)
    if len(new_ids) == len(doc_ids):
        return None
    new_texts = {d: documents[d] for d in new_ids}
    part = _delta.newest_delta_part(cache_dir, found, _header) if base is None and new_ids else None
    new_digests = {d: digests[d] for d in new_ids}
    if part is not None:  # the previous edit's delta: its documents are not built again
        fresh = reused_index(part[0], part[1], new_texts, new_digests, build)
    else:
        fresh = _reused(base, None, new_texts, new_digests, build) if new_ids else EMPTY_INDEX
    try:
        index = merged_index(found.index, fresh, doc_ids, [documents[d] for d in doc_ids], sources)
    except Exception as exc:  # noqa: BLE001 - a base that cannot be reused means: build (fail safe)
        print(f"warning: index cache base not reused: {unloadable(exc)}", file=sys.stderr)
        return None
    if not full and _delta.fits_a_delta(len(doc_ids), len(new_ids), found, len({s for s in sources if s >= 0})):
        _stored(lambda: _delta.store_delta(cache_dir, key, found, sources, fresh, digests, _header))
    else:
        _stored(lambda: store_index(cache_dir, key, index, digests))
    return index


def _reused(base, base_digests, documents, digests, build) -> CorpusIndex:
    """``reused_index`` of ``base`` (digests computed from its originals when ``None``), or ``build`` without one."""
    if base is None:
        return build(documents)
    if base_digests is None:
        base_digests = [document_digest(d.original) for d in base.docs]
    return reused_index(base, base_digests, documents, digests, build)
