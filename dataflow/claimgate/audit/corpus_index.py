"""The corpus index: every document normalized once, with token postings.

Why this module exists: a quote not in its cited document must still be looked
for in every other document (a real quote cited to the wrong place is
misattributed, not fabricated). Scanning them all per citation is too slow, so
documents are normalized once and their token and token-pair keys are indexed; a
lookup returns a small superset of the documents that can match, which the
matcher then verifies.

What it refuses to do: it never decides a verdict, and it never drops a document
that could match (the candidate set is a superset, so the indexed audit and the
reference scan agree). Tokens: docs/audit-rules.md, "Normalization".
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from claimgate.audit.negation import negation_positions, unchecked_script_positions
from claimgate.audit.normalize import JoinedWord, joined_word_alternatives, normalize_text
from claimgate.audit.postings import Postings
from claimgate.audit.quote_parsing import ELLIPSIS_RE, ParsedQuote, bracket_texts, fold_ellipses


def elision_stops(negations: array, unchecked: array) -> array:
    """Ascending union of negation and unchecked-script positions; ``negations`` itself if there are none."""
    if not unchecked:
        return negations
    return array("i", sorted(set(negations) | set(unchecked)))


class IndexedDocument:
    """One normalized document in compact form (token ids as native int32 bytes).

    ``starts``/``ends``: per token, original character offsets (``ends`` one past
    the last character). ``joined_words``: position -> joined-word readings of the
    document's line-end hyphens. ``negations``: ascending positions of the tokens
    that negate (:func:`claimgate.audit.negation.negation_positions`), found once when the
    index is built. ``elision_stops``: ascending positions an ellipsis or a bracket may not
    hide: ``negations`` plus the tokens in a script with no negator list
    (:func:`claimgate.audit.negation.unchecked_script_positions`); the same array object as
    ``negations`` when there are none. Rules: docs/audit-rules.md, "Negation".
    """

    __slots__ = (
        "doc_id",
        "original",
        "token_bytes",
        "starts",
        "ends",
        "joined_words",
        "negations",
        "elision_stops",
        "has_ellipsis",
        "brackets",
    )

    def __init__(
        self,
        doc_id,
        original,
        token_bytes,
        starts,
        ends,
        joined_words,
        negations,
        has_ellipsis=False,
        brackets=frozenset(),
        elision_stops=None,
    ):
        self.doc_id: str = doc_id
        self.original: str = original
        self.token_bytes: bytes = token_bytes
        self.starts: array = starts
        self.ends: array = ends
        self.joined_words: dict[int, tuple[JoinedWord, ...]] = joined_words
        self.negations: array = negations
        self.elision_stops: array = negations if elision_stops is None else elision_stops
        self.has_ellipsis: bool = has_ellipsis  # an ellipsis of its own (any spelling, see fold_ellipses)
        self.brackets: frozenset[str] = brackets  # its brackets as written (see bracket_texts)

    @property
    def n_tokens(self) -> int:
        return len(self.token_bytes) >> 2

    def __getstate__(self):
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, state):
        for name, value in zip(self.__slots__, state, strict=True):
            setattr(self, name, value)


@dataclass
class CorpusIndex:
    """Every document normalized once, plus token postings for candidate lookup.

    ``doc_ids`` are sorted; document number ``k`` is ``doc_ids[k]``. Postings
    (:class:`claimgate.audit.postings.Postings`): ``token_postings`` keyed by token id,
    ``pair_postings`` by ``id1 << 32 | id2`` for adjacent token pairs, joined
    line-end-hyphen words included in both, each with the document numbers holding
    the key. Picklable (plain lists, dicts, bytes, arrays and numpy arrays).
    """

    doc_ids: list[str]
    docs: Sequence[IndexedDocument]  # a DocumentTable (array build) or a list (reference build)
    vocab: dict[str, int]
    strings: list[str]
    token_postings: Postings
    pair_postings: Postings
    _pos: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._pos = {d: k for k, d in enumerate(self.doc_ids)}

    def token_id(self, token: str) -> int:
        """Id of a normalized token, -1 if no document has it."""
        return self.vocab.get(token, -1)

    _id = token_id  # the name before the module split

    def doc_number(self, doc_id: str) -> int | None:
        """Document number of ``doc_id``, ``None`` if unknown."""
        return self._pos.get(doc_id) if isinstance(doc_id, str) else None

    def __len__(self) -> int:
        return len(self.docs)

    def candidates(self, parsed: ParsedQuote) -> np.ndarray:
        """Document numbers (ascending) that hold every unjoined bigram/token of the quote.

        A superset of the documents where the quote can match: an unjoined quote
        token (one not next to a quote line-end hyphen) must equal a document token
        or a joined document word, and both are in the postings.
        """
        bigrams: list[int] = []
        unigrams: list[int] = []
        for fragment in parsed.fragments:
            for segment in fragment.segments:
                for j in sorted(segment.unjoined_positions):
                    tid = segment.token_ids[j]
                    if tid < 0:
                        return np.empty(0, dtype=np.int32)  # a token no document has
                    unigrams.append(tid)
                    if j + 1 in segment.unjoined_positions:
                        bigrams.append((tid << 32) | segment.token_ids[j + 1])
        if bigrams:
            postings, wanted = self.pair_postings, bigrams
        elif unigrams:
            postings, wanted = self.token_postings, unigrams
        else:
            return np.arange(len(self.docs), dtype=np.int32)
        lo, hi = postings.ranges(np.unique(np.asarray(wanted, dtype=np.int64)))
        docs = postings.docs
        found: np.ndarray | None = None
        for k in np.argsort(hi - lo, kind="stable"):  # rarest key first: the set shrinks fastest
            posting = docs[lo[k] : hi[k]]
            if found is None:
                found = posting
            else:
                at = np.searchsorted(posting, found)
                at[at >= len(posting)] = 0
                found = found[posting[at] == found] if len(posting) else posting
            if len(found) == 0:
                break
        return found


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


def build_corpus_index(documents: Mapping[str, str]) -> CorpusIndex:
    """Normalize every document exactly once and index its tokens.

    ``documents`` maps doc_id -> full text (str). An empty mapping gives an empty
    index (every quote is then ``not_found`` / ``insufficient_quote``). A non-str
    doc_id or text raises ``TypeError`` (fail closed: no silent coercion). Built
    with array operations (:mod:`claimgate.audit.index_build`); equal, document for
    document, to :func:`build_corpus_index_reference` but for the numbering of token ids.
    """
    from claimgate.audit.index_build import build_corpus_index_arrays  # it imports this module

    return build_corpus_index_arrays(documents)


def build_corpus_index_reference(documents: Mapping[str, str]) -> CorpusIndex:
    """:func:`build_corpus_index` one document and one token at a time: the executable spec of the fast build."""
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
        normalized = normalize_text(documents[doc_id])
        ids = [intern(t) for t in normalized.tokens]
        joined = joined_word_alternatives(normalized.tokens, normalized.joins, intern)
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
