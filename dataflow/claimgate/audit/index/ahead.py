"""Chunks of a big corpus file normalized ahead by a forked helper, while the command imports the audit.

Rules: docs/audit-rules.md, "Indexing a big corpus file". Why: a cold audit of a corpus file spends its first
half-second importing pandas and Hamilton on one core, and then most of its index build normalizing the
documents (:func:`claimgate.audit.text.normalize.normalized_chunk`) on that same core. A helper forked before
those imports (one thread in the process) reads the same file with the same limits
(:func:`claimgate.io.corpus_file.read_corpus`), cuts it into the build's chunks and normalizes them from the
last one back; the build (:func:`claimgate.audit.index.build.build_corpus_index`) goes from the first one
forward and takes each chunk the helper has finished instead of normalizing it, until the two meet.

What it refuses to do: let the helper decide anything, or change a token. The helper sends each chunk's
:class:`claimgate.audit.index.chunk_facts.ChunkFacts` (what follows from the texts alone: the same functions
on the same texts as in this process); the build takes them only when their chunk number, document numbers
and a check of the texts (:func:`texts_check`) are those of the chunk it is at, and their arrays have the
shapes and dtypes the build's own give; anything else (a helper that failed, was killed, read another file's
bytes, or wrote a damaged record) is ignored and the build works that chunk out itself. The build never
waits for the helper. Token ids are still given in chunk order by the one process, so the index is the same,
byte for byte, either way.

The helper writes each chunk to an unnamed temporary file (``tempfile.TemporaryFile``: no name in any folder,
mode ``0o600``) and sends only its place over the pipe, so neither process holds the other up and the
caller's memory holds no chunk before it is used. This module imports neither numpy nor pyarrow at import
time: the command imports it before the fork.
"""

from __future__ import annotations

import os
import pickle
import stat
import struct
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from claimgate.runtime.helper_process import HelperStream, helper_available, read_place, write_whole

if TYPE_CHECKING:
    from claimgate.audit.index.chunk_facts import ChunkFacts

#: A corpus file at least this long (bytes) is normalized partly by a forked helper when the command asks for
#: one: below it the whole build takes less than the helper needs to import numpy and read the file.
AHEAD_FROM_BYTES = 4 * 2**20
#: ... and at most this long (the default ``--max-corpus-bytes``): the helper holds its own copy of every text,
#: so above it the memory a second copy takes outweighs the time saved (a bigger file is read in this process).
AHEAD_TO_BYTES = 64 * 2**20

_NOTICE = struct.Struct("<qqq")  # chunk number, offset in the file, length (bytes)
_RECORD_FIELDS = 5


def texts_check(originals: list[str]) -> int:
    """``hash(tuple(originals))``: equal lists give equal values in this process and in its forks (which share
    its hash key); different ones the same value about once in 2**64 (the key is secret and random per run,
    unless ``PYTHONHASHSEED`` sets it)."""
    return hash(tuple(originals))


def chunk_record(number: int, numbers: range, facts: ChunkFacts) -> bytes:
    """The bytes of one chunk's facts as the helper writes them (read back by :func:`facts_of_record`).

    A pickled tuple: chunk number, first and end document numbers, :func:`texts_check` of the texts, then the
    :class:`claimgate.audit.index.chunk_facts.ChunkFacts` without the texts themselves (the reader has them).
    """
    chunk = facts.chunk
    originals, local_doc = chunk.originals, chunk.local_doc
    check = texts_check(originals)
    chunk.originals, chunk.local_doc = [], None  # the reader has the texts; local_doc follows from first
    try:
        return pickle.dumps((number, numbers.start, numbers.stop, check, facts), protocol=pickle.HIGHEST_PROTOCOL)
    finally:
        chunk.originals, chunk.local_doc = originals, local_doc


def facts_of_record(record: bytes, number: int, numbers: range, originals: list[str]) -> ChunkFacts | None:
    """The facts ``record`` holds when they are chunk ``number``'s, of documents ``numbers`` with texts
    ``originals``, and every array has the shape and dtype ``normalized_chunk`` gives; else ``None`` (raises
    nothing). The record comes from this process's own helper through an unnamed file only the two hold.
    """
    import numpy as np
    import pyarrow as pa

    from claimgate.audit.index.chunk_facts import ChunkFacts

    try:
        fields = pickle.loads(record)  # noqa: S301 - written by this process's own fork (see above)
    except Exception:  # noqa: BLE001 - a damaged record is no chunk
        return None
    if type(fields) is not tuple or len(fields) != _RECORD_FIELDS or type(fields[4]) is not ChunkFacts:
        return None
    got_number, start, stop, check, facts = fields
    if (got_number, start, stop) != (number, numbers.start, numbers.stop) or check != texts_check(originals):
        return None
    chunk, n = facts.chunk, len(numbers)
    arrays = (chunk.first, chunk.starts, chunk.ends, facts.negating)
    if not all(type(a) is np.ndarray and a.ndim == 1 for a in arrays):
        return None
    if not isinstance(chunk.tokens, pa.DictionaryArray) or chunk.tokens.null_count:
        return None
    if tuple(a.dtype.str for a in arrays) != ("<i8", "<i4", "<i4", "<i8"):
        return None
    n_tokens, counts = len(chunk.tokens), np.diff(chunk.first)
    if len(chunk.first) != n + 1 or chunk.first[0] != 0 or chunk.first[-1] != n_tokens or (counts < 0).any():
        return None
    if not len(chunk.starts) == len(chunk.ends) == n_tokens:
        return None
    if len(facts.negating) and not (0 <= facts.negating[0] and facts.negating[-1] < n_tokens):
        return None
    locals_ = (chunk.reference, chunk.joins, facts.with_ellipsis, facts.brackets, facts.references)
    if not all(type(k) is int and 0 <= k < n for group in (*locals_, facts.scanned, facts.footnoted) for k in group):
        return None
    chunk.originals, chunk.local_doc = list(originals), np.repeat(np.arange(n, dtype=np.int64), counts)
    return facts


def _chunks_from_the_end(fd: int, corpus_path: str, max_source_bytes: int, max_corpus_bytes: int):
    """The helper's body: read the corpus file as the command does, normalize its chunks from the last one
    back, write each record to ``fd`` and yield its notice (``_NOTICE``: number, offset, length)."""
    from claimgate.runtime.imports import pandas_held_back

    with pandas_held_back():  # a throwaway process: pyarrow never needs pandas here
        from claimgate.audit.index.build import chunk_ranges
        from claimgate.audit.index.chunk_facts import chunk_facts
        from claimgate.audit.text.normalize import normalized_chunk
        from claimgate.io.corpus_file import read_corpus

        documents = read_corpus(corpus_path, max_source_bytes, max_corpus_bytes)
        doc_ids = sorted(documents)
        ranges = chunk_ranges(doc_ids, documents)
        offset = 0
        for number in reversed(range(len(ranges))):
            numbers = ranges[number]
            originals = [documents[doc_ids[k]] for k in numbers]
            record = chunk_record(number, numbers, chunk_facts(normalized_chunk(originals)))
            write_whole(fd, record)
            yield _NOTICE.pack(number, offset, len(record))
            offset += len(record)


class ChunksAhead:
    """A forked helper normalizing a corpus file's chunks from the last one back (started at construction).

    ``facts(number, numbers, originals)`` gives the helper's facts of that chunk when it has finished it and
    they check out (see the module), else ``None``: never waits. ``stop()`` ends the helper (no more chunks are
    wanted); ``close()`` (or leaving the ``with`` block) also drops the file. ``taken`` counts the chunks given.
    Without a helper (off Linux, a low process limit, no temporary file) every ``facts`` is ``None``.
    """

    def __init__(self, corpus_path: str | Path, max_source_bytes: int, max_corpus_bytes: int) -> None:
        self.taken = 0
        self._places: dict[int, tuple[int, int]] = {}
        self._file = self._helper = None
        if not helper_available():
            return
        try:
            self._file = tempfile.TemporaryFile(prefix="claimgate-chunks-")
        except OSError:
            return
        limits = (int(max_source_bytes), int(max_corpus_bytes))
        self._helper = HelperStream(_chunks_from_the_end, self._file.fileno(), str(corpus_path), *limits)

    def facts(self, number: int, numbers: range, originals: list[str]) -> ChunkFacts | None:
        """The facts of chunk ``number`` (documents ``numbers``, texts ``originals``) as the helper found them,
        or ``None`` (not finished yet, or not checking out)."""
        if self._helper is not None:
            for notice in self._helper.arrived():
                if len(notice) == _NOTICE.size:
                    got, offset, length = _NOTICE.unpack(notice)
                    self._places[got] = (offset, length)
        place = self._places.pop(number, None)
        if place is None or self._file is None:
            return None
        record = read_place(self._file.fileno(), *place)
        facts = facts_of_record(record, number, numbers, originals) if record is not None else None
        self.taken += facts is not None
        return facts

    def stop(self) -> None:
        """End the helper if it still runs (the chunks it has written stay readable until ``close``)."""
        if self._helper is not None:
            self._helper.close()

    def close(self) -> None:
        """End the helper and drop its file (idempotent)."""
        self.stop()
        if self._file is not None:
            self._file.close()
            self._file = None
        self._places.clear()

    def __enter__(self) -> ChunksAhead:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def chunks_ahead_for(corpus_path: str | Path, max_source_bytes: int, max_corpus_bytes: int) -> ChunksAhead | None:
    """A :class:`ChunksAhead` for a corpus file of :data:`AHEAD_FROM_BYTES` to :data:`AHEAD_TO_BYTES` bytes
    (``None`` for a smaller or bigger one, or a path that is not a regular file: the build then normalizes
    every chunk itself). ``max_source_bytes`` / ``max_corpus_bytes``: the command's limits, which the helper's
    read of the file applies too (a file they refuse gives the helper nothing, and the command the refusal)."""
    try:
        info = os.stat(corpus_path)
    except (OSError, ValueError):
        return None
    if not stat.S_ISREG(info.st_mode) or not AHEAD_FROM_BYTES <= info.st_size <= AHEAD_TO_BYTES:
        return None
    return ChunksAhead(corpus_path, max_source_bytes, max_corpus_bytes)
