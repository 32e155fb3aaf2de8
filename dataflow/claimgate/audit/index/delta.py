"""Bases and deltas of the index cache: an edited corpus is stored as a small delta on an immutable full index.

Why this module exists: after one of 20,000 documents changes, writing the whole new
index again (50-70 MB, its digest computed) cost more than the edit itself. Here the
full index files of :mod:`claimgate.audit.index.cache` are immutable bases, and an edited
corpus is stored as a delta file ``corpus-delta-<key>.bin``: the key of its base and the
SHA-256 of the base's payload (both in the header), the index of the documents the base
does not hold (their tokens and everything found per document, as a full file holds
them, and each text's SHA-256), and ``delta_sources`` (int64, one per document in id
order: the base document number holding its part, or ``-1 - j`` for the delta's
document ``j``; removed documents are simply not named: the mask of the dropped base
documents). Loading a delta reads and checks both files and merges them in memory
(:func:`claimgate.audit.index.reuse.merged_index`: runs of unchanged documents stay views
of the base's arrays, only the rebuilt documents' postings are built and spliced in).
When the delta would hold more than :data:`DELTA_SHARE` of the documents, or the base
more than that share of documents the corpus no longer uses, a full index is written
instead (the compaction: it becomes the next base).

What it refuses to do: use a delta whose base is gone, replaced (another payload digest)
or of other rules, or whose parts do not add up to the corpus: every source in range,
the delta's documents exactly the corpus's documents with a negative source, in order,
and the SHA-256 of every part's text equal to the corpus text's. Such a delta, like any
damaged file, gives one ``warning:`` line and a rebuild. Rules: docs/audit-rules.md,
"The index cache".
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from claimgate.audit.index.cache_file import DamagedCacheError, read_checked, unloadable, write_checked
from claimgate.audit.index.payload import digests_from, index_from, payload_of, read_arrays
from claimgate.audit.index.reuse import document_digest, merged_index
from claimgate.audit.index.types import CorpusIndex

#: A delta holds at most this share of the corpus's documents (and its base at most this share of
#: documents the corpus dropped); past it the merged index is written as a new full file.
DELTA_SHARE = 0.05

#: ``(key, number of documents, payload digest) -> header``: the full files' header of this format and normalizer.
HeaderOf = Callable[[str, int, str], dict]

#: A SHA-256 in hex: what a delta's ``base_key`` and ``base_payload_sha256`` must be (a key names a file).
_HEX64 = re.compile(r"[0-9a-f]{64}")


@dataclass(frozen=True)
class Base:
    """A full index file read to reuse parts of: its index (originals empty), texts' SHA-256, key, payload digest."""

    index: CorpusIndex
    digests: list[bytes]
    key: str
    payload_sha256: str


class OtherRules(DamagedCacheError):
    """A cache file of another format or normalizer: not damaged, only not reusable as a base."""


class _NoTexts(dict):
    """The texts of a base index: none are stored, none are needed (a reused part is tokens, not text)."""

    def __missing__(self, doc_id: str) -> str:
        return ""


def full_path(cache_dir: str | Path, key: str) -> Path:
    return Path(cache_dir) / f"corpus-index-{key}.bin"


def delta_path(cache_dir: str | Path, key: str) -> Path:
    return Path(cache_dir) / f"corpus-delta-{key}.bin"


def read_base(path: Path, header_of: HeaderOf) -> Base | None:
    """The full index file at ``path`` as a :class:`Base`; ``None`` if missing or of another format or normalizer.

    ``DamagedCacheError`` for any other failure, checked as every cache file
    (:func:`claimgate.audit.index.cache_file.read_checked`), and for a header whose key is not
    the one the file's name carries.
    """
    key = path.name.removeprefix("corpus-index-").removesuffix(".bin")
    rules = header_of(key, 0, "")

    def fits(header: dict) -> bool:
        if header.get("format") != rules["format"] or header.get("normalizer") != rules["normalizer"]:
            raise OtherRules
        return header == header_of(key, header.get("documents"), header.get("payload_sha256"))

    try:
        payload = read_checked(path, fits, read_arrays)
    except OtherRules:
        return None
    if payload is None:
        return None
    try:
        if payload["header"]["documents"] != len(payload["records"]["doc_ids"]):
            raise ValueError("its header and records count different documents")
        index = index_from(payload, _NoTexts())
        return Base(index, digests_from(payload), key, payload["header"]["payload_sha256"])
    except Exception as exc:  # noqa: BLE001 - a base that cannot be decoded means: build (fail safe)
        raise unloadable(exc) from None


def newest_base(cache_dir: str | Path, key: str, header_of: HeaderOf) -> Base | None:
    """The most recently written full index in ``cache_dir`` other than ``key``'s (see :func:`read_base`).

    ``None`` when the folder holds none of this format and normalizer; a damaged one
    gives one ``warning:`` line on stderr and ``None`` (the corpus is built cold).
    """
    own = full_path("", key).name
    try:
        with os.scandir(cache_dir) as entries:
            files = [
                (e.stat(follow_symlinks=False).st_mtime_ns, e.name)
                for e in entries
                if e.name.startswith("corpus-index-") and e.name.endswith(".bin") and e.name != own
            ]
    except OSError:
        return None
    for _, name in sorted(files, reverse=True)[:1]:  # the newest only: one file's reading at most
        path = Path(cache_dir) / name
        try:
            return read_base(path, header_of)
        except DamagedCacheError as exc:
            print(f"warning: index cache {path} is damaged, not reused: {exc}", file=sys.stderr)
    return None


def newest_delta_part(cache_dir: str | Path, base: Base, header_of: HeaderOf) -> tuple[CorpusIndex, list[bytes]] | None:
    """``(index, texts' SHA-256)`` of the documents of the newest delta in ``cache_dir`` made on ``base``, or ``None``.

    A chain of edits then builds only what the last edit changed: the documents the
    previous delta already holds take their parts from it. Any file that is not such a
    delta, or fails its checks, is passed over (``None``): this only saves time, and the
    file is judged, with a warning, when its own corpus is loaded.
    """
    try:
        with os.scandir(cache_dir) as entries:
            files = [(e.stat(follow_symlinks=False).st_mtime_ns, e.path) for e in entries
                     if e.name.startswith("corpus-delta-") and e.name.endswith(".bin")]  # fmt: skip
    except OSError:
        return None
    for _, path in sorted(files, reverse=True)[:1]:
        key = Path(path).name.removeprefix("corpus-delta-").removesuffix(".bin")

        def fits(header: dict, key: str = key) -> bool:
            made_on = {"base_key": base.key, "base_payload_sha256": base.payload_sha256}
            return header == {**header_of(key, header.get("documents"), header.get("payload_sha256")), **made_on}

        try:
            payload = read_checked(Path(path), fits, read_arrays)
            return (index_from(payload, _NoTexts()), digests_from(payload)) if payload else None
        except Exception:  # noqa: BLE001 - a part that cannot serve is built instead
            return None
    return None


def fits_a_delta(n_documents: int, n_new: int, base: Base, n_sourced: int) -> bool:
    """Whether an index of ``n_documents`` (``n_new`` of them built, ``n_sourced`` distinct base parts used)
    is stored as a delta on ``base`` (see :data:`DELTA_SHARE`) rather than as a full file."""
    unused = len(base.index.doc_ids) - n_sourced
    return n_new <= DELTA_SHARE * n_documents and unused <= DELTA_SHARE * max(len(base.index.doc_ids), 1)


def store_delta(cache_dir, key: str, base: Base, sources: list[int], fresh: CorpusIndex, digests, header_of) -> Path:
    """Write the delta of the corpus with ``key`` on ``base`` atomically (``0o600``); returns its path.

    ``sources``: see :func:`claimgate.audit.index.reuse.reuse_plan`; ``fresh``: the index of
    the documents with a negative source, in order; ``digests``: doc_id -> SHA-256 of its text.
    """
    payload = payload_of(fresh, [digests[doc_id] for doc_id in fresh.doc_ids])
    arrays = {**payload["arrays"], "delta_sources": np.asarray(sources, np.int64)}
    records = {**payload["records"], "arrays": list(arrays)}

    def header(digest: str) -> dict:
        extra = {"base_key": base.key, "base_payload_sha256": base.payload_sha256}
        return {**header_of(key, len(sources), digest), **extra}

    return write_checked(delta_path(cache_dir, key), header, records, arrays)


def read_delta(cache_dir, key: str, documents: Mapping[str, str], digests: Mapping[str, bytes], header_of):
    """The index of ``documents`` (whose key is ``key``) from its delta and that delta's base; ``None`` without a delta.

    ``DamagedCacheError`` for a damaged delta (as any cache file), a base that is missing,
    of other rules, damaged or not the one the delta was made on, and parts that do not
    add up to ``documents`` (see the module).
    """

    def fits(header: dict) -> bool:
        sha, base_key, base_sha = (header.get(k) for k in ("payload_sha256", "base_key", "base_payload_sha256"))
        expected = {**header_of(key, len(documents), sha), "base_key": base_key, "base_payload_sha256": base_sha}
        return header == expected and all(isinstance(v, str) and _HEX64.fullmatch(v) for v in (base_key, base_sha))

    payload = read_checked(delta_path(cache_dir, key), fits, read_arrays)
    if payload is None:
        return None
    header = payload["header"]
    if digests is None:
        digests = {doc_id: document_digest(text) for doc_id, text in documents.items()}
    try:
        base = read_base(full_path(cache_dir, header["base_key"]), header_of)
    except DamagedCacheError as exc:
        raise DamagedCacheError(f"its base is damaged ({exc})") from None
    if base is None or base.payload_sha256 != header["base_payload_sha256"]:
        raise DamagedCacheError("its base index is missing or is not the one it was made on")
    try:
        return _merged(base, payload, documents, digests)
    except Exception as exc:  # noqa: BLE001 - as every cache file: rebuild
        raise unloadable(exc) from None


def _merged(base: Base, payload: dict, documents: Mapping[str, str], digests: Mapping[str, bytes]) -> CorpusIndex:
    doc_ids = sorted(documents)
    sources = payload["arrays"]["delta_sources"].tolist()
    fresh_ids = payload["records"]["doc_ids"]
    n_base = len(base.index.doc_ids)
    if len(sources) != len(doc_ids) or any(not -len(fresh_ids) <= s < n_base for s in sources):
        raise ValueError("its sources do not fit the corpus and its base")
    new = [k for k, s in enumerate(sources) if s < 0]
    if [-1 - sources[k] for k in new] != list(range(len(fresh_ids))) or [doc_ids[k] for k in new] != fresh_ids:
        raise ValueError("its documents are not the corpus's new documents")
    if digests_from(payload) != [digests[d] for d in fresh_ids] or any(
        s >= 0 and base.digests[s] != digests[d] for d, s in zip(doc_ids, sources)
    ):
        raise ValueError("a part's text digest differs from the corpus's text")
    fresh = index_from(payload, documents)
    return merged_index(base.index, fresh, doc_ids, [documents[d] for d in doc_ids], sources)
