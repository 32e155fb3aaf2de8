"""The corpus index built one document and one token at a time: the executable specification.

Why this module exists: the production build (:func:`claimgate.audit.index.build.build_corpus_index`)
works on chunks of documents with array operations; this module says in plain
Python what it must give, and tests/audit/index/test_index_build.py holds the two
equal document for document (but for the numbering of token ids). Rules:
docs/audit-rules.md, "Normalization" and "Speed".
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping

import numpy as np

from claimgate.audit.index.postings import Postings, joined_word_keys
from claimgate.audit.index.types import CorpusIndex, IndexedDocument, elision_stops
from claimgate.audit.text.marks import ELLIPSIS_RE, bracket_texts, fold_ellipses, footnote_alternatives
from claimgate.audit.text.negation import negation_positions, unchecked_script_positions
from claimgate.audit.text.reference import JoinedWord, joined_word_alternatives, normalize_text_reference


def _doc_keys(ids: list[int], joined_words: dict[int, tuple[JoinedWord, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """Unique token keys and bigram keys of one document (joined words included)."""
    arr = np.asarray(ids, dtype=np.int64)
    uni = [arr]
    bi = [(arr[:-1] << 32) | arr[1:]] if len(arr) > 1 else []
    if joined_words:
        extra_uni, extra_bi = joined_word_keys(ids, joined_words)
        uni.append(np.asarray(extra_uni, dtype=np.int64))
        bi.append(np.asarray(extra_bi, dtype=np.int64))
    u = np.unique(np.concatenate(uni))
    b = np.unique(np.concatenate(bi)) if bi else np.empty(0, dtype=np.int64)
    return u, b


def build_corpus_index_reference(documents: Mapping[str, str]) -> CorpusIndex:
    """:func:`claimgate.audit.index.build.build_corpus_index` one document and one token at a time.

    The executable specification of the production build, held equal to it document for
    document by tests/audit/index/test_index_build.py (see the module docstring).
    """
    vocab: dict[str, int] = {}
    strings: list[str] = []

    def intern(token: str) -> int:
        tid = vocab.get(token)
        if tid is None:
            tid = vocab[token] = len(strings)
            strings.append(token)
        return tid

    doc_ids = sorted(documents)
    docs: list[IndexedDocument] = []
    uni_parts: list[np.ndarray] = []
    uni_nums: list[np.ndarray] = []
    bi_parts: list[np.ndarray] = []
    bi_nums: list[np.ndarray] = []
    for k, doc_id in enumerate(doc_ids):
        if not isinstance(doc_id, str):
            raise TypeError(f"doc_id must be str, got {type(doc_id).__name__}")
        normalized = normalize_text_reference(documents[doc_id])
        ids = [intern(t) for t in normalized.tokens]
        joined = joined_word_alternatives(normalized.tokens, normalized.joins, intern)
        joined = footnote_alternatives(normalized.original, normalized.starts, normalized.ends, ids, joined)
        negations = negation_positions(normalized)
        docs.append(
            IndexedDocument(
                doc_id,
                normalized.original,
                array("i", ids).tobytes(),
                array("i", normalized.starts),
                array("i", normalized.ends),
                joined,
                negations,
                bool(ELLIPSIS_RE.search(fold_ellipses(normalized.original))),
                bracket_texts(normalized.original),
                elision_stops(negations, unchecked_script_positions(normalized)),
            )
        )
        u, b = _doc_keys(ids, joined)
        uni_parts.append(u)
        uni_nums.append(np.full(len(u), k, dtype=np.int32))
        bi_parts.append(b)
        bi_nums.append(np.full(len(b), k, dtype=np.int32))

    def postings(parts, nums) -> Postings:
        if not parts:
            return Postings.empty()
        keys = np.concatenate(parts)
        doc_numbers = np.concatenate(nums)
        order = np.argsort(keys, kind="stable")  # stable: document numbers stay ascending per key
        return Postings.from_sorted(keys[order], doc_numbers[order])

    return CorpusIndex(doc_ids, docs, vocab, strings, postings(uni_parts, uni_nums), postings(bi_parts, bi_nums))
