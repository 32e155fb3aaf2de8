"""Verbatim-quote matching for the citation audit.

Why this stage exists: a generated answer quotes its sources. A quote is only
evidence if the cited document says exactly that, so every quote is checked
against the cited document, and, when it is not there, against the rest of the
corpus (a real quote cited to the wrong document is *misattributed*, not
fabricated).

What it refuses to do: it never accepts a paraphrase, a near match, a changed
number, a dropped or inserted word, or two half-sentences glued together (a
"frankenquote"). The only licence a quote has is the editor's marks, and even
those are bounded: an ellipsis may not hide a negation, and bracketed editor's
text stands for at most four source tokens.

Matching model (see :mod:`dataflow.normalize` for tokens):

- A quote is split at ellipses (``...``, ``…``, ``. . .``, ``[...]``, ``[…]``) into
  *fragments*; fragments must all occur in one document, in order, without
  overlapping, and (when there are two or more) within ``window_chars`` original
  characters from the first fragment's first character to the last fragment's
  last character.
- Inside a fragment, ``[...]`` text other than an ellipsis is the editor's: it
  matches 0 to 4 source tokens (:data:`BRACKET_MAX_TOKENS`). A bracketed word of at
  most three letters fused to a word (``[T]he``, ``work[s]``) stands for those letters.
- Tokens match whole (``25`` never matches inside ``125``). A line-end hyphen
  between letters may be read either way, in the quote and in the document.
- The source tokens hidden by an ellipsis or by a bracket must not contain a
  negation (:data:`NEGATION_WORDS`, ``n't`` contractions); a bracket that itself
  contains a negation may stand for one.

Placement rule (deterministic): for every fragment, each document position is a
candidate start; at one start the smallest bracket gaps that match are used
(preferring gaps without a negation). Among chains of fragment placements the
lexicographically earliest chain whose elided and bracketed text has no negation
is reported; if every chain hides a negation, the earliest such chain decides the
reason. With several documents, documents are taken in sorted ``doc_id`` order.
Brackets and ellipses can also be the source's own (``J[c]=p``, ``[12]``,
``1, 2, ..., n``): when the editorial reading is not ``found``, the quote is read
again with those marks as the source's punctuation (which must then match
verbatim, contiguously) and the better verdict is kept (see :func:`_audit`).

Known limits (all fail closed, i.e. give ``not_found``): a word broken by a
line-end hyphen in both the quote and the document at *different* points
(``pontif-/icate`` vs ``pontifi-/cate``); two brackets with nothing between them
together stand for at most four tokens; at one start, a fragment keeps only its
smallest bracket gaps, so a chain needing a longer gap at that start is not tried.

Verdicts and reason codes (stable interface):

- ``found`` / ``verbatim_match``: in the cited document.
- ``misattributed`` / ``found_in_other_document``: not in the cited document, in
  the documents listed in ``matched_doc_ids``.
- ``misattributed`` / ``unknown_cited_document``: the cited doc_id is not in the
  corpus; the quote is in the listed documents.
- ``not_found`` / ``no_verbatim_match``: nowhere in the corpus.
- ``not_found`` / ``unknown_cited_document``: cited doc_id unknown, quote nowhere.
- ``not_found`` / ``elision_drops_negation``: the only placements hide a negation
  behind an ellipsis (in the cited document, else in another one).
- ``not_found`` / ``bracket_drops_negation``: the only placements hide a negation
  behind bracketed editor's text that has no negation of its own.
- ``insufficient_quote`` / ``empty_quote``: no token at all (empty, punctuation
  only, not a str).
- ``insufficient_quote`` / ``too_few_tokens``: fewer than ``min_tokens`` tokens.
- ``insufficient_quote`` / ``fragment_too_short``: an ellipsis fragment has fewer
  than ``min_fragment_tokens`` tokens.

Every result is a plain dict with keys in this order: ``verdict``, ``reason``,
``match_kind`` (``exact`` | ``elided`` | ``bracketed`` | ``None``),
``matched_doc_ids`` (``[cited]`` for found, the sorted other documents for
misattributed, ``[]`` otherwise) and ``spans`` (one per fragment, in the cited
document for found and in the first matched document for misattributed; ``[]``
otherwise). A span is ``{doc_id, start, end, start_line, end_line, text}``:
character offsets into the original document with ``text == original[start:end]``
and 1-based inclusive line numbers (:class:`dataflow.textlines.LineIndex`).

Speed: :func:`build_corpus_index` normalizes every document once and builds token
postings (sorted ``numpy`` arrays of token-bigram and token keys -> document
numbers). A lookup intersects the postings of the quote's bigrams to a small
candidate set (a superset of the documents that can match), and only those are
verified, so :func:`audit_quote` returns the same result as the reference full
scan :func:`audit_quote_scan`.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from dataflow.normalize import normalize_text
from dataflow.textlines import LineIndex

#: Most source tokens one bracketed editorial insertion may stand for.
BRACKET_MAX_TOKENS = 4

#: Grammatical negators (a hidden one reverses the meaning of an elided quote). Lexical
#: negatives such as "lack" or "fail" are deliberately not listed: the rule is the
#: issue's list ("not, no, never, none, nor, without, cannot, n't, neither and the like").
NEGATION_WORDS = frozenset(
    {
        "not", "no", "never", "none", "nor", "neither", "nobody", "nothing", "nowhere",
        "without", "cannot",
        # contractions written without an apostrophe
        "cant", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont",
        "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "aint", "mustnt",
        "neednt", "shant", "mightnt",
    }
)  # fmt: skip

_ELLIPSIS_RE = re.compile(r"\[\s*(?:\.\s*){3,}\]|\[\s*…\s*\]|…|\.(?:[ \t\u00a0]?\.){2,}")
_BRACKET_RE = re.compile(r"\[([^\[\]]*)\]")

Unit = tuple[int, int]  # (token id of a joined word, position after its last part)


# --- quote parsing -------------------------------------------------------------------


@dataclass(frozen=True)
class _Segment:
    """Literal quote tokens matched contiguously (ids; -1 = not in the corpus vocabulary)."""

    ids: tuple[int, ...]
    units: dict[int, tuple[Unit, ...]]  # position -> joined-word alternatives (quote line-end hyphens)
    plain: frozenset[int]  # positions not touched by a quote join: they must match a corpus token


@dataclass(frozen=True)
class _Fragment:
    """One ellipsis fragment: segments separated by bracketed editor's text."""

    segments: tuple[_Segment, ...]
    bracket_may_negate: tuple[bool, ...]  # per gap between segments
    n_tokens: int


@dataclass(frozen=True)
class _Quote:
    fragments: tuple[_Fragment, ...]
    has_ellipsis: bool
    has_brackets: bool

    @property
    def match_kind(self) -> str:
        return "elided" if self.has_ellipsis else "bracketed" if self.has_brackets else "exact"


def _is_negation(prev: str | None, tok: str) -> bool:
    """True if ``tok`` negates (``n't`` is split by normalization into ``...n`` + ``t``)."""
    return tok in NEGATION_WORDS or (tok == "t" and prev is not None and prev.endswith("n"))


def _chain_units(tokens: list[str] | tuple[str, ...], joins: Iterable[int], intern) -> dict[int, tuple[Unit, ...]]:
    """Joined-word alternatives: for each join chain, every run of >= 2 parts as one word."""
    joinset = set(joins)
    units: dict[int, tuple[Unit, ...]] = {}
    for p in sorted(joinset):
        alts: list[Unit] = []
        word = tokens[p]
        k = p
        while k in joinset and k + 1 < len(tokens):
            word += tokens[k + 1]
            k += 1
            uid = intern(word)
            if uid >= 0:
                alts.append((uid, k + 1))
        if alts:
            units[p] = tuple(alts)
    return units


#: How brackets are read, in the order tried (see :func:`_audit`): editorial with a
#: fused letter spliced into its word ('[T]he' -> 'The'); editorial with a fused
#: letter as the source's own bracketed token ('J[c]=p' -> 'J c = p'); every
#: bracket the source's own punctuation.
BRACKET_READINGS = ("editorial", "editorial_fused_literal", "literal")
#: How ellipses are read, in the order tried: the editor's (split into fragments),
#: then the source's own punctuation ('1, 2, ..., n' quoted verbatim: one fragment).
ELLIPSIS_READINGS = ("editorial", "literal")


def _parse_quote(
    quote: str, index: CorpusIndex, brackets: str = "editorial", ellipses: str = "editorial"
) -> tuple[_Quote | None, str | None]:
    """Split a quote into fragments and segments; ``(None, reason)`` if not a str.

    ``brackets`` is one of :data:`BRACKET_READINGS` (``literal``: non-ellipsis
    brackets are the source's own punctuation, separators like any bracket in a
    document); ``ellipses`` one of :data:`ELLIPSIS_READINGS` (``literal``: the quote
    is one fragment, ellipses are separators). ``match_kind`` follows the quote's
    marks whatever the reading.
    """
    literal_brackets = brackets == "literal"
    if not isinstance(quote, str):
        return None, "empty_quote"
    has_ellipsis = bool(_ELLIPSIS_RE.search(quote))
    has_brackets = False
    fragments: list[_Fragment] = []
    raws = [_ELLIPSIS_RE.sub(" ", quote)] if ellipses == "literal" else _ELLIPSIS_RE.split(quote)
    for raw in raws:
        pieces: list[str | None] = []  # literal text, or None for an editor's bracket
        bracket_negates: list[bool] = []
        literal = ""
        pos = 0
        for m in _BRACKET_RE.finditer(raw):
            has_brackets = True
            if literal_brackets:
                continue
            content = m.group(1)
            before = raw[m.start() - 1] if m.start() > 0 else ""
            after = raw[m.end()] if m.end() < len(raw) else ""
            fused = content.isalpha() and len(content) <= 3 and (before.isalnum() or after.isalnum())
            literal += raw[pos : m.start()]
            pos = m.end()
            if fused:
                # '[T]he' is 'The'; in the second reading '[c]' is the source's own token
                literal += content if brackets == "editorial" else f" {content} "
                continue
            pieces.append(literal)
            pieces.append(None)
            toks = normalize_text(content).tokens
            bracket_negates.append(any(_is_negation(a, b) for a, b in zip((None, *toks), toks, strict=False)))
            literal = ""
        pieces.append(literal + raw[pos:])
        segments: list[_Segment] = []
        negs: list[bool] = []
        pending_neg: bool | None = None
        n_tokens = 0
        neg_iter = iter(bracket_negates)
        for piece in pieces:
            if piece is None:
                flag = next(neg_iter)
                if segments:  # leading brackets are unanchored: they stand for nothing
                    pending_neg = flag if pending_neg is None else (pending_neg or flag)
                continue
            nt = normalize_text(piece)
            if not nt.tokens:
                continue
            ids = tuple(index._id(t) for t in nt.tokens)
            units = _chain_units(nt.tokens, nt.joins, index._id)
            touched = set()
            for j in nt.joins:
                touched.update((j, j + 1))
            plain = frozenset(range(len(ids))) - touched
            if segments and pending_neg is not None:
                negs.append(pending_neg)
            elif segments:
                negs.append(False)  # adjacent literal pieces (cannot happen, kept total)
            segments.append(_Segment(ids, units, plain))
            pending_neg = None
            n_tokens += len(ids) - len(nt.joins)
        if segments:
            fragments.append(_Fragment(tuple(segments), tuple(negs), n_tokens))
        elif any(p is None for p in pieces):
            fragments.append(_Fragment((), (), 0))  # bracket-only fragment: too short
    return _Quote(tuple(fragments), has_ellipsis, has_brackets), None


def _insufficient(parsed: _Quote | None, reason: str | None, min_tokens: int, min_fragment_tokens: int) -> str | None:
    if parsed is None:
        return reason
    total = sum(f.n_tokens for f in parsed.fragments)
    if total == 0:
        return "empty_quote"
    if total < min_tokens:
        return "too_few_tokens"
    if any(f.n_tokens < min_fragment_tokens for f in parsed.fragments):
        return "fragment_too_short"
    return None


# --- the corpus ---------------------------------------------------------------------


class _Doc:
    """One normalized document in compact form (token ids as native int32 bytes)."""

    __slots__ = ("doc_id", "original", "ids", "starts", "ends", "units")

    def __init__(self, doc_id, original, ids, starts, ends, units):
        self.doc_id: str = doc_id
        self.original: str = original
        self.ids: bytes = ids
        self.starts: array = starts
        self.ends: array = ends
        self.units: dict[int, tuple[Unit, ...]] = units

    def __getstate__(self):
        return (self.doc_id, self.original, self.ids, self.starts, self.ends, self.units)

    def __setstate__(self, state):
        self.doc_id, self.original, self.ids, self.starts, self.ends, self.units = state


@dataclass
class CorpusIndex:
    """Every document normalized once, plus token postings for candidate lookup.

    ``doc_ids`` are sorted; document number ``k`` is ``doc_ids[k]``. Postings are
    sorted int64 keys (``id`` for tokens, ``id1 << 32 | id2`` for adjacent token
    pairs, joined line-end-hyphen words included) with the document numbers holding
    them. Picklable (plain lists, dicts, bytes, arrays and numpy arrays).
    """

    doc_ids: list[str]
    docs: list[_Doc]
    vocab: dict[str, int]
    strings: list[str]
    uni_keys: np.ndarray
    uni_docs: np.ndarray
    bi_keys: np.ndarray
    bi_docs: np.ndarray
    _pos: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        self._pos = {d: k for k, d in enumerate(self.doc_ids)}

    def _id(self, token: str) -> int:
        return self.vocab.get(token, -1)

    def doc_number(self, doc_id: str) -> int | None:
        """Document number of ``doc_id``, ``None`` if unknown."""
        return self._pos.get(doc_id) if isinstance(doc_id, str) else None

    def __len__(self) -> int:
        return len(self.docs)

    def candidates(self, parsed: _Quote) -> np.ndarray:
        """Document numbers (ascending) that hold every plain bigram/token of the quote.

        A superset of the documents where the quote can match: a plain quote token
        (one not next to a quote line-end hyphen) must equal a document token or a
        joined document word, and both are in the postings.
        """
        bigrams: list[int] = []
        unigrams: list[int] = []
        for frag in parsed.fragments:
            for seg in frag.segments:
                for j in sorted(seg.plain):
                    tid = seg.ids[j]
                    if tid < 0:
                        return np.empty(0, dtype=np.int32)  # a token no document has
                    unigrams.append(tid)
                    if j + 1 in seg.plain:
                        bigrams.append((tid << 32) | seg.ids[j + 1])
        if bigrams:
            keys, docs, wanted = self.bi_keys, self.bi_docs, bigrams
        elif unigrams:
            keys, docs, wanted = self.uni_keys, self.uni_docs, unigrams
        else:
            return np.arange(len(self.docs), dtype=np.int32)
        q = np.unique(np.asarray(wanted, dtype=np.int64))
        lo = np.searchsorted(keys, q, "left")
        hi = np.searchsorted(keys, q, "right")
        cand: np.ndarray | None = None
        for k in np.argsort(hi - lo, kind="stable"):
            post = docs[lo[k] : hi[k]]
            if cand is None:
                cand = post
            else:
                at = np.searchsorted(post, cand)
                at[at >= len(post)] = 0
                cand = cand[post[at] == cand] if len(post) else post
            if len(cand) == 0:
                break
        return cand


def _doc_keys(ids: list[int], units: dict[int, tuple[Unit, ...]]) -> tuple[np.ndarray, np.ndarray]:
    """Unique token keys and bigram keys of one document (joined words included)."""
    arr = np.asarray(ids, dtype=np.int64)
    uni = [arr]
    bi = [(arr[:-1] << 32) | arr[1:]] if len(arr) > 1 else []
    if units:
        extra_uni: list[int] = []
        extra_bi: list[int] = []
        n = len(ids)
        for p, alts in units.items():
            for uid, end in alts:
                extra_uni.append(uid)
                if p > 0:
                    extra_bi.append((ids[p - 1] << 32) | uid)
                    for q, qalts in units.items():
                        extra_bi.extend((vid << 32) | uid for vid, vend in qalts if vend == p and q < p)
                if end < n:
                    extra_bi.append((uid << 32) | ids[end])
        uni.append(np.asarray(extra_uni, dtype=np.int64))
        bi.append(np.asarray(extra_bi, dtype=np.int64))
    u = np.unique(np.concatenate(uni))
    b = np.unique(np.concatenate(bi)) if bi else np.empty(0, dtype=np.int64)
    return u, b


def build_corpus_index(documents: Mapping[str, str]) -> CorpusIndex:
    """Normalize every document exactly once and index its tokens.

    ``documents`` maps doc_id -> full text (str). An empty mapping gives an empty
    index (every quote is then ``not_found`` / ``insufficient_quote``). A non-str
    doc_id or text raises ``TypeError`` (fail closed: no silent coercion).
    """
    vocab: dict[str, int] = {}
    strings: list[str] = []

    def intern(tok: str) -> int:
        tid = vocab.get(tok)
        if tid is None:
            tid = vocab[tok] = len(strings)
            strings.append(tok)
        return tid

    doc_ids = sorted(documents)
    docs: list[_Doc] = []
    uni_parts: list[np.ndarray] = []
    uni_nums: list[np.ndarray] = []
    bi_parts: list[np.ndarray] = []
    bi_nums: list[np.ndarray] = []
    for k, doc_id in enumerate(doc_ids):
        if not isinstance(doc_id, str):
            raise TypeError(f"doc_id must be str, got {type(doc_id).__name__}")
        nt = normalize_text(documents[doc_id])
        ids = [intern(t) for t in nt.tokens]
        units = _chain_units(nt.tokens, nt.joins, intern)
        starts, ends = array("i", nt.starts), array("i", nt.ends)
        docs.append(_Doc(doc_id, nt.original, array("i", ids).tobytes(), starts, ends, units))
        u, b = _doc_keys(ids, units)
        uni_parts.append(u)
        uni_nums.append(np.full(len(u), k, dtype=np.int32))
        bi_parts.append(b)
        bi_nums.append(np.full(len(b), k, dtype=np.int32))

    def postings(parts, nums):
        if not parts:
            return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int32)
        keys = np.concatenate(parts)
        nums_ = np.concatenate(nums)
        order = np.argsort(keys, kind="stable")  # stable: document numbers stay ascending per key
        return keys[order], nums_[order]

    uk, ud = postings(uni_parts, uni_nums)
    bk, bd = postings(bi_parts, bi_nums)
    return CorpusIndex(doc_ids, docs, vocab, strings, uk, ud, bk, bd)


# --- matching in one document ------------------------------------------------------


def _find_all(hay: bytes, needle: bytes) -> list[int]:
    """Token positions where the int32 token string ``needle`` occurs in ``hay``."""
    out: list[int] = []
    i = hay.find(needle)
    while i != -1:
        r = i & 3
        if r == 0:
            out.append(i >> 2)
            i = hay.find(needle, i + 4)
        else:
            i = hay.find(needle, i + 4 - r)
    return out


def _align(seg: _Segment, d_ids, d_units: dict[int, tuple[Unit, ...]], p: int, n: int) -> int:
    """Match ``seg`` at document token ``p``; position after the match or -1.

    Each step has at most one way to succeed (equal tokens; several document parts
    joined equal one quote token; several quote parts joined equal one document
    token), so no backtracking is needed.
    """
    q_ids = seg.ids
    q_units = seg.units
    m = len(q_ids)
    j = 0
    while j < m:
        if p < n and d_ids[p] == q_ids[j]:
            p += 1
            j += 1
            continue
        for uid, end in d_units.get(p, ()):
            if uid == q_ids[j]:
                p = end
                j += 1
                break
        else:
            for uid, end in q_units.get(j, ()):
                if p < n and uid == d_ids[p]:
                    j = end
                    p += 1
                    break
            else:
                return -1
    return p


class _Matcher:
    """Matches one parsed quote against documents of one index."""

    def __init__(self, parsed: _Quote, index: CorpusIndex, window_chars: int) -> None:
        self.parsed = parsed
        self.index = index
        self.window = window_chars
        self.needles = [
            array("i", f.segments[0].ids).tobytes() if f.segments and not f.segments[0].units else None
            for f in parsed.fragments
        ]

    def _negated(self, doc: _Doc, d_ids, lo: int, hi: int) -> bool:
        """True if document tokens ``lo..hi-1`` hold a negation (token ``lo-1`` as context)."""
        strings = self.index.strings
        prev = strings[d_ids[lo - 1]] if lo > 0 else None
        for p in range(lo, hi):
            tok = strings[d_ids[p]]
            if _is_negation(prev, tok):
                return True
            prev = tok
        return False

    def _occurrences(self, k: int, doc: _Doc, d_ids, n: int) -> list[tuple[int, int, bool]]:
        """``(start, end, negated)`` placements of fragment ``k``, one per start, ascending."""
        frag = self.parsed.fragments[k]
        first = frag.segments[0]
        needle = self.needles[k]
        if needle is not None and not doc.units:
            starts = _find_all(doc.ids, needle)
            exact = len(frag.segments) == 1
        else:
            exact = False
            if 0 in first.plain:
                starts = sorted(set(_find_all(doc.ids, array("i", first.ids[:1]).tobytes())) | set(doc.units))
            else:
                starts = range(n)
        out: list[tuple[int, int, bool]] = []
        for s in starts:
            if exact:
                out.append((s, s + len(first.ids), False))
                continue
            e = _align(first, d_ids, doc.units, s, n)
            if e < 0:
                continue
            best = self._rest(frag, 1, e, doc, d_ids, n, allow_neg=False)
            negated = False
            if best is None:
                best = self._rest(frag, 1, e, doc, d_ids, n, allow_neg=True)
                negated = True
            if best is not None:
                out.append((s, best, negated))
        return out

    def _rest(self, frag: _Fragment, i: int, p: int, doc: _Doc, d_ids, n: int, allow_neg: bool) -> int | None:
        """End of the smallest-gap match of segments ``i..`` after a bracket at ``p``."""
        if i == len(frag.segments):
            return p
        seg = frag.segments[i]
        for gap in range(BRACKET_MAX_TOKENS + 1):
            q = p + gap
            if q > n:
                break
            e = _align(seg, d_ids, doc.units, q, n)
            if e < 0:
                continue
            if not allow_neg and gap and not frag.bracket_may_negate[i - 1] and self._negated(doc, d_ids, p, q):
                continue
            end = self._rest(frag, i + 1, e, doc, d_ids, n, allow_neg)
            if end is not None:
                return end
        return None

    def match(self, doc: _Doc) -> tuple[str | None, list[tuple[int, int]]]:
        """``("clean" | negation reason | None, [(start_tok, end_tok) per fragment])``."""
        d_ids = memoryview(doc.ids).cast("i")
        n = len(d_ids)
        occs = []
        for k in range(len(self.parsed.fragments)):
            o = self._occurrences(k, doc, d_ids, n)
            if not o:
                return None, []
            occs.append(o)
        chain = self._chain(occs, doc, d_ids, allow_neg=False)
        if chain is not None:
            return "clean", chain
        chain = self._chain(occs, doc, d_ids, allow_neg=True)
        if chain is None:
            return None, []
        placed = {(s, e): neg for o in occs for s, e, neg in o}
        if any(placed[c] for c in chain):
            return "bracket_drops_negation", chain
        return "elision_drops_negation", chain

    def _chain(self, occs, doc: _Doc, d_ids, allow_neg: bool) -> list[tuple[int, int]] | None:
        """Lexicographically earliest in-order, non-overlapping, in-window chain."""
        starts, ends = doc.starts, doc.ends
        last = len(occs) - 1
        window = self.window
        for s0, e0, neg0 in occs[0]:
            if neg0 and not allow_neg:
                continue
            if last == 0:
                return [(s0, e0)]
            origin = starts[s0]
            if ends[e0 - 1] - origin > window:
                continue
            failed: set[tuple[int, int]] = set()

            def rec(i: int, prev_end: int, origin=origin, failed=failed):
                for idx, (s, e, neg) in enumerate(occs[i]):
                    if s < prev_end or (neg and not allow_neg):
                        continue
                    if starts[s] - origin > window:
                        break
                    if ends[e - 1] - origin > window or (i, idx) in failed:
                        continue
                    if not allow_neg and self._negated(doc, d_ids, prev_end, s):
                        continue
                    if i == last:
                        return [(s, e)]
                    rest = rec(i + 1, e)
                    if rest is not None:
                        return [(s, e), *rest]
                    failed.add((i, idx))
                return None

            rest = rec(1, e0)
            if rest is not None:
                return [(s0, e0), *rest]
        return None


# --- results -----------------------------------------------------------------------


def _result(verdict: str, reason: str, match_kind: str | None, matched: list[str], spans: list[dict]) -> dict:
    return {
        "verdict": verdict,
        "reason": reason,
        "match_kind": match_kind,
        "matched_doc_ids": matched,
        "spans": spans,
    }


def _spans(doc: _Doc, chain: list[tuple[int, int]]) -> list[dict]:
    lines = LineIndex(doc.original)
    out = []
    for s, e in chain:
        start, end = doc.starts[s], doc.ends[e - 1]
        start_line, end_line = lines.span_lines(start, end)
        out.append(
            {
                "doc_id": doc.doc_id,
                "start": start,
                "end": end,
                "start_line": start_line,
                "end_line": end_line,
                "text": doc.original[start:end],
            }
        )
    return out


_RANK = {"found": 2, "misattributed": 1}


def _audit(quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, others) -> dict:
    """Editorial reading of the marks first; if it is not found, the other readings.

    Sources have brackets and ellipses of their own (``J[c]=p``, ``[12]``,
    ``1, 2, ..., n``); read as the source's punctuation they must match verbatim
    (the literal ellipsis reading is one contiguous fragment), so those readings
    loosen nothing. Readings (ellipsis reading outer, bracket reading inner, each in
    declared order; only for marks the quote has) are tried until one is ``found``;
    otherwise the first reading with the best verdict wins (found > misattributed >
    the editorial result, which keeps its reason, e.g. ``elision_drops_negation``).
    """
    args = (quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, others)
    result = _audit_reading(*args, "editorial", "editorial")
    if result["verdict"] == "found" or not isinstance(quote, str):
        return result
    bracket_readings = BRACKET_READINGS if _BRACKET_RE.search(quote) else BRACKET_READINGS[:1]
    ellipsis_readings = ELLIPSIS_READINGS if _ELLIPSIS_RE.search(quote) else ELLIPSIS_READINGS[:1]
    for ellipses in ellipsis_readings:
        for brackets in bracket_readings:
            if (ellipses, brackets) == ("editorial", "editorial"):
                continue
            other = _audit_reading(*args, brackets, ellipses)
            if _RANK.get(other["verdict"], 0) > _RANK.get(result["verdict"], 0):
                result = other
            if result["verdict"] == "found":
                return result
    return result


def _audit_reading(
    quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, others, brackets, ellipses
) -> dict:
    """One reading of the quote's marks: cited document, then ``others(parsed)``."""
    parsed, reason = _parse_quote(quote, index, brackets, ellipses)
    short = _insufficient(parsed, reason, min_tokens, min_fragment_tokens)
    if short is not None:
        return _result("insufficient_quote", short, None, [], [])
    matcher = _Matcher(parsed, index, window_chars)
    kind = parsed.match_kind
    cited_k = index.doc_number(cited_doc_id)
    negation: str | None = None
    if cited_k is not None:
        status, chain = matcher.match(index.docs[cited_k])
        if status == "clean":
            return _result("found", "verbatim_match", kind, [cited_doc_id], _spans(index.docs[cited_k], chain))
        negation = status
    matched: list[int] = []
    first_chain: list[tuple[int, int]] = []
    other_negation: str | None = None
    for k in others(parsed):
        if k == cited_k:
            continue
        status, chain = matcher.match(index.docs[k])
        if status == "clean":
            if not matched:
                first_chain = chain
            matched.append(k)
        elif status is not None and other_negation is None:
            other_negation = status
    if matched:
        reason = "unknown_cited_document" if cited_k is None else "found_in_other_document"
        ids = [index.doc_ids[k] for k in matched]
        return _result("misattributed", reason, kind, ids, _spans(index.docs[matched[0]], first_chain))
    if cited_k is None:
        return _result("not_found", "unknown_cited_document", None, [], [])
    return _result("not_found", negation or other_negation or "no_verbatim_match", None, [], [])


def audit_quote(
    quote: str,
    cited_doc_id: str,
    index: CorpusIndex,
    *,
    min_tokens: int = 4,
    min_fragment_tokens: int = 3,
    window_chars: int = 2000,
) -> dict:
    """Audit one quote against its cited document, then (indexed) the rest of the corpus.

    ``min_tokens``: fewest normalized tokens a quote needs (all fragments together);
    ``min_fragment_tokens``: fewest per ellipsis fragment; ``window_chars``: largest
    span, in original document characters, from the first fragment's first character
    to the last fragment's last character (only for quotes with an ellipsis).

    Returns ``{"verdict", "reason", "match_kind", "matched_doc_ids", "spans"}`` (see
    the module docstring for the codes). Fails closed: an empty, non-str or
    punctuation-only quote is ``insufficient_quote``/``empty_quote``; an unknown
    ``cited_doc_id`` is never ``found``. Rules: the citation-audit issue text,
    restated in the module docstring and in :mod:`dataflow.normalize`.
    """

    def others(parsed: _Quote) -> Iterable[int]:
        return index.candidates(parsed).tolist()

    return _audit(quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, others)


def audit_quote_scan(
    quote: str,
    cited_doc_id: str,
    index: CorpusIndex,
    *,
    min_tokens: int = 4,
    min_fragment_tokens: int = 3,
    window_chars: int = 2000,
) -> dict:
    """Reference audit: the cited document, then every other document one by one.

    Same arguments, units and result as :func:`audit_quote` (which must agree with
    it); no postings are used, only the normalized documents of ``index``.
    """

    def others(parsed: _Quote) -> Iterable[int]:
        return range(len(index.docs))

    return _audit(quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, others)
