"""Near-miss diagnosis of a rejected citation: the passage the quote came closest to, and what changed.

Why this module exists: a reviewer needs to see which near miss a rejected quote is
and where, with spans into the original texts. This module diagnoses one citation:
it finds the nearest passage (:mod:`claimgate.audit.diagnosis.nearest_passage`), lets
an edge ellipsis's hidden negation show as an edit, and names the kind
(:mod:`claimgate.audit.diagnosis.kinds`).

What it refuses to do: it never changes a verdict (it runs after the gate, on its
result, and the judge never sees it), never scans every document, and never spends
more than ``max_steps`` (:data:`claimgate.audit.diagnosis.kinds.DIAGNOSIS_STEP_LIMIT`)
on one citation: over it, the kind is ``unknown``. Rules: docs/audit-rules.md,
"Diagnosis".
"""

from __future__ import annotations

import numpy as np

from claimgate.audit.diagnosis import nearest_passage as ad
from claimgate.audit.diagnosis.kinds import (
    DIAGNOSED_VERDICTS,
    DIAGNOSIS_STEP_LIMIT,
    STITCH_MIN_TOKENS,
    Comparison,
    count_in,
    is_number,
    is_stitch,
    near_miss_kind,
    sentence_end_in,
    stitched_pieces,
)
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.matching.quote_parsing import EDGE_ELISION_TOKENS, edge_ellipses
from claimgate.audit.text.marks import fold_ellipses
from claimgate.audit.text.memo import normalized as normalized_text
from claimgate.audit.text.negation import negation_positions
from claimgate.audit.text.reference import NormalizedText


def _quote_ids(quote: NormalizedText, index: CorpusIndex) -> np.ndarray:
    """Quote token ids; a token no document has gets an id of its own above the vocabulary."""
    base = len(index.strings)
    return np.asarray([index.vocab.get(t, base + j) for j, t in enumerate(quote.tokens)], dtype=np.int64)


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


def _diagnose_in(
    quote: NormalizedText, passages: ad.PassageIndex, k: int, window_chars: int, budget, others: bool
) -> dict:
    """The diagnosis of ``quote`` against document number ``k`` (may raise ``TooManySteps``).

    ``others``: the quote is in no document verbatim, so its pieces may be looked for in
    another document too (a stitch across documents, see :func:`_other_document_runs`).
    """
    index = passages.index
    m = len(quote.tokens)
    quote_ids = _quote_ids(quote, index)
    present = passages.tokens_present(k, quote_ids)
    few = 2 * present < m  # no passage can share half of the quote's tokens
    if few and not (others and present >= STITCH_MIN_TOKENS):
        budget.spend(m)  # decided without reading the document
        return _result("fabricated", None, present, m, [])
    grams = passages.grams(k)
    doc = index.docs[k]
    runs = ad.verbatim_runs(quote_ids, grams, budget)
    runs_by_doc = [(k, runs)]
    blocked = _fact_changed(quote, passages)
    pieces = stitched_pieces(runs_by_doc, m, blocked) if len(runs) else None

    def with_other_document():
        """The pieces with another document's runs, when they leave fewer quote tokens uncovered."""
        if not (_uncovered(pieces, m) and others and len(runs)):
            return runs_by_doc, pieces
        other = _other_document_runs(quote_ids, passages, k, runs, budget)
        wider = stitched_pieces([*runs_by_doc, other], m, blocked) if other is not None else None
        return ([*runs_by_doc, other], wider) if _uncovered(wider, m) < _uncovered(pieces, m) else (runs_by_doc, pieces)

    if few:
        runs_by_doc, pieces = with_other_document()
        if pieces is None:
            return _result("fabricated", None, present, m, [])
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
    comparison = Comparison(quote, doc, _region_tokens(index, grams, lo, hi), lo, ops)
    if not few and not comparison.explains_with_less(window_chars):
        runs_by_doc, pieces = with_other_document()  # read another document only where a stitch could decide
    docs = {j: index.docs[j] for j, _ in runs_by_doc}
    stitch = pieces is not None and is_stitch(pieces, docs, k, quote, window_chars)
    kind = near_miss_kind(comparison, pieces, window_chars, stitch)
    if kind == "fabricated":
        return _result("fabricated", None, comparison.shared, m, [])
    nearest = _passage(passages, k, *comparison.passage_chars())
    out = _result(kind, nearest, comparison.shared, m, comparison.edit_rows())
    if kind == "stitched":
        out["pieces"] = [_piece(quote, docs[j], s, e, p) for s, e, p, j in pieces]
    return out


def _fact_changed(quote: NormalizedText, passages: ad.PassageIndex):
    """``blocked(k, q1, q2, p1, p2)``: do quote tokens ``q1..q2-1`` or document ``k``'s tokens ``p1..p2-1`` hold
    a number or a negation (so a stitched piece may not hold that change: it is named as what it is)?"""
    index = passages.index
    found: list = []  # the quote's negations, found on first use (most quotes have no change in place)

    def blocked(k: int, q1: int, q2: int, p1: int, p2: int) -> bool:
        if not found:
            found.append(negation_positions(quote))
        if count_in(found[0], q1, q2) or count_in(index.docs[k].negations, p1, p2):
            return True
        source = (index.strings[i] for i in passages.grams(k).ids[p1:p2].tolist())
        return any(map(is_number, quote.tokens[q1:q2])) or any(map(is_number, source))

    return blocked


def _uncovered(pieces: list | None, m: int) -> int:
    """Quote tokens in no piece (all ``m`` without pieces)."""
    return m if pieces is None else m - sum(q2 - q1 for q1, q2, *_ in pieces)


def _other_document_runs(quote_ids: np.ndarray, passages: ad.PassageIndex, k: int, runs: ad.Runs, budget):
    """``(document number, runs)`` of the quote in the other document that may hold what ``k`` does not, or ``None``.

    The quote tokens in no run of at least STITCH_MIN_TOKENS in document ``k`` are looked
    up by their token pairs in the corpus postings; the document (not ``k``) holding the
    most of those pairs (the lowest number on ties) is read. ``None`` when ``k`` holds no
    such run or every quote token is in one.
    """
    covered = np.zeros(len(quote_ids), dtype=bool)
    for s, e in zip(runs.q_start.tolist(), runs.q_end.tolist()):
        if e - s >= STITCH_MIN_TOKENS:
            covered[s:e] = True
    if covered.all() or not covered.any():
        return None
    open_pairs = ~(covered[:-1] & covered[1:])
    wanted = np.unique(ad.pair_keys(quote_ids)[open_pairs])
    lo, hi = passages.index.pair_postings.ranges(wanted)
    budget.spend(int((hi - lo).sum()))  # charged before the documents are gathered
    holders = passages.index.pair_postings.gathered(lo, hi)
    holders = holders[holders != k]
    if not len(holders):
        return None
    other = int(np.argmax(np.bincount(holders)))
    return other, ad.verbatim_runs(quote_ids, passages.grams(other), budget)


def _ends_sentence(doc, before: int, after: int) -> bool:
    """Does a sentence end between document tokens ``before`` and ``after`` (original text between them)?"""
    return sentence_end_in(doc.original, doc.ends[before], doc.starts[after])


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
    """One verbatim piece of a stitched quote: the document it is from, its span in the quote and in that document."""
    ss, se = int(doc.starts[p]), int(doc.ends[p + (q2 - q1) - 1])
    span = list(quote.span(q1, q2 - 1))
    return {"doc_id": doc.doc_id, "quote_span": span, "source_span": [ss, se], "text": doc.original[ss:se]}


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
    normalized = normalized_text(quote)
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
            out = _diagnose_in(normalized, passages, k, window_chars, budget, verdict == "not_found")
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

    ``match`` is the gate's result for the citation (``matching.audit.audit_quote``: at least
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
