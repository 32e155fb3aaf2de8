"""Postings of the corpus index in compressed-row form: each key once, then the documents holding it.

Why this module exists: at 200,000 documents the index holds about 15 million
(token, document) and 18 million (token pair, document) postings. Stored as one
int64 key beside each int32 document number they took 12 bytes a posting; here
each distinct key is stored once (int64), with an offset into one int32 array of
document numbers, so a posting costs 4 bytes plus 12 bytes per distinct key
(storage only: no matching rule depends on it).

What it refuses to do: change any answer. :meth:`Postings.expanded` gives back the
``(keys, documents)`` pairs the index held before, which the tests compare with the
reference build.
"""

from __future__ import annotations

from bisect import bisect_left
from dataclasses import dataclass

import numpy as np

from claimgate.audit.text.reference import JoinedWord

_BLOCK = 1 << 20  # elements per step of a pass over a full-size array


@dataclass(frozen=True, eq=False)  # arrays: equality and hashing by identity
class Postings:
    """Sorted distinct keys and, for ``keys[i]``, the documents ``docs[offsets[i]:offsets[i + 1]]`` (ascending).

    ``keys``: int64, strictly ascending (token ids, or ``id1 << 32 | id2`` for token
    pairs). ``offsets``: ``len(keys) + 1`` values from 0 to ``len(docs)`` (int32 below
    2^31 postings, else int64).
    ``docs``: int32 document numbers, ascending within each key. Picklable.
    """

    keys: np.ndarray
    offsets: np.ndarray
    docs: np.ndarray

    @classmethod
    def empty(cls) -> Postings:
        return cls(np.empty(0, np.int64), np.zeros(1, np.int64), np.empty(0, np.int32))

    @classmethod
    def from_sorted(cls, keys: np.ndarray, docs: np.ndarray) -> Postings:
        """From ``(key, document)`` pairs sorted by key then document, no pair twice (int64 keys, int32 documents).

        Two passes over ``keys`` in blocks, so the only full-size arrays are the result's.
        """
        n = len(keys)
        if n == 0:
            return cls.empty()
        count = 1
        for lo in range(1, n, _BLOCK):
            hi = min(n, lo + _BLOCK)
            count += int(np.count_nonzero(keys[lo:hi] != keys[lo - 1 : hi - 1]))
        distinct = np.empty(count, np.int64)
        offsets = np.empty(count + 1, np.int64 if n >= 1 << 31 else np.int32)
        distinct[0], offsets[0], offsets[-1] = keys[0], 0, n
        j = 1
        for lo in range(1, n, _BLOCK):
            hi = min(n, lo + _BLOCK)
            starts = np.flatnonzero(keys[lo:hi] != keys[lo - 1 : hi - 1])
            starts += lo
            distinct[j : j + len(starts)] = keys[starts]
            offsets[j : j + len(starts)] = starts
            j += len(starts)
        return cls(distinct, offsets, np.ascontiguousarray(docs, dtype=np.int32))

    def __len__(self) -> int:
        """Number of postings (key, document)."""
        return len(self.docs)

    def ranges(self, wanted: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(lo, hi)``, integer arrays aligned with ``wanted``: ``wanted[j]``'s documents are ``docs[lo[j]:hi[j]]``.

        ``lo == hi`` (an empty range) for a key no document holds.
        """
        wanted = np.asarray(wanted, dtype=np.int64)
        if not len(self.keys):
            zero = np.zeros(len(wanted), np.int64)
            return zero, zero
        at = np.minimum(np.searchsorted(self.keys, wanted), len(self.keys) - 1)
        lo = self.offsets[at]
        return lo, np.where(self.keys[at] == wanted, self.offsets[at + 1], lo)

    def gathered(self, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """The documents of every range ``docs[lo[j]:hi[j]]`` (from :meth:`ranges`) one after the other (int64)."""
        counts = hi - lo
        total = int(counts.sum())
        if total == 0:
            return np.empty(0, np.int64)
        first = np.repeat(lo - (np.cumsum(counts) - counts), counts)
        return self.docs[first + np.arange(total)].astype(np.int64)

    def held_by(self, wanted: np.ndarray, doc: int) -> np.ndarray:
        """Boolean per ``wanted`` key: does document number ``doc`` hold it? (one binary search per key)"""
        lo, hi = self.ranges(wanted)
        docs = memoryview(self.docs)  # plain ints by index: a C bisect per key, no numpy call per key
        found = []
        for first, end in zip(lo.tolist(), hi.tolist()):
            at = bisect_left(docs, doc, first, end)
            found.append(at < end and docs[at] == doc)
        return np.array(found, dtype=bool)

    def expanded(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, docs)``: one int64 key per posting beside its int32 document (sorted by key, then document)."""
        return np.repeat(self.keys, np.diff(self.offsets)), self.docs


#: Key occurrences gathered per pass of :func:`postings_in_passes` (8 bytes each, about twice):
#: bounds the working memory of building the postings, whatever the corpus.
PASS_KEYS = 1 << 21


class _Packing:
    """``(key, document)`` as one int64 that sorts by key then document, when ``key >> 32`` and its low
    32 bits (``id1``, ``id2``, each under ``2 ** id_bits``) and the document fit in 63 bits together."""

    def __init__(self, id_bits: int, doc_bits: int) -> None:
        self.id_bits, self.doc_bits = id_bits, doc_bits

    @classmethod
    def fitting(cls, n_ids: int, n_docs: int) -> _Packing | None:
        id_bits, doc_bits = max(1, (n_ids - 1).bit_length()), max(1, (n_docs - 1).bit_length())
        return cls(id_bits, doc_bits) if 2 * id_bits + doc_bits <= 63 else None

    def pack(self, keys: np.ndarray, docs: np.ndarray) -> np.ndarray:
        return ((keys >> 32) << (self.id_bits + self.doc_bits)) | ((keys & 0xFFFFFFFF) << self.doc_bits) | docs

    def key_part(self, packed: np.ndarray) -> np.ndarray:
        """The key bits of packed values (orders and compares like the keys)."""
        return packed >> self.doc_bits

    def unpack_key(self, key_part: np.ndarray) -> np.ndarray:
        return ((key_part >> self.id_bits) << 32) | (key_part & ((1 << self.id_bits) - 1))


def postings_in_passes(key_blocks, group_counts: np.ndarray, n_ids: int, n_docs: int) -> Postings:
    """Postings of the ``(key, document)`` pairs that ``key_blocks`` yields, built a range of keys at a time.

    ``key_blocks(lo, hi)`` yields ``(keys, docs)`` int64 arrays: the pairs whose key's
    group (the token id for tokens, the first id for token pairs) is in ``lo..hi-1``,
    a pair possibly more than once. ``group_counts[g]`` bounds how many pairs group
    ``g`` yields. Each pass keeps the keys of a run of groups holding at
    most about :data:`PASS_KEYS` pairs, sorts and deduplicates them and appends them
    to the result, so the working memory is one pass's, not the corpus's. The result
    arrays are allocated at their upper bound and shrunk in place at the end
    (``ndarray.resize``: pages never written are never resident).
    """
    bound = int(group_counts.sum())
    if bound == 0:
        return Postings.empty()
    cumulative = np.cumsum(group_counts)
    cuts = np.searchsorted(cumulative, np.arange(PASS_KEYS, bound, PASS_KEYS), "right")
    bounds = [0, *sorted({int(c) for c in cuts if 0 < c < len(group_counts)}), len(group_counts)]
    packing = _Packing.fitting(n_ids, n_docs)
    keys_out = np.empty(bound, np.int64)
    offsets_out = np.empty(bound + 1, np.int64 if bound >= 1 << 31 else np.int32)
    docs_out = np.empty(bound, np.int32)
    n_keys = n_postings = 0
    for lo, hi in zip(bounds, bounds[1:]):
        keys, docs = _pass_pairs(key_blocks(lo, hi), packing)
        fresh = np.ones(len(keys), dtype=bool)
        fresh[1:] = keys[1:] != keys[:-1]
        starts = np.flatnonzero(fresh)
        keys_out[n_keys : n_keys + len(starts)] = keys[starts]
        offsets_out[n_keys : n_keys + len(starts)] = starts + n_postings
        docs_out[n_postings : n_postings + len(docs)] = docs
        n_keys += len(starts)
        n_postings += len(docs)
        del keys, docs, fresh, starts
    offsets_out[n_keys] = n_postings
    keys_out.resize(n_keys, refcheck=False)  # no view of these arrays exists
    offsets_out.resize(n_keys + 1, refcheck=False)
    docs_out.resize(n_postings, refcheck=False)
    return Postings(keys_out, offsets_out, docs_out)


def _pass_pairs(blocks, packing: _Packing | None):
    """Distinct ``(keys int64, docs int32)`` of ``blocks`` (``(keys, docs)`` arrays), sorted by key then document."""
    parts: list = [packing.pack(keys, docs) if packing else (keys, docs) for keys, docs in blocks]
    if packing is None:  # ids too wide to pack: sort key/document pairs
        keys = np.concatenate([k for k, _ in parts]) if parts else np.empty(0, np.int64)
        docs = np.concatenate([d for _, d in parts]) if parts else np.empty(0, np.int64)
        del parts
        order = np.lexsort((docs, keys))
        keys, docs = keys[order], docs[order]
        fresh = np.ones(len(keys), dtype=bool)
        fresh[1:] = (keys[1:] != keys[:-1]) | (docs[1:] != docs[:-1])
        return keys[fresh], docs[fresh].astype(np.int32)
    packed = np.concatenate(parts) if parts else np.empty(0, np.int64)
    del parts
    packed = _sorted(packed)
    fresh = np.ones(len(packed), dtype=bool)
    fresh[1:] = packed[1:] != packed[:-1]
    packed = packed[fresh]
    docs = (packed & ((1 << packing.doc_bits) - 1)).astype(np.int32)
    return packing.unpack_key(packing.key_part(packed)), docs


def _sorted(packed: np.ndarray) -> np.ndarray:
    """``packed`` (int64) sorted ascending; as uint32 offsets from its least value when they fit (a token pass:
    a range of ids and the documents; sorting 4-byte values takes about 60% of the time of 8-byte ones)."""
    if len(packed) == 0:
        return packed
    least = int(packed.min())
    if int(packed.max()) - least < 1 << 32:
        narrow = (packed - least).astype(np.uint32)
        narrow.sort()
        out = narrow.astype(np.int64)
        out += least
        return out
    packed.sort()
    return packed


def joined_word_keys(ids: list[int], joined_words: dict[int, tuple[JoinedWord, ...]]) -> tuple[list[int], list[int]]:
    """Token and bigram keys that a document's joined line-end-hyphen words add (may repeat)."""
    extra_uni: list[int] = []
    extra_bi: list[int] = []
    n = len(ids)
    for p, readings in joined_words.items():
        for word_id, end in readings:
            extra_uni.append(word_id)
            if p > 0:
                extra_bi.append((ids[p - 1] << 32) | word_id)
                for q, q_readings in joined_words.items():
                    extra_bi.extend((v << 32) | word_id for v, v_end in q_readings if v_end == p and q < p)
            if end < n:
                extra_bi.append((word_id << 32) | ids[end])
    return extra_uni, extra_bi
