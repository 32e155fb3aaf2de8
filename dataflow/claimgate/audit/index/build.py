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

from claimgate.audit.index.document_table import DocumentTable, TokenSegment
from claimgate.audit.index.postings import Postings, joined_word_keys, postings_in_passes
from claimgate.audit.index.types import CorpusIndex, elision_stops
from claimgate.audit.text.marks import (
    bracket_texts,
    ellipsis_starts,
    fold_ellipses,
    footnote_alternatives,
    has_footnote_marker,
)
from claimgate.audit.text.negation import (
    _APOSTROPHES,
    NEGATION_TOKENS,
    is_none_literal,
    needs_token_scan,
    negation_positions,
    unchecked_script_positions,
)
from claimgate.audit.text.normalize import NormalizedChunk, normalized_chunk

__all__ = ["CHUNK_CHARS", "NormalizedChunk", "build_corpus_index", "normalized_chunk"]
from claimgate.audit.text.reference import (
    joined_word_alternatives,
    normalize_text_reference,
)

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


def _chunks(doc_ids: list[str], documents: Mapping[str, str]):
    """Runs of consecutive document numbers holding about :data:`CHUNK_CHARS` characters."""
    start, size = 0, 0
    for k, doc_id in enumerate(doc_ids):
        size += len(documents[doc_id]) + 1
        if size >= CHUNK_CHARS:
            yield range(start, k + 1)
            start, size = k + 1, 0
    if start < len(doc_ids):
        yield range(start, len(doc_ids))


def _chunk_marks(originals: list[str]) -> tuple[set[int], dict[int, frozenset[str]]]:
    """``(documents with an ellipsis of their own, brackets by document)`` of a chunk, by local number.

    One search per alternative of the ellipsis pattern over the chunk's folded texts joined
    by NUL (no match holds a NUL, so none reaches across documents, even where a text holds
    a NUL itself); a match's document comes from the texts' lengths.
    """
    brackets = {local: bracket_texts(t) for local, t in enumerate(originals) if "[" in t}
    folded = [fold_ellipses(t) for t in originals]
    starts = ellipsis_starts("\x00".join(folded))  # each alternative scanned from its first character (marks.py)
    if not starts:
        return set(), brackets
    lengths = np.fromiter(map(len, folded), dtype=np.int64, count=len(folded))
    bases = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])
    return set((np.searchsorted(bases, starts, "right") - 1).tolist()), brackets


def _document_tokens_reference(original: str, vocab: _Vocabulary):
    """A text the array rules do not cover, through the reference tokenizer.

    Returns ``(ids, starts, ends, joined_words, negations, elision_stops)``
    (``elision_stops`` is ``negations`` itself when there is no unlisted-script token).
    """
    normalized = normalize_text_reference(original)
    ids = [vocab.intern(t) for t in normalized.tokens]
    joined = joined_word_alternatives(normalized.tokens, normalized.joins, vocab.intern)
    joined = footnote_alternatives(original, normalized.starts, normalized.ends, ids, joined)
    negations = negation_positions(normalized)
    stops = elision_stops(negations, unchecked_script_positions(normalized))
    return ids, normalized.starts, normalized.ends, joined, negations, stops


def _token_scan(original: str, negations: array) -> tuple[array, array]:
    """``(negations, elision_stops)`` of a document with a negator prefix or an unlisted script.

    The array rules find listed negators by token id only; such a document (rare) is
    tokenized again by the reference normalizer, whose tokens equal the array build's.
    """
    normalized = normalize_text_reference(original)
    found = negation_positions(normalized)
    return found, elision_stops(found, unchecked_script_positions(normalized))


def _negations(ids, starts_orig, doc_of_token, first_token, originals, vocab: _Vocabulary) -> np.ndarray:
    """Token positions (chunk-wide) that negate, by :func:`negation.negation_positions`'s rules.

    Only the rules for scripts the array rules cover: listed words, the ``t`` of
    ``n't`` and the ``n`` of ``n'`` (no-space and Korean negators send a text to the reference).
    """
    listed = np.fromiter((vocab.ids[t] for t in NEGATION_TOKENS if t in vocab.ids), dtype=np.int64)
    found = np.isin(ids, listed)
    none = vocab.ids.get("none")
    if none is not None:  # the code literal 'None' is no negation (docs/audit-rules.md, "Negation")
        for p in np.flatnonzero(ids == none).tolist():
            k = doc_of_token[p]
            found[p] = not is_none_literal(originals[k], int(starts_orig[0][p]), int(starts_orig[1][p]))
    for letter in ("t", "n"):
        tid = vocab.ids.get(letter)
        if tid is None:
            continue
        for p in np.flatnonzero(ids == tid).tolist():
            k = doc_of_token[p]
            if letter == "t":
                hit = p > first_token[k] and vocab.strings[ids[p - 1]].endswith("n")
            else:
                end, original = int(starts_orig[1][p]), originals[k]
                hit = end < len(original) and original[end] in _APOSTROPHES
            found[p] |= hit
    return np.flatnonzero(found)


def build_corpus_index(documents: Mapping[str, str]) -> CorpusIndex:
    """The corpus index of ``documents`` (doc_id -> text), equal to the reference build's.

    Same contract as :func:`claimgate.audit.index.reference.build_corpus_index_reference`: an empty
    mapping gives an empty index; a non-str doc_id or text raises ``TypeError``.
    Documents are tokenized a chunk at a time into a :class:`DocumentTable`; the
    postings are then built from its token arrays (:func:`postings_in_passes`), so no
    per-chunk copy of the keys is kept while the corpus is read.
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
    segments = [_index_chunk(numbers, table, vocab, extra, ellipses) for numbers in _chunks(doc_ids, documents)]
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


# The per-document assembly stays in one function (~60 lines): it shares the chunk-wide arrays.
def _index_chunk(numbers: range, table: DocumentTable, vocab: _Vocabulary, extra: _ExtraKeys, ellipses: set[int]):
    """The token segment of documents ``numbers``; their negations, joined words and marks go into ``table``."""
    chunk = normalized_chunk(table.originals[numbers.start : numbers.stop])
    originals, tokens, local_doc, first, reference = (
        chunk.originals, chunk.tokens, chunk.local_doc, chunk.first, chunk.reference
    )  # fmt: skip
    ids = vocab.encode(tokens)
    negating = _negations(ids, (chunk.starts, chunk.ends), local_doc, first, originals, vocab)
    neg_first = np.searchsorted(local_doc[negating], np.arange(len(numbers) + 1)).tolist()
    negations_bytes = (negating - first[local_doc[negating]]).astype(np.int32).tobytes()
    with_ellipsis, brackets = _chunk_marks(originals)
    ellipses.update(numbers.start + local for local in with_ellipsis)
    table.brackets.update((numbers.start + local, b) for local, b in brackets.items())
    pieces: dict[int, tuple] = {}  # local document -> its tokens from the reference tokenizer
    for local, k in enumerate(numbers):
        if local in reference:
            ref_ids, ref_starts, ref_ends, joined_words, negations, stops = _document_tokens_reference(
                originals[local], vocab
            )
            pieces[local] = (ref_ids, ref_starts, ref_ends)
            if joined_words:
                table.joined_words[k] = joined_words
                extra.add(k, ref_ids, joined_words)
        else:
            lo, hi = int(first[local]), int(first[local + 1])
            joined_words = {}
            if local in chunk.joins:
                doc_tokens = tokens.slice(lo, hi - lo).to_pylist()
                joined_words = joined_word_alternatives(doc_tokens, chunk.joins[local], vocab.intern)
            if has_footnote_marker(originals[local]):  # a reading without the marker
                doc_ids = ids[lo:hi].tolist()
                doc_starts, doc_ends = chunk.starts[lo:hi].tolist(), chunk.ends[lo:hi].tolist()
                joined_words = footnote_alternatives(originals[local], doc_starts, doc_ends, doc_ids, joined_words)
            if joined_words:
                table.joined_words[k] = joined_words
                extra.add(k, ids[lo:hi].tolist(), joined_words)
            negations = array("i", negations_bytes[4 * neg_first[local] : 4 * neg_first[local + 1]])
            stops = negations
            if needs_token_scan(originals[local]):
                negations, stops = _token_scan(originals[local], negations)
        if negations:
            table.negations[k] = negations
        if stops is not negations:
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
