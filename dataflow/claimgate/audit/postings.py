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

from dataclasses import dataclass

import numpy as np

_BLOCK = 1 << 20  # elements per step of a pass over a full-size array


@dataclass(frozen=True)
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
        """``(lo, hi)`` (int64, aligned with ``wanted``): the documents of ``wanted[j]`` are ``docs[lo[j]:hi[j]]``.

        ``lo == hi`` for a key no document holds.
        """
        wanted = np.asarray(wanted, dtype=np.int64)
        if not len(self.keys):
            zero = np.zeros(len(wanted), np.int64)
            return zero, zero
        at = np.searchsorted(self.keys, wanted)
        clipped = np.minimum(at, len(self.keys) - 1)
        held = self.keys[clipped] == wanted
        lo = np.where(held, self.offsets[clipped], 0).astype(np.int64)
        hi = np.where(held, self.offsets[clipped + 1], 0).astype(np.int64)
        return lo, hi

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
        found = np.zeros(len(lo), dtype=bool)
        docs = self.docs
        for j, (first, end) in enumerate(zip(lo.tolist(), hi.tolist())):
            if first < end:
                at = first + int(np.searchsorted(docs[first:end], doc))
                found[j] = at < end and docs[at] == doc
        return found

    def expanded(self) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, docs)``: one int64 key per posting beside its int32 document (sorted by key, then document)."""
        return np.repeat(self.keys, np.diff(self.offsets)), self.docs
