"""Near-miss diagnosis of a rejected citation: the passage the quote came closest to, and what changed.

Why this stage exists: a rejected quote says ``not_found / no_verbatim_match`` and
nothing more, yet most rejected quotes are not inventions: a real sentence with a
number or a negation changed, words dropped without a mark, two pieces glued
together, or a paraphrase inside quotation marks. A reviewer needs to see which of
these it is and where, with spans into the original texts.

What it refuses to do: it never changes a verdict (it runs after the gate, on its
result, and the judge never sees it), never scans every document (the nearest
passage comes from the cited document's token-pair positions, see
:mod:`claimgate.audit.diagnosis.nearest_passage`), and never spends more than ``max_steps``
(:data:`DIAGNOSIS_STEP_LIMIT`) on one citation: over it, the kind is ``unknown``.

Kinds, decided in this order, first that applies (see docs/audit-rules.md,
"Diagnosis"). A quote *aligns* when its nearest passage shares at least half of its
tokens.

- ``number_changed``: aligns, and an edit has numbers on both sides that differ (a
  number is a token with a digit, sign and exponent included), or adds, drops or
  replaces a number within at most :data:`NUMBER_EDIT_MAX_TOKENS` tokens;
- ``negation_changed``: aligns, and an edit adds or drops a negation (a token that
  ``negation.negation_positions`` marks, in any listed language; for the document,
  the index's ``negations``) in an edit whose quote side has at most
  :data:`NUMBER_EDIT_MAX_TOKENS` tokens (a removed source run of any length counts);
- ``unmarked_elision``: the quote is the passage with runs of source tokens removed,
  nothing added or replaced, the passage spans at most ``window_chars`` characters
  and no removed run crosses a sentence end;
- ``light_edit``: aligns with at most :data:`LIGHT_EDIT_MAX_TOKENS` token edits;
- ``stitched``: verbatim pieces of at least :data:`STITCH_MIN_TOKENS` tokens each
  cover the quote, no one piece does, and they are not one unmarked elision;
- ``paraphrase``: aligns, but needs more edits;
- ``fabricated``: no passage of the cited document shares half of the quote's tokens;
- ``unknown``: the step limit was reached.
"""

from __future__ import annotations

import re
from bisect import bisect_left

import numpy as np

from claimgate.audit.diagnosis import nearest_passage as ad
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.matching.quote_parsing import EDGE_ELISION_TOKENS, edge_ellipses
from claimgate.audit.text.marks import fold_ellipses
from claimgate.audit.text.negation import negation_positions
from claimgate.audit.text.reference import NormalizedText, normalize_text_reference

#: Every kind a diagnosis can have, in the order they are decided.
DIAGNOSIS_KINDS = (
    "number_changed",
    "negation_changed",
    "unmarked_elision",
    "light_edit",
    "stitched",
    "paraphrase",
    "fabricated",
    "unknown",
)
#: Most steps one citation's diagnosis may spend (see ``alignment_diff`` for what a step is).
DIAGNOSIS_STEP_LIMIT = 200_000
#: Most token edits of a ``light_edit``.
LIGHT_EDIT_MAX_TOKENS = 2
#: Most tokens of an added or dropped run that is a changed number (the number and, say, its unit),
#: and of quote words added that count as an added negation.
NUMBER_EDIT_MAX_TOKENS = 2
#: Fewest tokens of a verbatim piece of a ``stitched`` quote.
STITCH_MIN_TOKENS = 4
#: Verdicts that get a diagnosis (``insufficient_quote`` only with a near, differing passage).
DIAGNOSED_VERDICTS = ("not_found", "misattributed", "insufficient_quote")
#: A sentence end in the original text between two kept tokens.
_SENTENCE_END_RE = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?:\s|$)")
_OPS = {"replace": "replace", "delete": "insert", "insert": "delete"}  # difflib (quote-side) -> quote's edit


def is_number(token: str) -> bool:
    """A normalized token that states a number (has a digit; the sign is part of the token)."""
    return any(c.isdigit() for c in token)


def count_in(positions, lo: int, hi: int) -> int:
    """How many of the ascending ``positions`` lie in ``[lo, hi)``."""
    return bisect_left(positions, hi) - bisect_left(positions, lo)


def _quote_ids(quote: NormalizedText, index: CorpusIndex) -> np.ndarray:
    """Quote token ids; a token no document has gets an id of its own above the vocabulary."""
    base = len(index.strings)
    return np.asarray([index.vocab.get(t, base + j) for j, t in enumerate(quote.tokens)], dtype=np.int64)


def _span(starts, ends, lo: int, hi: int, leading: bool = False) -> tuple[int, int]:
    """Original characters of tokens ``lo..hi-1``.

    An empty range is a point: after token ``lo - 1``, or, when ``leading`` (or at the
    text's start), before token ``lo``.
    """
    if hi > lo:
        return int(starts[lo]), int(ends[hi - 1])
    point = int(starts[lo]) if (leading or lo == 0) and lo < len(starts) else int(ends[lo - 1])
    return point, point


class _Comparison:
    """One quote aligned with one passage of one document: the facts the kinds are decided on."""

    def __init__(self, quote: NormalizedText, doc, region_tokens: tuple[str, ...], lo: int, ops) -> None:
        self.quote, self.doc, self.ops = quote, doc, ops
        self.region_tokens = region_tokens  # the region's tokens as strings, for numbers
        self.quote_negations = negation_positions(quote)  # the same rules as the document's ``negations``
        self.lo = lo  # document token offset of the aligned region
        self.shared = sum(q2 - q1 for tag, q1, q2, _, _ in ops if tag == "equal")
        self.first = lo + ops[0][3]
        self.last = lo + ops[-1][4]  # one past the passage's last token
        self.edits = [op for op in ops if op[0] != "equal"]
        # removed runs between two kept tokens that cross a sentence end: a seam between
        # sentences, not an edit of one (a run at an edge is an edge ellipsis's negation)
        inner = ops[1:-1]
        self.seams = [op for op in inner if op[0] == "insert" and self._crosses_sentence_end(op)]

    def _crosses_sentence_end(self, op) -> bool:
        _, _, _, s1, s2 = op
        if self.lo + s1 == 0 or self.lo + s2 >= len(self.doc.starts):
            return False
        gap = self.doc.original[self.doc.ends[self.lo + s1 - 1] : self.doc.starts[self.lo + s2]]
        return bool(_SENTENCE_END_RE.search(gap))

    def in_sentence_edits(self) -> list:
        return [op for op in self.edits if op not in self.seams]

    def tokens_changed(self) -> int:
        return sum(max(q2 - q1, s2 - s1) for _, q1, q2, s1, s2 in self.edits)

    def changes_number(self) -> bool:
        """An edit that changes a number (numbers on both sides, differing), or adds, drops or
        replaces one within at most NUMBER_EDIT_MAX_TOKENS tokens.

        A longer removed run that happens to hold a number is an elision, not a
        changed number (a negation in it is a changed negation, see ``changes_negation``).
        """
        q, d = self.quote.tokens, self.region_tokens
        for _, q1, q2, s1, s2 in self.in_sentence_edits():
            quoted = sorted(t for t in q[q1:q2] if is_number(t))
            source = sorted(t for t in d[s1:s2] if is_number(t))
            small = max(q2 - q1, s2 - s1) <= NUMBER_EDIT_MAX_TOKENS
            if quoted != source and (small or (quoted and source)):
                return True
        return False

    def changes_negation(self) -> bool:
        quoted, source, lo = self.quote_negations, self.doc.negations, self.lo
        return any(
            count_in(quoted, q1, q2) != count_in(source, lo + s1, lo + s2)
            for _, q1, q2, s1, s2 in self.in_sentence_edits()
            # a longer run of the quote's own words is foreign text (stitched or paraphrased),
            # but a removed source run of any length may hide a negation
            if q2 - q1 <= NUMBER_EDIT_MAX_TOKENS
        )

    def passage_chars(self) -> tuple[int, int]:
        return int(self.doc.starts[self.first]), int(self.doc.ends[self.last - 1])

    def only_elided(self, window_chars: int) -> bool:
        """Only source tokens removed, within the window, no removed run across a sentence end."""
        if not self.edits or any(tag != "insert" for tag, *_ in self.edits):
            return False
        start, end = self.passage_chars()
        return end - start <= window_chars and not self.seams

    def edit_rows(self) -> list[dict]:
        """``[{op, quote, source, quote_span, source_span}]`` in original characters of each text."""
        rows = []
        q, doc, lo = self.quote, self.doc, self.lo
        for tag, q1, q2, s1, s2 in self.edits:
            leading = (q1, s1) == (self.ops[0][1], self.ops[0][3])  # an edit at the passage's start
            qs, qe = _span(q.starts, q.ends, q1, q2, leading)
            ss, se = _span(doc.starts, doc.ends, lo + s1, lo + s2, leading)
            rows.append(
                {
                    "op": _OPS[tag],
                    "quote": q.original[qs:qe],
                    "source": doc.original[ss:se],
                    "quote_span": [qs, qe],
                    "source_span": [ss, se],
                }
            )
        return rows


def _stitched_pieces(runs: ad.Runs, n_quote: int) -> list[tuple[int, int, int]] | None:
    """Fewest verbatim pieces ``(q_start, q_end, p_start)`` of >= STITCH_MIN_TOKENS covering the quote, or None.

    Greedy from the quote's start (longest reach first, earliest document position on
    ties); ``None`` unless they cover every quote token and more than one is needed.
    """
    long = runs.length >= STITCH_MIN_TOKENS
    qs, qe, ps = runs.q_start[long].tolist(), runs.q_end[long].tolist(), runs.p_start[long].tolist()
    pieces: list[tuple[int, int, int]] = []
    at = 0
    while at < n_quote:
        best = None
        for s, e, p in zip(qs, qe, ps):
            if s <= at < e and (best is None or (e, -p) > (best[1], -best[2])):
                best = (s, e, p)
        if best is None:
            return None
        pieces.append((at, best[1], best[2] + (at - best[0])))
        at = best[1]
    return pieces if len(pieces) > 1 else None


def _passage(passages: ad.PassageIndex, k: int, start: int, end: int) -> dict:
    doc = passages.index.docs[k]
    start_line, end_line = passages.lines(k).span_lines(start, end)
    return {
        "doc_id": doc.doc_id,
        "start": start,
        "end": end,
        "start_line": start_line,
        "end_line": end_line,
        "text": doc.original[start:end],
    }


def _region_tokens(index: CorpusIndex, grams: ad.DocGrams, lo: int, hi: int) -> tuple[str, ...]:
    """Tokens ``lo..hi-1`` of a document as strings."""
    strings = index.strings
    return tuple(strings[t] for t in grams.ids[lo:hi].tolist())


def _diagnose_in(quote: NormalizedText, passages: ad.PassageIndex, k: int, window_chars: int, budget) -> dict:
    """The diagnosis of ``quote`` against document number ``k`` (may raise ``TooManySteps``)."""
    index = passages.index
    m = len(quote.tokens)
    quote_ids = _quote_ids(quote, index)
    present = passages.tokens_present(k, quote_ids)
    if 2 * present < m:  # no passage can share half of the quote's tokens: decided without reading the document
        budget.spend(m)
        return _result("fabricated", None, present, m, [])
    grams = passages.grams(k)
    doc = index.docs[k]
    runs = ad.verbatim_runs(quote_ids, grams, budget)
    if len(runs):
        regions = ad.anchored_regions(quote_ids, grams, runs, doc.starts, doc.ends, window_chars, budget)
    else:
        window, shared = ad.densest_window(quote_ids, grams, budget)
        if window is None or 2 * shared < m:
            return _result("fabricated", None, shared, m, [])
        regions = [(window[0], window[1], [])]
    best = None
    for lo, hi, anchors in regions:
        ops = ad.aligned_ops(quote_ids, grams.ids[lo:hi], budget, anchors, lo)
        shared = sum(q2 - q1 for tag, q1, q2, _, _ in ops if tag == "equal")
        if best is None or shared > best[0]:
            best = (shared, lo, hi, ops)
    _, lo, hi, ops = best
    if not any(tag == "equal" for tag, *_ in ops):
        return _result("fabricated", None, 0, m, [])
    ops = _edges_within_sentences(ops, doc, lo)
    ops, lo, hi = _edge_negations(quote, doc, ops, lo, hi)
    comparison = _Comparison(quote, doc, _region_tokens(index, grams, lo, hi), lo, ops)
    aligns = 2 * comparison.shared >= m
    pieces = _stitched_pieces(runs, m) if len(runs) else None
    if aligns and comparison.changes_number():
        kind = "number_changed"
    elif aligns and comparison.changes_negation():
        kind = "negation_changed"
    elif comparison.only_elided(window_chars):
        kind = "unmarked_elision"
    elif aligns and comparison.tokens_changed() <= LIGHT_EDIT_MAX_TOKENS:
        kind = "light_edit"
    elif pieces is not None:
        kind = "stitched"
    elif aligns:
        kind = "paraphrase"
    else:
        return _result("fabricated", None, comparison.shared, m, [])
    nearest = _passage(passages, k, *comparison.passage_chars())
    out = _result(kind, nearest, comparison.shared, m, comparison.edit_rows())
    if kind == "stitched":
        out["pieces"] = [_piece(quote, doc, s, e, p) for s, e, p in pieces]
    return out


def _ends_sentence(doc, before: int, after: int) -> bool:
    """Does a sentence end between document tokens ``before`` and ``after`` (original text between them)?"""
    return bool(_SENTENCE_END_RE.search(doc.original[doc.ends[before] : doc.starts[after]]))


def _edges_within_sentences(ops: list, doc, lo: int) -> list:
    """Edge replacements cut back so the passage does not reach across a sentence end.

    A quote whose first (last) words have no counterpart is aligned with as many source
    tokens before (after) the aligned middle; those stop at the sentence end nearest to
    the middle, and with none left the edit is the quote's own words (``insert``).
    """
    ops = list(ops)
    tag, q1, q2, s1, s2 = ops[0]
    if tag == "replace" and lo + s2 < len(doc.starts):
        cut = next((b for b in range(s2, s1, -1) if _ends_sentence(doc, lo + b - 1, lo + b)), s1)
        ops[0] = (tag, q1, q2, cut, s2) if cut < s2 else ("delete", q1, q2, s2, s2)
    tag, q1, q2, s1, s2 = ops[-1]
    if tag == "replace" and lo + s1 > 0:
        cut = next((b for b in range(s1, s2) if _ends_sentence(doc, lo + b - 1, lo + b)), s2)
        ops[-1] = (tag, q1, q2, s1, cut) if cut > s1 else ("delete", q1, q2, s1, s1)
    return ops


def _edge_negations(quote: NormalizedText, doc, ops: list, lo: int, hi: int):
    """Ops, region start and end, with a negation that an edge ellipsis hides shown as a removed run.

    A quote starting (ending) with an ellipsis hides the up to EDGE_ELISION_TOKENS
    source tokens just before (after) its passage, as the gate reads it; a negation
    there is an edit of the quote (``... patients had adverse events`` against ``No
    patients had adverse events``).
    """
    lead, trail = edge_ellipses(fold_ellipses(quote.original))  # the gate's own reading of the marks
    if not (lead or trail):
        return ops, lo, hi
    m, n = len(quote.tokens), doc.n_tokens

    def negated(p: int) -> bool:
        return count_in(doc.negations, p, p + 1) > 0

    first, last = lo + ops[0][3], lo + ops[-1][4]
    before = [p for p in range(max(0, first - EDGE_ELISION_TOKENS), first) if lead and negated(p)]
    after = [p for p in range(last, min(n, last + EDGE_ELISION_TOKENS)) if trail and negated(p)]
    new_lo = min(lo, before[0]) if before else lo
    shift = lo - new_lo
    ops = [(tag, q1, q2, s1 + shift, s2 + shift) for tag, q1, q2, s1, s2 in ops]
    if before:
        ops.insert(0, ("insert", 0, 0, before[0] - new_lo, first - new_lo))
    if after:
        ops.append(("insert", m, m, last - new_lo, after[-1] + 1 - new_lo))
    return ops, new_lo, max(hi, after[-1] + 1) if after else hi


def _piece(quote: NormalizedText, doc, q1: int, q2: int, p: int) -> dict:
    """One verbatim piece of a stitched quote: its span in the quote and in the document."""
    ss, se = int(doc.starts[p]), int(doc.ends[p + (q2 - q1) - 1])
    return {"quote_span": list(quote.span(q1, q2 - 1)), "source_span": [ss, se], "text": doc.original[ss:se]}


def _result(kind: str, nearest: dict | None, shared: int | None, quote_tokens: int, edits: list[dict]) -> dict:
    return {"kind": kind, "nearest": nearest, "shared_tokens": shared, "quote_tokens": quote_tokens, "edits": edits}


def _closest_document(quote: NormalizedText, index: CorpusIndex, budget: ad.StepBudget) -> int | None:
    """Document number sharing the most token pairs with the quote (lowest on ties), via the corpus postings."""
    wanted = np.unique(ad.pair_keys(_quote_ids(quote, index)))
    lo, hi = index.pair_postings.ranges(wanted)
    budget.spend(int((hi - lo).sum()))  # charged before the documents are gathered
    docs = index.pair_postings.gathered(lo, hi)
    if not len(docs):
        return None
    return int(np.argmax(np.bincount(docs)))


def diagnosis_with_steps(
    quote: object,
    cited_doc_id: object,
    match: dict,
    passages: ad.PassageIndex,
    *,
    window_chars: int = 2000,
    max_steps: int = DIAGNOSIS_STEP_LIMIT,
) -> tuple[dict | None, int]:
    """:func:`citation_diagnosis` and the steps it spent (for tests of the bound)."""
    verdict = match["verdict"]
    if verdict not in DIAGNOSED_VERDICTS or not isinstance(quote, str):
        return None, 0
    if verdict == "insufficient_quote" and match["reason"] not in ("too_few_tokens", "fragment_too_short"):
        return None, 0
    normalized = normalize_text_reference(quote)
    if not normalized.tokens:
        return None, 0
    budget = ad.StepBudget(max_steps)
    k = passages.index.doc_number(cited_doc_id)
    try:
        if k is None and verdict == "not_found":
            k = _closest_document(normalized, passages.index, budget)
        if k is None:
            out = _result("fabricated", None, 0, len(normalized.tokens), [])
        else:
            out = _diagnose_in(normalized, passages, k, window_chars, budget)
    except ad.TooManySteps:
        out = _result("unknown", None, None, len(normalized.tokens), [])
    if verdict == "insufficient_quote" and (out["kind"] in ("fabricated", "unknown") or not out["edits"]):
        return None, budget.spent
    if verdict == "misattributed":
        out["occurs_in"] = list(match["matched_doc_ids"])
    return out, budget.spent


def citation_diagnosis(
    quote: object,
    cited_doc_id: object,
    match: dict,
    passages: ad.PassageIndex,
    *,
    window_chars: int = 2000,
    max_steps: int = DIAGNOSIS_STEP_LIMIT,
) -> dict | None:
    """Why a rejected citation failed: ``{kind, nearest, shared_tokens, quote_tokens, edits[, pieces][, occurs_in]}``.

    ``match`` is the gate's result for the citation (``quotes.audit_quote``: at least
    ``verdict``, ``reason``, ``matched_doc_ids``). Returns ``None`` for ``found``,
    ``invalid_citation``, a quote without tokens, and an ``insufficient_quote`` without
    a near, differing passage. ``nearest`` is ``{doc_id, start, end, start_line,
    end_line, text}`` (original characters, 1-based inclusive lines) or ``None``
    (``fabricated``, ``unknown``); ``shared_tokens`` and ``quote_tokens`` count
    normalized tokens (``shared_tokens`` is ``None`` for ``unknown``); each edit is
    ``{op: replace|insert|delete (what the quote did), quote, source, quote_span,
    source_span}`` with ``[start, end)`` character spans of the quote and of the
    passage's document (an empty span marks where a token is missing). ``stitched``
    adds ``pieces`` (``{quote_span, source_span, text}``); ``misattributed`` adds
    ``occurs_in`` (the documents holding the quote verbatim) and is diagnosed against
    the cited document. A not-found quote citing an unknown document is diagnosed
    against the document sharing the most token pairs with it (corpus postings).
    Deterministic; never raises for an odd quote. Rules: docs/audit-rules.md, "Diagnosis".
    """
    return diagnosis_with_steps(quote, cited_doc_id, match, passages, window_chars=window_chars, max_steps=max_steps)[0]
