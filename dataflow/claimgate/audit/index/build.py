"""Building the corpus index with array operations, a few megabytes of text at a time.

Why this module exists: the index is built once per corpus and its cost is
dominated by normalizing every document. Here documents are folded one by one
(:func:`claimgate.audit.text.reference._normalized_string`, a no-op but ``lower()`` for
ASCII) and then tokenized and interned a chunk of documents at a time: the
chunk's folded texts are joined by NUL (a separator that no rule reads across) and
handed to the array rules of :mod:`claimgate.audit.text.normalize`; token ids come
from one pyarrow dictionary encoding per chunk, and the chunk's tokens become one
segment of a :class:`claimgate.audit.index.document_table.DocumentTable` (no object per
document). The postings are built last, from the table's token arrays, a range of
token ids at a time (:func:`claimgate.audit.index.postings.postings_in_passes`). Peak
memory beyond the index itself is one chunk's or one pass's, not the corpus's.

What it refuses to do: change any value. A document the array rules do not cover
goes through the reference path (:func:`claimgate.audit.text.reference.normalize_text_reference`)
unchanged, and the result equals
:func:`claimgate.audit.index.reference.build_corpus_index_reference` document for
document (tests/audit/index/test_index_build.py); only the numbering of token ids may differ.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import replace

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from claimgate.audit.index.chunk_facts import ChunkFacts, FactsAhead, chunk_facts
from claimgate.audit.index.document_table import DocumentTable, TokenSegment
from claimgate.audit.index.postings import Postings, joined_word_keys, postings_in_passes
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.text.marks import footnote_alternatives
from claimgate.audit.text.normalize import NormalizedChunk, normalized_chunk
from claimgate.audit.text.reference import joined_word_alternatives

__all__ = ["CHUNK_CHARS", "NormalizedChunk", "build_corpus_index", "chunk_ranges", "normalized_chunk"]

#: Characters of folded text per chunk: bounds the build's working memory (~40 bytes per character).
CHUNK_CHARS = 1 << 20


class _Vocabulary:
    """Token strings and their ids, in first-seen order (``strings`` also as one pyarrow array, ``known``)."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.strings: list[str] = []
        self.known = pa.array([], type=pa.large_string())  # strings[:len(known)], for pc.index_in

    def intern(self, token: str) -> int:
        tid = self.ids.get(token)
        if tid is None:
            tid = self.ids[token] = len(self.strings)
            self.strings.append(token)
        return tid

    def encode(self, tokens: pa.Array) -> np.ndarray:
        """int64 ids of ``tokens``: one dictionary encoding, the distinct tokens looked up in C
        (``pyarrow.compute.index_in``), and one Python step per token never seen before (in first-seen order)."""
        if not len(tokens):
            return np.empty(0, dtype=np.int64)
        encoded = tokens.dictionary_encode()
        distinct = encoded.dictionary
        if len(self.known) < len(self.strings):  # interned one by one since (reference documents, joined words)
            self.known = pa.concat_arrays([self.known, pa.array(self.strings[len(self.known) :], pa.large_string())])
        ids = pc.fill_null(pc.index_in(distinct, value_set=self.known), -1).to_numpy().astype(np.int64)
        fresh = np.flatnonzero(ids < 0)
        if len(fresh):
            ids[fresh] = np.fromiter(map(self.intern, distinct.take(pa.array(fresh)).to_pylist()), np.int64, len(fresh))
        return ids[encoded.indices.to_numpy(zero_copy_only=False)]


def chunk_ranges(doc_ids: list[str], documents: Mapping[str, str]) -> list[range]:
    """The build's chunks: runs of consecutive document numbers (in ``doc_ids``' order) holding about
    :data:`CHUNK_CHARS` characters each (a text's length plus one), the last one what is left."""
    ranges, start, size = [], 0, 0
    for k, doc_id in enumerate(doc_ids):
        size += len(documents[doc_id]) + 1
        if size >= CHUNK_CHARS:
            ranges.append(range(start, k + 1))
            start, size = k + 1, 0
    if start < len(doc_ids):
        ranges.append(range(start, len(doc_ids)))
    return ranges


def build_corpus_index(documents: Mapping[str, str], ahead: FactsAhead | None = None) -> CorpusIndex:
    """The corpus index of ``documents`` (doc_id -> text), equal to the reference build's.

    Same contract as :func:`claimgate.audit.index.reference.build_corpus_index_reference`: an empty
    mapping gives an empty index; a non-str doc_id or text raises ``TypeError``.
    Documents are tokenized a chunk at a time (:func:`chunk_ranges`) into a :class:`DocumentTable`; the
    postings are then built from its token arrays (:func:`postings_in_passes`), so no
    per-chunk copy of the keys is kept while the corpus is read. ``ahead``: a forked helper's chunks
    (:class:`claimgate.audit.index.ahead.ChunksAhead`), each taken instead of normalizing it here when the
    helper has finished it and it checks out; it is stopped once the chunks are done. The index is the same,
    byte for byte, with or without it (docs/audit-rules.md, "Indexing a big corpus file").
    """
    doc_ids = sorted(documents)
    for doc_id in doc_ids:
        if not isinstance(doc_id, str):
            raise TypeError(f"doc_id must be str, got {type(doc_id).__name__}")
        if not isinstance(documents[doc_id], str):
            raise TypeError(f"normalize_text expects str, got {type(documents[doc_id]).__name__}")
    vocab = _Vocabulary()
    table = DocumentTable(doc_ids, [documents[d] for d in doc_ids], [])  # filled chunk by chunk
    extra = _ExtraKeys()
    ellipses: set[int] = set()
    segments = []
    for number, numbers in enumerate(chunk_ranges(doc_ids, documents)):
        originals = table.originals[numbers.start : numbers.stop]
        facts = ahead.facts(number, numbers, originals) if ahead is not None else None
        facts = chunk_facts(normalized_chunk(originals)) if facts is None else facts
        segments.append(_index_chunk(facts, numbers, table, vocab, extra, ellipses))
    if ahead is not None:
        ahead.stop()  # the helper would go on with chunks done here
    table = replace(table, segments=segments, ellipses=frozenset(ellipses))
    return CorpusIndex(doc_ids, table, vocab.ids, vocab.strings, *_postings(segments, extra, len(vocab.strings)))


class _ExtraKeys:
    """Token and token-pair keys that joined line-end-hyphen words add, with their documents (few)."""

    def __init__(self) -> None:
        self.tokens: list[int] = []
        self.token_docs: list[int] = []
        self.pairs: list[int] = []
        self.pair_docs: list[int] = []

    def add(self, k: int, ids: list[int], joined_words: dict) -> None:
        tokens, pairs = joined_word_keys(ids, joined_words)
        self.tokens += tokens
        self.token_docs += [k] * len(tokens)
        self.pairs += pairs
        self.pair_docs += [k] * len(pairs)


def _postings(segments: list[TokenSegment], extra: _ExtraKeys, n_ids: int) -> tuple[Postings, Postings]:
    """``(token postings, pair postings)`` of the documents' tokens and the joined words' extra keys."""
    n_docs = sum(s.n_docs for s in segments)
    extra_tokens = np.asarray(extra.tokens, np.int64), np.asarray(extra.token_docs, np.int64)
    extra_pairs = np.asarray(extra.pairs, np.int64), np.asarray(extra.pair_docs, np.int64)
    groups = max(n_ids, 1)

    def chosen(ids: np.ndarray, lo: int, hi: int, count: int) -> np.ndarray | None:
        """Positions ``p < count`` with ``lo <= ids[p] < hi`` (``None``: all of them)."""
        return None if lo == 0 and hi >= groups else np.flatnonzero((ids[:count] >= lo) & (ids[:count] < hi))

    def token_blocks(lo: int, hi: int):
        for s in segments:
            at = chosen(s.token_ids, lo, hi, len(s.token_ids))
            if at is None:
                yield s.token_ids.astype(np.int64), s.doc_of_token()
            else:
                yield s.token_ids[at].astype(np.int64), np.searchsorted(s.first, at, "right") - 1 + s.first_doc
        keys, docs = extra_tokens
        yield _in_groups(keys, docs, keys, lo, hi)

    def pair_blocks(lo: int, hi: int):
        for s in segments:
            n = len(s.token_ids)
            if n < 2:
                continue
            starts_pair = np.ones(n - 1, dtype=bool)
            inner = s.first[1:-1]
            starts_pair[inner[(inner > 0) & (inner < n)] - 1] = False  # a document's last token starts no pair
            at = chosen(s.token_ids, lo, hi, n - 1)
            at = np.flatnonzero(starts_pair) if at is None else at[starts_pair[at]]
            keys = (s.token_ids[at].astype(np.int64) << 32) | s.token_ids[at + 1]
            yield keys, np.searchsorted(s.first, at, "right") - 1 + s.first_doc
        keys, docs = extra_pairs
        yield _in_groups(keys, docs, keys >> 32, lo, hi)

    occurrences = np.zeros(groups, np.int64)  # per token id: an upper bound of its postings
    for s in segments:
        occurrences += np.bincount(s.token_ids, minlength=groups)
    extra_first = np.bincount(extra_pairs[0] >> 32, minlength=groups) if len(extra_pairs[0]) else 0
    extra_count = np.bincount(extra_tokens[0], minlength=groups) if len(extra_tokens[0]) else 0
    tokens = postings_in_passes(token_blocks, occurrences + extra_count, n_ids, n_docs)
    pairs = postings_in_passes(pair_blocks, occurrences + extra_first, n_ids, n_docs)
    return tokens, pairs


def _in_groups(keys: np.ndarray, docs: np.ndarray, groups: np.ndarray, lo: int, hi: int):
    chosen = (groups >= lo) & (groups < hi)
    return keys[chosen], docs[chosen]


def _index_chunk(facts: ChunkFacts, numbers: range, table: DocumentTable, vocab: _Vocabulary, extra, ellipses):
    """The token segment of documents ``numbers`` (their :class:`ChunkFacts`): the tokens numbered in the
    corpus vocabulary; negations, joined words and marks go into ``table``, document numbers of an ellipsis
    of their own into ``ellipses``. Only the documents with something to record are visited, in order (so
    the tokens interned one by one get their ids in document order)."""
    chunk = facts.chunk
    originals, tokens, first = chunk.originals, chunk.tokens, chunk.first
    ids = vocab.encode(tokens)
    negating = facts.negating
    neg_first = np.searchsorted(chunk.local_doc[negating], np.arange(len(numbers) + 1))
    negations_bytes = (negating - first[chunk.local_doc[negating]]).astype(np.int32).tobytes()
    ellipses.update(numbers.start + local for local in facts.with_ellipsis)
    table.brackets.update((numbers.start + local, b) for local, b in facts.brackets.items())
    negated = np.flatnonzero(np.diff(neg_first)).tolist()
    visited = set(negated).union(facts.references, chunk.joins, facts.scanned, facts.footnoted)
    neg_first = neg_first.tolist()
    pieces: dict[int, tuple] = {}  # local document -> its tokens from the reference tokenizer
    for local in sorted(visited):
        k = numbers.start + local
        if local in facts.references:
            normalized, negations, stops = facts.references[local]
            doc_ids = [vocab.intern(t) for t in normalized.tokens]
            joined = joined_word_alternatives(normalized.tokens, normalized.joins, vocab.intern)
            joined = footnote_alternatives(originals[local], normalized.starts, normalized.ends, doc_ids, joined)
            pieces[local] = (doc_ids, normalized.starts, normalized.ends)
        else:
            lo, hi = int(first[local]), int(first[local + 1])
            joined = {}
            if local in chunk.joins:
                doc_tokens = tokens.slice(lo, hi - lo).to_pylist()
                joined = joined_word_alternatives(doc_tokens, chunk.joins[local], vocab.intern)
            if local in facts.footnoted:  # a reading without the marker
                doc_ids = ids[lo:hi].tolist()
                doc_starts, doc_ends = chunk.starts[lo:hi].tolist(), chunk.ends[lo:hi].tolist()
                joined = footnote_alternatives(originals[local], doc_starts, doc_ends, doc_ids, joined)
            if local in facts.scanned:
                negations, stops = facts.scanned[local]
            else:
                negations, stops = array("i", negations_bytes[4 * neg_first[local] : 4 * neg_first[local + 1]]), None
        if joined:
            table.joined_words[k] = joined
            extra.add(k, pieces[local][0] if local in pieces else ids[first[local] : first[local + 1]].tolist(), joined)
        if negations:
            table.negations[k] = negations
        if stops is not None:
            table.elision_stops[k] = stops
    ids32, starts, ends = ids.astype(np.int32), chunk.starts, chunk.ends
    del chunk, tokens, ids
    if pieces:  # splice the reference documents' tokens in at their place (rare)
        ids32, starts, ends, first = _spliced(first, pieces, ids32, starts, ends)
    return TokenSegment(numbers.start, first, ids32, starts, ends)


def _spliced(first: np.ndarray, pieces: dict[int, tuple], *columns: np.ndarray):
    """``columns`` with the tokens of ``pieces`` (local document -> one list per column) at their documents.

    A document in ``pieces`` has no tokens in ``columns`` (the array rules left it out), so its
    tokens go in before the next document's first token: one ``np.insert`` per column.
    """
    counts = np.diff(first)
    order = sorted(pieces)
    sizes = [len(pieces[local][0]) for local in order]
    for local, size in zip(order, sizes, strict=True):
        counts[local] = size
    new_first = np.zeros(len(first), np.int64)
    np.cumsum(counts, out=new_first[1:])
    at = np.repeat(first[order], sizes) if order else np.empty(0, np.int64)
    out = []
    for c, column in enumerate(columns):
        values = [np.asarray(pieces[local][c], dtype=np.int32) for local in order]
        out.append(np.insert(column, at, np.concatenate(values)) if len(at) else column)
    return (*out, new_first)
