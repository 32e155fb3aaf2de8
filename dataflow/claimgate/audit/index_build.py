"""Building the corpus index with array operations, a few megabytes of text at a time.

Why this module exists: the index is built once per corpus and its cost is
dominated by normalizing every document. Here documents are folded one by one
(:func:`claimgate.audit.normalize._normalized_string`, a no-op but ``lower()`` for
ASCII) and then tokenized, interned and posted a chunk of documents at a time:
the chunk's folded texts are joined by NUL (a separator that no rule reads across)
and handed to the array rules of :mod:`claimgate.audit.fast_normalize`; token ids
come from one pyarrow dictionary encoding per chunk; postings from numpy sorts.
Peak memory grows with the chunk, not with the corpus, beyond the index itself.

What it refuses to do: change any value. A document the array rules do not cover
goes through the reference path (:func:`claimgate.audit.normalize.normalize_text`)
unchanged, and the result equals
:func:`claimgate.audit.corpus_index.build_corpus_index_reference` document for
document (tests/audit/test_index_build.py); only the numbering of token ids may differ.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from claimgate.audit.corpus_index import CorpusIndex, IndexedDocument, _doc_keys, elision_stops, joined_word_keys
from claimgate.audit.fast_normalize import (
    _tokens,
    code_points,
    fallback_positions,
    folded_with_maps,
    line_end_hyphens,
    token_array,
)
from claimgate.audit.negation import (
    _APOSTROPHES,
    NEGATION_TOKENS,
    needs_token_scan,
    negation_positions,
    unchecked_script_positions,
)
from claimgate.audit.normalize import (
    joined_word_alternatives,
    normalize_text,
)
from claimgate.audit.postings import Postings
from claimgate.audit.quote_parsing import ELLIPSIS_RE, bracket_texts, fold_ellipses

#: Characters of folded text per chunk: bounds the build's working memory (~40 bytes per character).
CHUNK_CHARS = 1 << 20


class _Vocabulary:
    """Token strings and their ids, in first-seen order."""

    def __init__(self) -> None:
        self.ids: dict[str, int] = {}
        self.strings: list[str] = []

    def intern(self, token: str) -> int:
        tid = self.ids.get(token)
        if tid is None:
            tid = self.ids[token] = len(self.strings)
            self.strings.append(token)
        return tid

    def encode(self, tokens: pa.Array) -> np.ndarray:
        """int64 ids of ``tokens``: one dictionary encoding, then one lookup per distinct token."""
        if not len(tokens):
            return np.empty(0, dtype=np.int64)
        encoded = tokens.dictionary_encode()
        distinct = encoded.dictionary.to_pylist()
        ids = np.fromiter(map(self.intern, distinct), dtype=np.int64, count=len(distinct))
        return ids[encoded.indices.to_numpy(zero_copy_only=False)]


def _sorted_pairs(keys: np.ndarray, docs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(keys, docs)`` (int64 bigram keys ``id1 << 32 | id2``, int64 document numbers) sorted by key, then document.

    One sort of packed uint64 values when both ids and the document number fit in
    63 bits together (vocabularies under about two million tokens), else a lexsort.
    """
    if len(keys) == 0:
        return keys, docs.astype(np.int32)
    id1, id2 = keys >> 32, keys & 0xFFFFFFFF
    id_bits = int(max(id1.max(), id2.max())).bit_length()
    doc_low = int(docs.min())
    doc_bits = max(1, int(docs.max() - doc_low).bit_length())
    if 2 * id_bits + doc_bits > 63:
        order = np.lexsort((docs, keys))
        return keys[order], docs[order].astype(np.int32)
    packed = (id1 << (id_bits + doc_bits)) | (id2 << doc_bits) | (docs - doc_low)
    packed.sort()
    doc_mask = (1 << doc_bits) - 1
    id_mask = (1 << id_bits) - 1
    keys = ((packed >> (id_bits + doc_bits)) << 32) | ((packed >> doc_bits) & id_mask)
    return keys, ((packed & doc_mask) + doc_low).astype(np.int32)


def _unique_sorted(values: np.ndarray) -> np.ndarray:
    """``values`` sorted in place, without repeats."""
    values.sort()
    return values[np.concatenate([[True], values[1:] != values[:-1]])] if len(values) else values


class _Postings:
    """Unigram and bigram keys with their document numbers, gathered chunk by chunk in compact form.

    Unigrams as ``id << 32 | document``; bigrams packed as one uint64-sized value
    ``id1, id2, document`` (``id_bits``, ``id_bits``, ``doc_bits``) so that one sort
    orders them by key then document; should an id outgrow ``id_bits`` (a vocabulary
    over about a million tokens per 2^20 documents) they are kept as key/document pairs.
    """

    def __init__(self, n_docs: int) -> None:
        self.doc_bits = max(1, (n_docs - 1).bit_length())
        self.id_bits = (63 - self.doc_bits) // 2
        self.uni: list[np.ndarray] = []
        self.bi: list[np.ndarray] = []
        self.wide: tuple[list[np.ndarray], list[np.ndarray]] | None = None

    def add(self, uni_keys, uni_docs, bi_keys, bi_docs) -> None:
        self.uni.append(_unique_sorted((np.asarray(uni_keys, np.int64) << 32) | np.asarray(uni_docs, np.int64)))
        bi_keys = np.asarray(bi_keys, np.int64)
        bi_docs = np.asarray(bi_docs, np.int64)
        if len(bi_keys) == 0:
            return
        id1, id2 = bi_keys >> 32, bi_keys & 0xFFFFFFFF
        if self.wide is None and max(int(id1.max()), int(id2.max())) < (1 << self.id_bits):
            self.bi.append(_unique_sorted((id1 << (self.id_bits + self.doc_bits)) | (id2 << self.doc_bits) | bi_docs))
            return
        if self.wide is None:  # an id outgrew the packing: unpack what is there
            self.wide = ([], [])
            for packed in self.bi:
                keys, docs = self._unpacked(packed)
                self.wide[0].append(keys)
                self.wide[1].append(docs)
            self.bi = []
        keys, docs = _sorted_pairs(bi_keys, bi_docs)
        fresh = np.ones(len(keys), dtype=bool)
        fresh[1:] = (keys[1:] != keys[:-1]) | (docs[1:] != docs[:-1])
        self.wide[0].append(keys[fresh])
        self.wide[1].append(docs[fresh])

    def _unpacked(self, packed: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``(keys, docs)`` of packed bigrams; ``packed`` becomes the keys, in blocks (no full-size temporary)."""
        docs = np.empty(len(packed), dtype=np.int32)
        doc_mask, id_mask, shift = (1 << self.doc_bits) - 1, (1 << self.id_bits) - 1, self.id_bits + self.doc_bits
        for lo in range(0, len(packed), 1 << 20):
            block = packed[lo : lo + (1 << 20)]
            docs[lo : lo + len(block)] = block & doc_mask
            block[:] = ((block >> shift) << 32) | ((block >> self.doc_bits) & id_mask)
        return packed, docs

    def arrays(self) -> tuple[Postings, Postings]:
        """``(token postings, pair postings)``; the gathered chunks are released as they are read."""
        uni = _drained(self.uni)
        uni.sort()
        uni_docs = np.empty(len(uni), np.int32)
        for lo in range(0, len(uni), 1 << 20):  # in blocks: no full-size int64 temporary
            block = uni[lo : lo + (1 << 20)]
            uni_docs[lo : lo + len(block)] = block & 0xFFFFFFFF
            block >>= 32  # in place: the keys
        tokens = Postings.from_sorted(uni, uni_docs)
        del uni, uni_docs
        if self.wide is not None:
            bk, bd = _drained(self.wide[0]), _drained(self.wide[1], np.int32)
            self.wide = None
            order = np.argsort(bk, kind="stable")  # stable: chunks are in document order
            return tokens, Postings.from_sorted(bk[order], bd[order])
        packed = _drained(self.bi)
        packed.sort()  # key, then document: the packing's order
        return tokens, Postings.from_sorted(*self._unpacked(packed))


def _drained(parts: list[np.ndarray], dtype=np.int64) -> np.ndarray:
    """``parts`` joined into one array; ``parts`` is emptied as it is copied (no second full-size copy)."""
    out = np.empty(sum(len(part) for part in parts), dtype)
    at = 0
    parts.reverse()
    while parts:
        part = parts.pop()
        out[at : at + len(part)] = part
        at += len(part)
        del part
    return out


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


def _document_marks(original: str) -> tuple[bool, frozenset[str]]:
    """``(has_ellipsis, brackets)`` of a document (see quote_parsing)."""
    return bool(ELLIPSIS_RE.search(fold_ellipses(original))), bracket_texts(original)


def _chunk_marks(originals: list[str]) -> tuple[set[int], dict[int, frozenset[str]]]:
    """``(documents with an ellipsis of their own, brackets by document)`` of a chunk, by local number.

    One ellipsis search over the chunk's texts joined by NUL (no ellipsis or
    bracket spelling holds a NUL); per document when a text holds a NUL itself.
    """
    brackets = {local: bracket_texts(t) for local, t in enumerate(originals) if "[" in t}
    if any("\x00" in t for t in originals):
        return {local for local, t in enumerate(originals) if _document_marks(t)[0]}, brackets
    folded = fold_ellipses("\x00".join(originals))
    with_ellipsis: set[int] = set()
    nuls = None
    for m in ELLIPSIS_RE.finditer(folded):
        if nuls is None:
            nuls = (
                np.flatnonzero(code_points(folded) == 0)
                if not folded.isascii()
                else np.flatnonzero(np.frombuffer(folded.encode("ascii"), dtype=np.uint8) == 0)
            )
        with_ellipsis.add(int(np.searchsorted(nuls, m.start())))
    return with_ellipsis, brackets


def _reference_document(doc_id: str, original: str, vocab: _Vocabulary):
    """One document through the reference tokenizer (a text the array rules do not cover), with its keys."""
    normalized = normalize_text(original)
    ids = [vocab.intern(t) for t in normalized.tokens]
    joined = joined_word_alternatives(normalized.tokens, normalized.joins, vocab.intern)
    u, b = _doc_keys(ids, joined)
    negations = negation_positions(normalized)
    document = IndexedDocument(
        doc_id,
        original,
        array("i", ids).tobytes(),
        array("i", normalized.starts),
        array("i", normalized.ends),
        joined,
        negations,
        *_document_marks(original),
        elision_stops=elision_stops(negations, unchecked_script_positions(normalized)),
    )
    return document, u, b


def _token_scan(original: str, negations: array) -> tuple[array, array]:
    """``(negations, elision_stops)`` of a document with a negator prefix or an unlisted script.

    The array rules find listed negators by token id only; such a document (rare) is
    tokenized again by the reference normalizer, whose tokens equal the array build's.
    """
    normalized = normalize_text(original)
    found = negation_positions(normalized)
    return found, elision_stops(found, unchecked_script_positions(normalized))


def _negations(ids, starts_orig, doc_of_token, first_token, originals, vocab: _Vocabulary) -> np.ndarray:
    """Token positions (chunk-wide) that negate, by :func:`negation.negation_positions`'s rules.

    Only the rules for scripts the array rules cover: listed words, the ``t`` of
    ``n't`` and the ``n`` of ``n'`` (no-space and Korean negators send a text to the reference).
    """
    listed = np.fromiter((vocab.ids[t] for t in NEGATION_TOKENS if t in vocab.ids), dtype=np.int64)
    found = np.isin(ids, listed)
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


def build_corpus_index_arrays(documents: Mapping[str, str]) -> CorpusIndex:
    """The corpus index of ``documents`` (doc_id -> text), equal to the reference build's.

    Same contract as :func:`claimgate.audit.corpus_index.build_corpus_index`: an empty
    mapping gives an empty index; a non-str doc_id or text raises ``TypeError``.
    """
    doc_ids = sorted(documents)
    for doc_id in doc_ids:
        if not isinstance(doc_id, str):
            raise TypeError(f"doc_id must be str, got {type(doc_id).__name__}")
        if not isinstance(documents[doc_id], str):
            raise TypeError(f"normalize_text expects str, got {type(documents[doc_id]).__name__}")
    vocab = _Vocabulary()
    postings = _Postings(len(doc_ids))
    docs: list[IndexedDocument] = []
    for numbers in _chunks(doc_ids, documents):
        docs.extend(_index_chunk(numbers, doc_ids, documents, vocab, postings))
    return CorpusIndex(doc_ids, docs, vocab.ids, vocab.strings, *postings.arrays())


@dataclass
class NormalizedChunk:
    """A run of documents normalized together: every token with its document and original offsets.

    ``tokens`` (pyarrow strings) in document order; ``local_doc`` (int64) the document
    of each token within the chunk; ``first`` (int64, one more than documents) the
    first token of each; ``starts``/``ends`` (int32) original character offsets;
    ``joins``: local document -> its line-end-hyphen joins (token positions in it);
    ``reference``: local documents the array rules do not cover (no tokens here).
    """

    originals: list[str]
    tokens: pa.Array
    local_doc: np.ndarray
    first: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    joins: dict[int, list[int]]
    reference: set[int]


def normalized_chunk(originals: list[str]) -> NormalizedChunk:
    """Normalize a run of documents at once (see the module docstring); equal to ``normalize_text`` of each."""
    folded = [(t.lower(), None, None) if t.isascii() else folded_with_maps(t) for t in originals]
    norms = [f[0] for f in folded]
    joined_text = "\x00".join(norms)  # NUL: a separator no rule reads across (no line break, letter or digit)
    lengths = np.fromiter(map(len, norms), dtype=np.int64, count=len(norms))
    bases = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])
    cps = code_points(joined_text).copy()
    bad = fallback_positions(cps)
    reference = set(np.unique(np.searchsorted(bases, bad, "right") - 1).tolist()) if len(bad) else set()
    for local in reference:  # blank those documents: the reference path tokenizes them
        cps[bases[local] : bases[local] + lengths[local]] = 0
    starts, ends, kept = _tokens(cps)
    tokens = token_array(cps, starts, ends, kept)
    del kept
    local_doc = np.searchsorted(bases, starts, "right") - 1
    counts = np.bincount(local_doc, minlength=len(originals))
    first = np.concatenate([[0], np.cumsum(counts)])
    orig_starts = starts - bases[local_doc]
    orig_ends = ends - bases[local_doc]
    for local, (_, src_start, src_end) in enumerate(folded):
        if src_start is not None and local not in reference and counts[local]:
            span = slice(first[local], first[local + 1])
            orig_ends[span] = src_end[orig_ends[span] - 1]
            orig_starts[span] = src_start[orig_starts[span]]
    joins: dict[int, list[int]] = {}
    if "-" in joined_text or "\u2010" in joined_text:
        for m in line_end_hyphens(joined_text, np.flatnonzero((cps == 45) | (cps == 0x2010)).tolist()):
            left = int(np.searchsorted(ends, m.start()))
            if left + 1 < len(ends) and ends[left] == m.start() and starts[left + 1] == m.end():
                local = int(local_doc[left])
                if local not in reference:
                    joins.setdefault(local, []).append(left - int(first[local]))
    return NormalizedChunk(
        originals, tokens, local_doc, first, orig_starts.astype(np.int32), orig_ends.astype(np.int32), joins, reference
    )


# The per-document assembly stays in one function (~60 lines): it shares the chunk-wide arrays.
def _index_chunk(numbers: range, doc_ids, documents, vocab: _Vocabulary, postings: _Postings):
    chunk = normalized_chunk([documents[doc_ids[k]] for k in numbers])
    originals, tokens, local_doc, first, reference = (
        chunk.originals, chunk.tokens, chunk.local_doc, chunk.first, chunk.reference
    )  # fmt: skip
    ids = vocab.encode(tokens)
    negating = _negations(ids, (chunk.starts, chunk.ends), local_doc, first, originals, vocab)
    neg_first = np.searchsorted(local_doc[negating], np.arange(len(numbers) + 1)).tolist()
    negations_bytes = (negating - first[local_doc[negating]]).astype(np.int32).tobytes()
    ids_bytes = ids.astype(np.int32).tobytes()
    starts_bytes, ends_bytes = chunk.starts.tobytes(), chunk.ends.tobytes()
    first_list = first.tolist()
    marks = _chunk_marks(originals)

    same_doc = local_doc[:-1] == local_doc[1:]
    global_doc = local_doc + numbers.start
    bi_keys = [((ids[:-1] << 32) | ids[1:])[same_doc]]
    bi_docs = [global_doc[:-1][same_doc]]
    uni_keys, uni_docs = [ids], [global_doc]
    out: list[IndexedDocument] = []
    for local, k in enumerate(numbers):
        if local in reference:
            document, u, b = _reference_document(doc_ids[k], originals[local], vocab)
            out.append(document)
            uni_keys.append(u)
            uni_docs.append(np.full(len(u), k))
            bi_keys.append(b)
            bi_docs.append(np.full(len(b), k))
            continue
        lo, hi = first_list[local], first_list[local + 1]
        joined_words = {}
        if local in chunk.joins:
            doc_tokens = tokens.slice(lo, hi - lo).to_pylist()
            joined_words = joined_word_alternatives(doc_tokens, chunk.joins[local], vocab.intern)
            if joined_words:
                u, b = joined_word_keys(ids[lo:hi].tolist(), joined_words)
                uni_keys.append(u)
                uni_docs.append(np.full(len(u), k))
                bi_keys.append(b)
                bi_docs.append(np.full(len(b), k))
        negations = array("i", negations_bytes[4 * neg_first[local] : 4 * neg_first[local + 1]])
        stops = None
        if needs_token_scan(originals[local]):
            negations, stops = _token_scan(originals[local], negations)
        out.append(
            IndexedDocument(
                doc_ids[k],
                originals[local],
                ids_bytes[4 * lo : 4 * hi],
                array("i", starts_bytes[4 * lo : 4 * hi]),
                array("i", ends_bytes[4 * lo : 4 * hi]),
                joined_words,
                negations,
                local in marks[0],
                marks[1].get(local, frozenset()),
                elision_stops=stops,
            )
        )
    postings.add(np.concatenate(uni_keys), np.concatenate(uni_docs), np.concatenate(bi_keys), np.concatenate(bi_docs))
    return out
