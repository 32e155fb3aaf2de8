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
text stands for at most four source tokens, may not change a number and may not
add or remove a negation.

Matching model (see :mod:`claimgate.audit.normalize` for tokens):

- A quote is split at ellipses (``...``, ``…``, ``. . .``, ``[...]``, ``[…]``) into
  *fragments*; fragments must all occur in one document, in order, without
  overlapping, and (when there are two or more) within ``window_chars`` original
  characters from the first fragment's first character to the last fragment's
  last character.
- Inside a fragment, ``[...]`` text other than an ellipsis is the editor's: it
  matches 0 to 4 source tokens (:data:`BRACKET_MAX_TOKENS`). A bracketed word of at
  most three letters fused to a word (``[T]he``, ``work[s]``) stands for those letters.
  A bracket before a fragment's first or after its last literal word is unanchored
  and stands for no source token.
- Tokens match whole (``25`` never matches inside ``125``). A line-end hyphen
  between letters may be read either way, in the quote and in the document.
- An ellipsis must not hide a negation (:data:`NEGATION_WORDS`, ``n't``
  contractions): not in the source text between two fragments, and, for a
  *leading* ellipsis, not in the up to :data:`EDGE_ELISION_TOKENS` (3) source tokens
  just before the first fragment (not crossing the document start), for a
  *trailing* one, not in the up to 3 tokens just after the last fragment
  (``... patients had serious adverse events`` against ``No patients had serious
  adverse events`` is ``elision_drops_negation``).
- A bracket must not change what the source says in the two ways a checker can
  see: every number in it (a token with a digit, sign included: ``[+2.2]`` is
  ``2.2``, not ``-2.2``) must be among the source tokens it stands for
  (``bracket_changes_number``); it must hold a negation exactly when those source
  tokens do (``bracket_inserts_negation``, ``bracket_drops_negation``). So an
  unanchored bracket with a number or a negation (``[No] patients ...``) is always
  refused: it stands for nothing. Any other word in a bracket is accepted by
  design, including a substitution that reverses meaning (``[safe]`` for
  ``unsafe``): bracketed text is the editor's own words, not a quotation, and
  whether the quote then supports the claim is the judge's question, not this gate's.

Placement rule (deterministic): for every fragment, each document position is a
candidate start; at one start the smallest bracket gaps that match are used
(preferring gaps whose brackets break no rule above). Among chains of fragment
placements the lexicographically earliest chain that breaks no rule (no bracket
violation, no negation elided between fragments or beyond an edge ellipsis) is
reported; if every chain breaks one, the earliest chain of all decides the reason
(a bracket reason, in the order number, inserted negation, dropped negation;
otherwise ``elision_drops_negation``). With several documents, documents are taken
in sorted ``doc_id`` order. Brackets and ellipses can also be the source's own
(``J[c]=p``, ``[12]``, ``1, 2, ..., n``): when the editorial reading is not
``found``, the quote is read again with those marks as the source's punctuation
(which must then match verbatim, contiguously; a leading or trailing ellipsis
stays the editor's, with its negation check) and the better verdict is kept (see
:func:`_audit`).

Cost (no exponential case): the smallest-gap search is a depth-first search over
gap choices with every ``(segment, document position)`` solved once, so one fragment
costs at most segments x document tokens x (BRACKET_MAX_TOKENS + 1) alignments; the
chain is a dynamic programme over placements (smallest reachable chain end per
placement, range minima by sparse table), O(p log p) for p placements. On top, a
hard bound: one reading of a quote may spend at most ``max_steps``
(:data:`MATCH_STEP_LIMIT`, 2,000,000; a step is one alignment or one placement) on
one document. Over it, the match fails closed: the cited document gives
``not_found`` / ``match_too_complex`` (never ``found``, never ``misattributed``);
another document counts as not matching (so :func:`audit_quote` and
:func:`audit_quote_scan`, which look at different other documents, still agree).
Honest quotes on the project's benchmarks use at most a few hundred steps.

Known limits (all fail closed, i.e. give ``not_found``): a word broken by a
line-end hyphen in both the quote and the document at *different* points
(``pontif-/icate`` vs ``pontifi-/cate``); two brackets with nothing between them
together stand for at most four tokens; at one start, a fragment keeps only its
smallest bracket gaps, so a chain needing a longer gap at that start is not tried;
an unanchored bracket with a number that the source has just outside the quote
(``[In 2019] the model ...``) is refused; the edge-ellipsis rule also refuses an
elided "not only" (``... but also improves recall``).

Verdicts and reason codes (stable interface):

- ``found`` / ``verbatim_match``: in the cited document.
- ``misattributed`` / ``found_in_other_document``: not in the cited document, in
  the documents listed in ``matched_doc_ids``.
- ``misattributed`` / ``unknown_cited_document``: the cited doc_id is not in the
  corpus; the quote is in the listed documents.
- ``not_found`` / ``no_verbatim_match``: nowhere in the corpus.
- ``not_found`` / ``unknown_cited_document``: cited doc_id unknown, quote nowhere.
- ``not_found`` / ``elision_drops_negation``: the only placements hide a negation
  behind an ellipsis, between fragments or beyond a leading/trailing one (in the
  cited document, else in another one).
- ``not_found`` / ``bracket_drops_negation``: the only placements hide a negation
  behind bracketed editor's text that has no negation of its own.
- ``not_found`` / ``bracket_inserts_negation``: the only placements put a
  bracketed negation where the source tokens it stands for have none.
- ``not_found`` / ``bracket_changes_number``: the only placements put a bracketed
  number that is not among the source tokens the bracket stands for.
- ``not_found`` / ``match_too_complex``: matching the cited document would take
  more than ``max_steps`` steps (undecided, so refused).
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
and 1-based inclusive line numbers (:class:`claimgate.textlines.LineIndex`).

Speed: :func:`build_corpus_index` normalizes every document once, records its
negation positions and builds token postings (sorted ``numpy`` arrays of
token-bigram and token keys -> document numbers). A lookup intersects the postings
of the quote's bigrams to a small candidate set (a superset of the documents that
can match), and only those are verified, so :func:`audit_quote` returns the same
result as the reference full scan :func:`audit_quote_scan`.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from claimgate.audit.normalize import normalize_text
from claimgate.textlines import LineIndex

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
_ALNUM_RE = re.compile(r"[^\W_]")

Unit = tuple[int, int]  # (token id of a joined word, position after its last part)


# --- quote parsing -------------------------------------------------------------------


@dataclass(frozen=True)
class _Segment:
    """Literal quote tokens matched contiguously (ids; -1 = not in the corpus vocabulary)."""

    ids: tuple[int, ...]
    units: dict[int, tuple[Unit, ...]]  # position -> joined-word alternatives (quote line-end hyphens)
    plain: frozenset[int]  # positions not touched by a quote join: they must match a corpus token
    needle: bytes  # ``ids`` as native int32 bytes (compared with a document's token bytes)


@dataclass(frozen=True)
class _Bracket:
    """Bracketed editor's text between two segments (adjacent brackets merged)."""

    negates: bool  # holds a negation of its own
    numbers: tuple[int, ...]  # ids of its tokens with a digit, sign included (-1: in no document)


@dataclass(frozen=True)
class _Fragment:
    """One ellipsis fragment: segments separated by bracketed editor's text."""

    segments: tuple[_Segment, ...]
    brackets: tuple[_Bracket, ...]  # per gap between segments
    fixed: int  # violation bits of leading/trailing brackets, which stand for no source token
    n_tokens: int


@dataclass(frozen=True)
class _Quote:
    fragments: tuple[_Fragment, ...]
    has_ellipsis: bool
    has_brackets: bool
    lead_elided: bool  # an ellipsis before the first fragment
    trail_elided: bool  # an ellipsis after the last fragment

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
#: A leading or trailing ellipsis is the editor's in both readings (it elides the
#: source text beyond the quote's edge, see :func:`_edge_ellipses`).
ELLIPSIS_READINGS = ("editorial", "literal")


def _bracket(content: str, index: CorpusIndex) -> _Bracket:
    """The editor's bracket ``[content]``: does it negate, which numbers does it state."""
    toks = normalize_text(content).tokens
    negates = any(_is_negation(a, b) for a, b in zip((None, *toks), toks, strict=False))
    numbers = tuple(index._id(t) for t in toks if any(c.isdigit() for c in t))
    return _Bracket(negates, numbers)


def _merge(a: _Bracket | None, b: _Bracket) -> _Bracket:
    """Brackets with nothing between them read as one."""
    return b if a is None else _Bracket(a.negates or b.negates, a.numbers + b.numbers)


def _unanchored(b: _Bracket) -> int:
    """Violation bits of a bracket that stands for no source token (at a fragment's edge)."""
    return (_CHANGES_NUMBER if b.numbers else 0) | (_INSERTS_NEGATION if b.negates else 0)


def _edge_ellipses(quote: str) -> tuple[bool, bool]:
    """``(leading, trailing)``: does an ellipsis come before the quote's first / after its last token?"""
    parts = _ELLIPSIS_RE.split(quote)
    if len(parts) < 2:
        return False, False

    def empty(raw: str) -> bool:
        if _BRACKET_RE.search(raw) or _ALNUM_RE.search(raw):
            return False  # a letter or digit always gives a token
        return not normalize_text(raw).tokens

    return empty(parts[0]), empty(parts[-1])


def _fused(raw: str, m: re.Match) -> bool:
    """Is the bracket ``m`` of ``raw`` a word of at most three letters fused to a word (``[T]he``)?"""
    content = m.group(1)
    before = raw[m.start() - 1] if m.start() > 0 else ""
    after = raw[m.end()] if m.end() < len(raw) else ""
    return content.isalpha() and len(content) <= 3 and (before.isalnum() or after.isalnum())


def _has_fused(quote: str) -> bool:
    """Does the quote have a fused bracket (the same in both ellipsis readings: an ellipsis is no letter)?"""
    return any(_fused(raw, m) for raw in _ELLIPSIS_RE.split(quote) for m in _BRACKET_RE.finditer(raw))


def _parse_quote(
    quote: str, index: CorpusIndex, brackets: str = "editorial", ellipses: str = "editorial"
) -> tuple[_Quote | None, str | None]:
    """Split a quote into fragments and segments; ``(None, reason)`` if not a str.

    ``brackets`` is one of :data:`BRACKET_READINGS` (``literal``: non-ellipsis
    brackets are the source's own punctuation, separators like any bracket in a
    document); ``ellipses`` one of :data:`ELLIPSIS_READINGS` (``literal``: the quote
    is one fragment, inner ellipses are separators). ``match_kind`` follows the
    quote's marks whatever the reading.
    """
    literal_brackets = brackets == "literal"
    if not isinstance(quote, str):
        return None, "empty_quote"
    has_ellipsis = bool(_ELLIPSIS_RE.search(quote))
    has_brackets = False
    fragments: list[_Fragment] = []
    raws = [_ELLIPSIS_RE.sub(" ", quote)] if ellipses == "literal" else _ELLIPSIS_RE.split(quote)
    empty_raws: list[bool] = []  # per raw: no token and no bracket (an edge ellipsis if first or last)
    for raw in raws:
        pieces: list[str | _Bracket] = []  # literal text, or an editor's bracket
        literal = ""
        pos = 0
        for m in _BRACKET_RE.finditer(raw):
            has_brackets = True
            if literal_brackets:
                continue
            content = m.group(1)
            literal += raw[pos : m.start()]
            pos = m.end()
            if _fused(raw, m):
                # '[T]he' is 'The'; in the second reading '[c]' is the source's own token
                literal += content if brackets == "editorial" else f" {content} "
                continue
            pieces.append(literal)
            pieces.append(_bracket(content, index))
            literal = ""
        pieces.append(literal + raw[pos:])
        segments: list[_Segment] = []
        gaps: list[_Bracket] = []
        pending: _Bracket | None = None
        fixed = 0
        n_tokens = 0
        for piece in pieces:
            if isinstance(piece, _Bracket):
                if segments:
                    pending = _merge(pending, piece)
                else:  # a leading bracket is unanchored: it stands for nothing
                    fixed |= _unanchored(piece)
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
            if segments:
                # adjacent literal pieces cannot happen (kept total): an empty bracket
                gaps.append(pending if pending is not None else _Bracket(False, ()))
            segments.append(_Segment(ids, units, plain, array("i", ids).tobytes()))
            pending = None
            n_tokens += len(ids) - len(nt.joins)
        if pending is not None:  # a trailing bracket is unanchored too
            fixed |= _unanchored(pending)
        if segments:
            fragments.append(_Fragment(tuple(segments), tuple(gaps), fixed, n_tokens))
        elif any(isinstance(p, _Bracket) for p in pieces):
            fragments.append(_Fragment((), (), fixed, 0))  # bracket-only fragment: too short
        empty_raws.append(not segments and not _BRACKET_RE.search(raw))
    if ellipses == "literal":
        lead_elided, trail_elided = _edge_ellipses(quote) if has_ellipsis else (False, False)
    else:
        lead_elided = len(raws) > 1 and empty_raws[0]
        trail_elided = len(raws) > 1 and empty_raws[-1]
    return _Quote(tuple(fragments), has_ellipsis, has_brackets, lead_elided, trail_elided), None


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
    """One normalized document in compact form (token ids as native int32 bytes).

    ``negs``: ascending positions of the tokens that negate (:func:`_is_negation`,
    the previous token as context), found once when the index is built.
    """

    __slots__ = ("doc_id", "original", "ids", "starts", "ends", "units", "negs")

    def __init__(self, doc_id, original, ids, starts, ends, units, negs):
        self.doc_id: str = doc_id
        self.original: str = original
        self.ids: bytes = ids
        self.starts: array = starts
        self.ends: array = ends
        self.units: dict[int, tuple[Unit, ...]] = units
        self.negs: array = negs

    def __getstate__(self):
        return (self.doc_id, self.original, self.ids, self.starts, self.ends, self.units, self.negs)

    def __setstate__(self, state):
        self.doc_id, self.original, self.ids, self.starts, self.ends, self.units, self.negs = state


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
        toks = nt.tokens
        negs = array("i")
        if not NEGATION_WORDS.isdisjoint(toks) or "t" in toks:
            negs.extend(p for p, t in enumerate(toks) if _is_negation(toks[p - 1] if p else None, t))
        docs.append(_Doc(doc_id, nt.original, array("i", ids).tobytes(), starts, ends, units, negs))
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

#: Most steps (one step: one alignment of a segment at a document position, or one
#: fragment placement) that one reading of a quote may spend on one document. Matching
#: is polynomial (at most segments x document tokens x (BRACKET_MAX_TOKENS + 1)
#: alignments per fragment); this is the hard bound on top. A document that needs more
#: is not matched: ``not_found`` / ``match_too_complex`` if it is the cited one.
MATCH_STEP_LIMIT = 2_000_000

# Violation bits of a placement (0: clean). Checked per bracket gap, see _Run.gap_bits.
_DROPS_NEGATION = 1  # the bracket covers a source negation and has none of its own
_INSERTS_NEGATION = 2  # the bracket has a negation, the covered source tokens none
_CHANGES_NUMBER = 4  # a number of the bracket is not among the covered source tokens
#: Reason for a placement's violation bits, first match wins.
_BRACKET_REASONS = (
    (_CHANGES_NUMBER, "bracket_changes_number"),
    (_INSERTS_NEGATION, "bracket_inserts_negation"),
    (_DROPS_NEGATION, "bracket_drops_negation"),
)
#: Source tokens checked for a negation next to a leading or trailing ellipsis.
EDGE_ELISION_TOKENS = 3

_MISS = object()  # memo miss
_INF = int(np.iinfo(np.int64).max)
#: Largest sum over adjacent fragments of placement-count products solved with lists.
_SMALL_CHAIN_WORK = 4096


class _TooComplex(Exception):
    """The step budget of one reading of a quote on one document is spent."""


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


def _range_min(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """``min(values[lo[k]:hi[k]])`` for every ``k`` (``_INF`` for an empty range); a sparse table."""
    out = np.full(len(lo), _INF, dtype=np.int64)
    length = hi - lo
    some = length > 0
    if not some.any():
        return out
    levels = [values]  # levels[j][x] = min(values[x : x + 2**j])
    while 2 ** len(levels) <= len(values):
        prev, half = levels[-1], 2 ** (len(levels) - 1)
        levels.append(np.minimum(prev[:-half], prev[half:]))
    level = np.zeros(len(lo), dtype=np.int64)
    level[some] = np.frexp(length[some])[1] - 1  # floor(log2(length)), exact for integers
    for j in np.unique(level[some]).tolist():
        sel = some & (level == j)
        table = levels[j]
        out[sel] = np.minimum(table[lo[sel]], table[hi[sel] - (1 << j)])
    return out


class _Run:
    """One reading of a quote matched against one document: budget, memos, negations."""

    def __init__(self, matcher: _Matcher, doc: _Doc) -> None:
        self.index = matcher.index
        self.doc = doc
        self.n = len(doc.ids) >> 2
        self.budget = matcher.max_steps
        self.lead_elided = matcher.parsed.lead_elided
        self.trail_elided = matcher.parsed.trail_elided

    def spend(self, steps: int = 1) -> None:
        self.budget -= steps
        if self.budget < 0:
            raise _TooComplex

    def negated(self, lo: int, hi: int) -> bool:
        """True if document tokens ``lo..hi-1`` hold a negation."""
        negs = self.doc.negs
        at = bisect_left(negs, lo)
        return at < len(negs) and negs[at] < hi

    def align(self, seg: _Segment, p: int) -> int:
        """:func:`_align`, one step; a byte comparison when neither side has joined words."""
        self.spend()
        if seg.units or self.doc.units:
            return _align(seg, memoryview(self.doc.ids).cast("i"), self.doc.units, p, self.n)
        end = p + len(seg.ids)
        return end if end <= self.n and self.doc.ids[4 * p : 4 * end] == seg.needle else -1

    def gap_bits(self, bracket: _Bracket, p: int, q: int) -> int:
        """Violation bits of ``bracket`` standing for document tokens ``p..q-1``."""
        bits = 0
        covered_negation = self.negated(p, q)
        if covered_negation and not bracket.negates:
            bits |= _DROPS_NEGATION
        if bracket.negates and not covered_negation:
            bits |= _INSERTS_NEGATION
        if bracket.numbers:
            covered = set(memoryview(self.doc.ids)[4 * p : 4 * q].cast("i"))
            if not covered.issuperset(bracket.numbers):
                bits |= _CHANGES_NUMBER
        return bits

    def rest(self, frag: _Fragment, memo: dict, p0: int, strict: bool) -> tuple[int, int] | None:
        """``(end, bits)`` of the smallest-gap match of segments ``1..`` after a bracket at ``p0``.

        Gap sequences are tried in lexicographic order (smallest gaps first), as a
        depth-first search over the gaps would, but each ``(segment, position)`` is
        solved once (``memo``), so a fragment costs at most segments x positions x
        (BRACKET_MAX_TOKENS + 1) alignments. ``strict``: only gaps whose bracket breaks
        no rule (bits 0); otherwise any gap, with the bits of the gaps used.
        """
        segs, brackets, n = frag.segments, frag.brackets, self.n
        last = len(segs) - 1
        if last == 0:
            return p0, 0
        hit = memo.get((1, p0), _MISS)
        if hit is not _MISS:
            return hit
        stack = [[1, p0, 0, 0]]  # [segment, bracket start, next gap to try, bits of the gap explored]
        done = _MISS  # answer of the frame that just finished
        while stack:
            frame = stack[-1]
            i, p = frame[0], frame[1]
            if done is not _MISS:
                if done is not None:  # the child matched: so does this frame
                    done = (done[0], done[1] | frame[3])
                    memo[(i, p)] = done
                    stack.pop()
                    continue
                done = _MISS  # the child failed: try the next gap
            answer = None
            pushed = False
            while frame[2] <= BRACKET_MAX_TOKENS:
                q = p + frame[2]
                frame[2] += 1
                if q > n:
                    break
                e = self.align(segs[i], q)
                if e < 0:
                    continue
                bits = self.gap_bits(brackets[i - 1], p, q)
                if strict and bits:
                    continue
                sub = (e, 0) if i == last else memo.get((i + 1, e), _MISS)
                if sub is _MISS:
                    frame[3] = bits
                    stack.append([i + 1, e, 0, 0])
                    pushed = True
                    break
                if sub is not None:
                    answer = (sub[0], sub[1] | bits)
                    break
            if pushed:
                continue
            memo[(i, p)] = answer
            stack.pop()
            done = answer
        return memo[(1, p0)]

    def placements(self, frag: _Fragment, may_break: bool) -> tuple[list[int], list[int], list[int]]:
        """Starts (ascending), ends and violation bits of ``frag``'s placements, one per start.

        At one start the smallest bracket gaps breaking no rule are used, else the
        smallest gaps at all (with their bits). ``may_break``: some gap can break a
        rule here (otherwise the second search would repeat the first).
        """
        if not frag.segments:
            return [], [], []
        first = frag.segments[0]
        doc = self.doc
        exact = not first.units and not doc.units
        if exact:
            starts: Iterable[int] = _find_all(doc.ids, first.needle)
        elif 0 in first.plain:
            starts = sorted(set(_find_all(doc.ids, first.needle[:4])) | set(doc.units))
        else:
            starts = range(self.n)
        self.spend(len(starts))  # one step per start, its first alignment included
        width = len(first.ids)
        if exact and len(frag.segments) == 1:
            return starts, [s + width for s in starts], [frag.fixed] * len(starts)
        d_ids = memoryview(doc.ids).cast("i")
        strict_memo: dict = {}
        loose_memo: dict = {}
        out_s: list[int] = []
        out_e: list[int] = []
        out_b: list[int] = []
        for s in starts:
            e = s + width if exact else _align(first, d_ids, doc.units, s, self.n)
            if e < 0:
                continue
            best = self.rest(frag, strict_memo, e, strict=True)
            if best is None and may_break:
                best = self.rest(frag, loose_memo, e, strict=False)
            if best is not None:
                out_s.append(s)
                out_e.append(best[0])
                out_b.append(best[1] | frag.fixed)
        return out_s, out_e, out_b

    def chain(self, occs, strict: bool, window: int) -> list[tuple[int, int, int]] | None:
        """Lexicographically earliest in-order, non-overlapping, in-window chain of placements.

        ``strict``: placements without violation bits and no negation elided. A
        dynamic programme from the last fragment back computes, per placement, the
        smallest end (in original characters) of any chain completing it; the
        earliest chain is then read forwards, taking at each fragment the first
        placement whose best completion fits the window. Small inputs are solved
        with lists, large ones with numpy arrays (same programme).
        """
        oks = [[not (strict and b) for b in bits] for _, _, bits in occs]
        if strict and self.doc.negs:
            # an edge ellipsis may not hide a negation just beyond the quote's edge
            if self.lead_elided:
                oks[0] = [
                    ok and not self.negated(max(0, s - EDGE_ELISION_TOKENS), s) for s, ok in zip(occs[0][0], oks[0])
                ]
            if self.trail_elided:
                n = self.n
                oks[-1] = [
                    ok and not self.negated(e, min(n, e + EDGE_ELISION_TOKENS)) for e, ok in zip(occs[-1][1], oks[-1])
                ]
        if len(occs) == 1:
            s, e, b = occs[0]
            j = next((j for j, ok in enumerate(oks[0]) if ok), None)
            return None if j is None else [(s[j], e[j], b[j])]
        self.spend(sum(len(s) for s, _, _ in occs))  # the programme is linear-logarithmic in placements
        work = sum(len(a[0]) * len(b[0]) for a, b in zip(occs, occs[1:], strict=False))
        if work <= _SMALL_CHAIN_WORK:
            return self._chain_lists(occs, oks, strict, window)
        return self._chain_arrays(occs, oks, strict, window)

    def _chain_lists(self, occs, oks, strict: bool, window: int) -> list[tuple[int, int, int]] | None:
        starts_c, ends_c, n = self.doc.starts, self.doc.ends, self.n
        negs = self.doc.negs if strict else ()

        def successors(end: int, next_starts: list[int]) -> tuple[int, int]:
            lo = bisect_left(next_starts, end)
            if not negs:
                return lo, len(next_starts)
            at = bisect_left(negs, end)
            return lo, bisect_right(next_starts, negs[at] if at < len(negs) else n)

        best: list[list[int]] = [[] for _ in occs]  # smallest chain end per placement
        best[-1] = [ends_c[e - 1] if ok else _INF for e, ok in zip(occs[-1][1], oks[-1], strict=True)]
        for k in range(len(occs) - 2, -1, -1):
            after, next_starts = best[k + 1], occs[k + 1][0]
            row = []
            for e, ok in zip(occs[k][1], oks[k], strict=True):
                lo, hi = successors(e, next_starts) if ok else (0, 0)
                row.append(min(after[lo:hi], default=_INF))
            best[k] = row
        s, e, b = occs[0]
        j = next((j for j, end in enumerate(best[0]) if end - starts_c[s[j]] <= window), None)
        if j is None:
            return None
        limit = starts_c[s[j]] + window
        out = [(s[j], e[j], b[j])]
        for k in range(1, len(occs)):
            s, e, b = occs[k]
            lo, hi = successors(out[-1][1], s)
            j = next(j for j in range(lo, hi) if best[k][j] <= limit)
            out.append((s[j], e[j], b[j]))
        return out

    def _successor_arrays(self, ends: np.ndarray, next_starts: np.ndarray, strict: bool):
        """Per placement end, the index range ``[lo, hi)`` of next placements that may follow.

        In order and not overlapping (start >= end); ``strict``: no negation elided
        between them (start <= the first negation at or after the end).
        """
        lo = np.searchsorted(next_starts, ends, "left")
        negs = np.frombuffer(self.doc.negs, dtype=np.intc) if strict else None
        if negs is None or not len(negs):
            return lo, np.full(len(ends), len(next_starts), dtype=np.int64)
        at = np.searchsorted(negs, ends, "left")
        first_neg = np.where(at < len(negs), negs[np.minimum(at, len(negs) - 1)], self.n)
        return lo, np.searchsorted(next_starts, first_neg, "right")

    def _chain_arrays(self, occs, oks, strict: bool, window: int) -> list[tuple[int, int, int]] | None:
        starts_c = np.frombuffer(self.doc.starts, dtype=np.intc)
        ends_c = np.frombuffer(self.doc.ends, dtype=np.intc)
        frags = [(np.asarray(s, dtype=np.int64), np.asarray(e, dtype=np.int64)) for s, e, _ in occs]
        ok_arrays = [np.asarray(ok, dtype=bool) for ok in oks]
        best = [np.empty(0, dtype=np.int64)] * len(frags)  # smallest chain end per placement
        best[-1] = np.where(ok_arrays[-1], ends_c[frags[-1][1] - 1].astype(np.int64), _INF)
        for k in range(len(frags) - 2, -1, -1):
            lo, hi = self._successor_arrays(frags[k][1], frags[k + 1][0], strict)
            best[k] = np.where(ok_arrays[k], _range_min(best[k + 1], lo, hi), _INF)
        s = frags[0][0]
        fits = np.flatnonzero(best[0] - starts_c[s] <= window)
        if not len(fits):
            return None
        j = int(fits[0])
        limit = int(starts_c[s[j]]) + window
        out = [(occs[0][0][j], occs[0][1][j], occs[0][2][j])]
        for k in range(1, len(frags)):
            lo, hi = self._successor_arrays(np.asarray([out[-1][1]]), frags[k][0], strict)
            lo_k, hi_k = int(lo[0]), int(hi[0])
            j = lo_k + int(np.argmax(best[k][lo_k:hi_k] <= limit))
            out.append((occs[k][0][j], occs[k][1][j], occs[k][2][j]))
        return out


class _Matcher:
    """Matches one parsed quote (one reading of its marks) against documents of one index."""

    def __init__(self, parsed: _Quote, index: CorpusIndex, window_chars: int, max_steps: int) -> None:
        self.parsed = parsed
        self.index = index
        self.window = window_chars
        self.max_steps = max_steps
        # a plain quote token that no document has: no document can match
        segments = [seg for frag in parsed.fragments for seg in frag.segments]
        self.hopeless = any(-1 in seg.ids and any(seg.ids[j] < 0 for j in seg.plain) for seg in segments)
        # segments without joined words: in a document without any, each occurs as its bytes
        self.needles = [seg.needle for seg in segments if not seg.units]
        # per fragment: can a bracket break a rule without a negation in the document?
        self.brackets_bite = [any(b.negates or b.numbers for b in frag.brackets) for frag in parsed.fragments]

    def match(self, doc: _Doc) -> tuple[str | None, list[tuple[int, int]]]:
        """``("clean" | reason | None, [(start_tok, end_tok) per fragment])``.

        The reason is a bracket reason, ``elision_drops_negation`` or
        ``match_too_complex`` (the step budget is spent; no chain).
        """
        if self.hopeless:
            return None, []
        if not doc.units:
            ids = doc.ids
            for needle in self.needles:
                if needle not in ids:
                    return None, []  # a necessary condition, checked in C
        run = _Run(self, doc)
        try:
            return self._match(run)
        except _TooComplex:
            return "match_too_complex", []

    def _match(self, run: _Run) -> tuple[str | None, list[tuple[int, int]]]:
        occs = []
        for frag, bites in zip(self.parsed.fragments, self.brackets_bite, strict=True):
            may_break = len(frag.segments) > 1 and (bites or bool(run.doc.negs))
            occ = run.placements(frag, may_break)
            if not occ[0]:
                return None, []
            occs.append(occ)
        chain = run.chain(occs, True, self.window)
        if chain is not None:
            return "clean", [(s, e) for s, e, _ in chain]
        if not any(any(b) for _, _, b in occs) and not run.doc.negs:
            return None, []  # nothing strict refused: the loose chain is the same (none)
        chain = run.chain(occs, False, self.window)
        if chain is None:
            return None, []
        bits = 0
        for _, _, b in chain:
            bits |= b
        reason = next((r for bit, r in _BRACKET_REASONS if bits & bit), "elision_drops_negation")
        return reason, [(s, e) for s, e, _ in chain]


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


def _audit(quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, max_steps, others) -> dict:
    """Editorial reading of the marks first; if it is not found, the other readings.

    Sources have brackets and ellipses of their own (``J[c]=p``, ``[12]``,
    ``1, 2, ..., n``); read as the source's punctuation they must match verbatim
    (the literal ellipsis reading is one contiguous fragment), so those readings
    loosen nothing. Readings (ellipsis reading outer, bracket reading inner, each in
    declared order; only for marks the quote has) are tried until one is ``found``;
    otherwise the first reading with the best verdict wins (found > misattributed >
    the editorial result, which keeps its reason, e.g. ``elision_drops_negation``,
    except that a ``no_verbatim_match`` gives way to a ``match_too_complex`` of
    another reading: that reading was not decided, so "nowhere" is not known).
    """
    args = (quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, max_steps, others)
    result = _audit_reading(*args, "editorial", "editorial")
    if result["verdict"] == "found" or not isinstance(quote, str):
        return result
    bracket_readings = BRACKET_READINGS if _BRACKET_RE.search(quote) else BRACKET_READINGS[:1]
    if not _has_fused(quote):  # without a fused letter the second reading is the first one
        bracket_readings = tuple(r for r in bracket_readings if r != "editorial_fused_literal")
    ellipsis_readings = ELLIPSIS_READINGS if _ELLIPSIS_RE.search(quote) else ELLIPSIS_READINGS[:1]
    for ellipses in ellipsis_readings:
        for brackets in bracket_readings:
            if (ellipses, brackets) == ("editorial", "editorial"):
                continue
            other = _audit_reading(*args, brackets, ellipses)
            if _RANK.get(other["verdict"], 0) > _RANK.get(result["verdict"], 0) or (
                result["reason"] == "no_verbatim_match" and other["reason"] == "match_too_complex"
            ):
                result = other
            if result["verdict"] == "found":
                return result
    return result


def _audit_reading(
    quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, max_steps, others, brackets, ellipses
) -> dict:
    """One reading of the quote's marks: cited document, then ``others(parsed)``.

    A cited document over the step budget decides ``not_found`` /
    ``match_too_complex``; another document over it counts as not matching (so the
    indexed and the scanning audit, which look at different other documents, agree).
    """
    parsed, reason = _parse_quote(quote, index, brackets, ellipses)
    short = _insufficient(parsed, reason, min_tokens, min_fragment_tokens)
    if short is not None:
        return _result("insufficient_quote", short, None, [], [])
    matcher = _Matcher(parsed, index, window_chars, max_steps)
    kind = parsed.match_kind
    cited_k = index.doc_number(cited_doc_id)
    negation: str | None = None
    if cited_k is not None:
        status, chain = matcher.match(index.docs[cited_k])
        if status == "clean":
            return _result("found", "verbatim_match", kind, [cited_doc_id], _spans(index.docs[cited_k], chain))
        if status == "match_too_complex":
            return _result("not_found", status, None, [], [])
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
        elif status not in (None, "match_too_complex") and other_negation is None:
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
    max_steps: int = MATCH_STEP_LIMIT,
) -> dict:
    """Audit one quote against its cited document, then (indexed) the rest of the corpus.

    ``min_tokens``: fewest normalized tokens a quote needs (all fragments together);
    ``min_fragment_tokens``: fewest per ellipsis fragment; ``window_chars``: largest
    span, in original document characters, from the first fragment's first character
    to the last fragment's last character (only for quotes with an ellipsis);
    ``max_steps``: most matching steps per reading of the quote per document (see
    the module docstring, "Cost"); a cited document over it is ``not_found`` /
    ``match_too_complex``.

    Returns ``{"verdict", "reason", "match_kind", "matched_doc_ids", "spans"}`` (see
    the module docstring for the codes). Fails closed: an empty, non-str or
    punctuation-only quote is ``insufficient_quote``/``empty_quote``; an unknown
    ``cited_doc_id`` is never ``found``; a match over ``max_steps`` is never
    ``found``. Rules: the citation-audit issue text,
    restated in the module docstring and in :mod:`claimgate.audit.normalize`.
    """

    def others(parsed: _Quote) -> Iterable[int]:
        return index.candidates(parsed).tolist()

    return _audit(quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, max_steps, others)


def audit_quote_scan(
    quote: str,
    cited_doc_id: str,
    index: CorpusIndex,
    *,
    min_tokens: int = 4,
    min_fragment_tokens: int = 3,
    window_chars: int = 2000,
    max_steps: int = MATCH_STEP_LIMIT,
) -> dict:
    """Reference audit: the cited document, then every other document one by one.

    Same arguments, units and result as :func:`audit_quote` (which must agree with
    it); no postings are used, only the normalized documents of ``index``.
    """

    def others(parsed: _Quote) -> Iterable[int]:
        return range(len(index.docs))

    return _audit(quote, cited_doc_id, index, min_tokens, min_fragment_tokens, window_chars, max_steps, others)
