"""Where a rejected quote came closest to its cited document, and the token alignment against that passage.

Why this stage exists: a rejected quote is rarely invented; most are a real
sentence lightly edited, shortened without a mark, or two pieces glued together.
To say *how* a quote differs, the diagnosis (:mod:`claimgate.audit.diagnosis.diagnose`)
needs the nearest passage and a token-level alignment with spans in the original
characters. This module finds both.

What it refuses to do: it never reads every document. Candidate passages come
from the cited document's own token and token-pair positions (:class:`PassageIndex`,
built lazily, once per document per run, from the corpus index's token arrays), and
all work is counted against a step budget (:class:`StepBudget`); over budget it
raises :class:`TooManySteps` instead of slowing the run.

Model (see docs/audit-rules.md, "Diagnosis", "Finding the nearest passage"):

- A *verbatim run* is a maximal stretch of quote tokens equal to consecutive document
  tokens, found from shared token pairs (so a run has at least two tokens).
- The nearest passage is anchored on a chain of runs, in order in both the quote and
  the document (a run may repeat the quote tokens that end the run before it),
  spanning at most ``window_chars`` original characters, scored
  :data:`SKIP_WEIGHT` points per quote token covered, minus one per source token left
  out between runs. The :data:`CANDIDATE_CHAINS` best chains (ranked by score, then
  the shortest document span, then the earliest; one per first run) are aligned and
  the one sharing the most quote tokens wins (the better-ranked on ties). Without
  any shared token pair, the anchor is the window of ``2 x quote tokens`` document
  tokens holding the most occurrences of quote tokens (see :func:`densest_window`).
- The chain's runs are kept as aligned blocks; the gaps between them, and the quote's
  unmatched head and tail against :data:`REGION_SLACK` more source tokens, are aligned
  with :class:`difflib.SequenceMatcher` over token ids (longest matching blocks first,
  which reads like a reviewer's diff); source-only tokens at the region's edges are
  trimmed off the passage.

Steps: one per token or pair occurrence looked up, one per pair of runs compared, and
``quote tokens x source tokens`` per gap aligned.
"""

from __future__ import annotations

import difflib
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from claimgate.audit.index.types import CorpusIndex
from claimgate.textlines import LineIndex

#: A chain gains this many points per quote token it covers and loses one per source token it
#: leaves out between two runs: a far run is linked only if it covers enough of the quote.
SKIP_WEIGHT = 8
#: Source tokens added on either side of the anchored region before aligning (the alignment trims them).
REGION_SLACK = 3
#: Best chains (with different first runs) aligned; the one sharing the most quote tokens is the nearest passage.
CANDIDATE_CHAINS = 3
#: Documents whose lookups a PassageIndex keeps (least recently used dropped first).
MAX_CACHED_DOCUMENTS = 512
#: Longest verbatim runs (by length, then document position) kept for the chain search.
MAX_CHAIN_RUNS = 48


class TooManySteps(Exception):
    """The diagnosis step budget of one citation is spent."""


class StepBudget:
    """Steps spent on one citation's diagnosis; raises :class:`TooManySteps` past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.spent = 0

    def spend(self, steps: int) -> None:
        self.spent += steps
        if self.spent > self.limit:
            raise TooManySteps


class DocGrams:
    """One document's token ids (int64) and its sorted token-pair keys with their positions.

    The sorted single-token keys (``uni_keys``, ``uni_pos``) are built on first use: only a
    quote sharing no token pair with the document needs them.
    """

    __slots__ = ("ids", "bi_keys", "bi_pos", "_uni")

    def __init__(self, ids: np.ndarray) -> None:
        self.ids = ids.astype(np.int64)
        bi = pair_keys(self.ids)
        self.bi_pos = np.argsort(bi, kind="stable")
        self.bi_keys = bi[self.bi_pos]
        self._uni: tuple[np.ndarray, np.ndarray] | None = None

    def _unigrams(self) -> tuple[np.ndarray, np.ndarray]:
        if self._uni is None:
            order = np.argsort(self.ids, kind="stable")
            self._uni = (self.ids[order], order)
        return self._uni

    @property
    def uni_keys(self) -> np.ndarray:
        return self._unigrams()[0]

    @property
    def uni_pos(self) -> np.ndarray:
        return self._unigrams()[1]


def pair_keys(ids: np.ndarray) -> np.ndarray:
    """Keys ``id1 << 32 | id2`` of adjacent token pairs (int64; the corpus index's bigram keys)."""
    return (ids[:-1] << 32) | ids[1:] if len(ids) > 1 else np.empty(0, dtype=np.int64)


class PassageIndex:
    """Positional token and token-pair lookup over the documents of a :class:`CorpusIndex`.

    The corpus index keeps, per key, only *which documents* hold it; a diagnosis needs
    *where* in the cited document. That lookup is built from the document's token
    array the first time the document is asked for and kept for the run (never per
    citation) while it is among the ``max_documents`` most recently used, so memory
    stays bounded on a corpus of many long documents. Picklable (the cache travels with it).
    """

    def __init__(self, index: CorpusIndex, max_documents: int = MAX_CACHED_DOCUMENTS) -> None:
        self.index = index
        self.max_documents = max_documents
        self._grams: OrderedDict[int, DocGrams] = OrderedDict()  # least recently used first
        self._lines: OrderedDict[int, LineIndex] = OrderedDict()

    def tokens_present(self, k: int, quote_ids: np.ndarray) -> int:
        """How many quote positions have their token in document number ``k`` (joined line-end words included).

        Read from the corpus index's token postings (one binary search per quote
        position in the documents holding its token): no document is read.
        """
        return int(np.count_nonzero(self.index.token_postings.held_by(quote_ids, k)))

    def grams(self, k: int) -> DocGrams:
        """Positional keys of document number ``k`` (built once while among the most recently used)."""
        return self._cached(self._grams, k, lambda: DocGrams(np.frombuffer(self.index.docs[k].token_bytes, np.int32)))

    def lines(self, k: int) -> LineIndex:
        """Line index of document number ``k``'s original text (built once while among the most recently used)."""
        return self._cached(self._lines, k, lambda: LineIndex(self.index.docs[k].original))

    def _cached(self, cache: OrderedDict, k: int, build):
        hit = cache.get(k)
        if hit is None:
            hit = cache[k] = build()
            if len(cache) > self.max_documents:
                cache.popitem(last=False)  # memory stays bounded whatever the corpus
        else:
            cache.move_to_end(k)
        return hit


def lookup(keys: np.ndarray, positions: np.ndarray, wanted: np.ndarray, budget: StepBudget):
    """``(quote positions, document positions)`` of every occurrence of every ``wanted`` key.

    ``keys`` sorted, ``positions`` aligned with them; the budget is charged with the
    number of occurrences before they are materialized.
    """
    lo = np.searchsorted(keys, wanted, "left")
    hi = np.searchsorted(keys, wanted, "right")
    counts = hi - lo
    total = int(counts.sum())  # a Python int, so the budget stays one
    budget.spend(total)
    if total == 0:
        return np.empty(0, dtype=np.int64), np.empty(0, dtype=np.int64)
    quote_pos = np.repeat(np.arange(len(wanted), dtype=np.int64), counts)
    first = np.repeat(lo - (np.cumsum(counts) - counts), counts)
    return quote_pos, positions[first + np.arange(total)].astype(np.int64)


@dataclass(frozen=True)
class Runs:
    """Maximal verbatim runs: quote ``[q_start, q_end)`` equals document ``[p_start, p_start + length)``."""

    q_start: np.ndarray
    q_end: np.ndarray
    p_start: np.ndarray

    @property
    def length(self) -> np.ndarray:
        return self.q_end - self.q_start

    def __len__(self) -> int:
        return len(self.q_start)


def verbatim_runs(quote_ids: np.ndarray, grams: DocGrams, budget: StepBudget) -> Runs:
    """Every maximal run of at least two quote tokens occurring verbatim in the document."""
    qi, p = lookup(grams.bi_keys, grams.bi_pos, pair_keys(quote_ids), budget)
    if not len(qi):
        empty = np.empty(0, dtype=np.int64)
        return Runs(empty, empty, empty)
    diagonal = p - qi
    order = np.lexsort((qi, diagonal))  # by diagonal, then quote position
    qi, p, diagonal = qi[order], p[order], diagonal[order]
    starts = np.ones(len(qi), dtype=bool)
    starts[1:] = (diagonal[1:] != diagonal[:-1]) | (qi[1:] != qi[:-1] + 1)
    first = np.flatnonzero(starts)
    last = np.append(first[1:], len(qi)) - 1
    return Runs(qi[first], qi[last] + 2, p[first])


def _chains(runs: Runs, doc_starts, doc_ends, window_chars: int, budget: StepBudget) -> list[list[int]]:
    """Run indices of the best-scoring chains, best first, at most one per first run (see the module docstring)."""
    keep = np.lexsort((runs.p_start, -runs.length))[:MAX_CHAIN_RUNS]
    keep = keep[np.lexsort((runs.q_start[keep], runs.p_start[keep]))]  # document order
    qs, qe, ps = runs.q_start[keep].tolist(), runs.q_end[keep].tolist(), runs.p_start[keep].tolist()
    pe = [p + (e - s) for p, s, e in zip(ps, qs, qe)]
    r = len(keep)
    budget.spend(r * r)
    score = [SKIP_WEIGHT * (e - s) for s, e in zip(qs, qe)]
    back = [-1] * r
    head = list(range(r))  # first run of the best chain ending at each run
    for j in range(r):
        for i in range(j):
            # run j may repeat the last tokens of run i (its overlap is not counted twice)
            overlap = max(0, qe[i] - qs[j])
            gain = qe[j] - qs[j] - overlap
            if gain <= 0 or pe[i] > ps[j] + overlap or qs[i] >= qs[j]:
                continue
            skipped = max(0, (ps[j] + overlap - pe[i]) - (qs[j] + overlap - qe[i]))  # source tokens left out
            if doc_ends[pe[j] - 1] - doc_starts[ps[head[i]]] <= window_chars:
                # a higher score first; on a tie the shorter document span (later head)
                candidate = score[i] + SKIP_WEIGHT * gain - skipped
                if (candidate, ps[head[i]]) > (score[j], ps[head[j]]):
                    score[j], back[j], head[j] = candidate, i, head[i]
    # most tokens covered, then the shortest document span, then the earliest; one chain per head run
    ranked = sorted(range(r), key=lambda j: (-score[j], pe[j] - ps[head[j]], ps[head[j]]))
    chains: list[list[int]] = []
    heads: set[int] = set()
    for end in ranked:
        if head[end] in heads:
            continue
        heads.add(head[end])
        chain = []
        while end >= 0:
            chain.append(int(keep[end]))
            end = back[end]
        chains.append(chain[::-1])
        if len(chains) == CANDIDATE_CHAINS:
            break
    return chains


def densest_window(quote_ids: np.ndarray, grams: DocGrams, budget: StepBudget) -> tuple[tuple[int, int] | None, int]:
    """``((start, end) or None, shared)``: the document window richest in the quote's single tokens.

    The window is ``2 x quote tokens`` document tokens, the one holding the most
    occurrences of quote tokens (the earliest on ties), and ``shared`` the distinct
    quote positions whose token it holds; ``(None, 0)`` when no quote token is in the
    document.
    """
    qi, p = lookup(grams.uni_keys, grams.uni_pos, quote_ids, budget)
    if not len(qi):
        return None, 0
    order = np.lexsort((qi, p))
    qi, p = qi[order], p[order]
    width = 2 * len(quote_ids)
    counts = np.searchsorted(p, p + width, "left") - np.arange(len(p))
    start = int(p[int(np.argmax(counts))])
    inside = (p >= start) & (p < start + width)
    return (start, min(start + width, len(grams.ids))), len(np.unique(qi[inside]))


Anchor = tuple[int, int, int]  # quote [q_start, q_end) equals document tokens from p_start


def anchored_regions(quote_ids, grams: DocGrams, runs: Runs, doc_starts, doc_ends, window_chars, budget):
    """``[(lo, hi, anchors)]`` per candidate chain: a document token range to align against and the chain's runs.

    The anchors are the chain's runs, in order, each trimmed of the quote tokens it
    repeats from the run before it.
    """
    regions = []
    for chain in _chains(runs, doc_starts, doc_ends, window_chars, budget):
        anchors: list[Anchor] = []
        for j in chain:
            qs, qe, ps = int(runs.q_start[j]), int(runs.q_end[j]), int(runs.p_start[j])
            overlap = max(0, anchors[-1][1] - qs) if anchors else 0
            anchors.append((qs + overlap, qe, ps + overlap))
        head = anchors[0][0]
        tail = len(quote_ids) - anchors[-1][1]
        lo = max(0, anchors[0][2] - head - REGION_SLACK)
        hi = min(len(grams.ids), anchors[-1][2] + anchors[-1][1] - anchors[-1][0] + tail + REGION_SLACK)
        regions.append((lo, hi, anchors))
    return regions


def _gap_ops(quote: list[int], source: list[int], q0: int, s0: int, budget: StepBudget) -> list[tuple]:
    """difflib opcodes of one gap between anchors, shifted to quote offset ``q0`` and region offset ``s0``."""
    if not quote and not source:
        return []
    if not source:
        return [("delete", q0, q0 + len(quote), s0, s0)]
    if not quote:
        return [("insert", q0, q0, s0, s0 + len(source))]
    budget.spend(len(quote) * len(source))
    matcher = difflib.SequenceMatcher(None, quote, source, autojunk=False)
    return [(tag, q0 + a1, q0 + a2, s0 + b1, s0 + b2) for tag, a1, a2, b1, b2 in matcher.get_opcodes()]


def aligned_ops(
    quote_ids: np.ndarray, source_ids: np.ndarray, budget: StepBudget, anchors: list[Anchor] = (), lo: int = 0
) -> list[tuple[str, int, int, int, int]]:
    """Opcodes ``(tag, q1, q2, s1, s2)`` aligning the quote with the source region ``source_ids``, edges trimmed.

    ``anchors`` (document positions; ``lo`` is the region's first) are kept as equal
    blocks and only the gaps around them are aligned with difflib; without anchors the
    whole region is. Tags are difflib's (``equal``, ``replace``, ``delete``: quote-only
    tokens, ``insert``: source-only tokens); source positions are relative to the
    region. Source-only tokens at either edge are dropped, and a replacement at an
    edge keeps only as many source tokens as it has quote tokens (the ones next to
    the aligned middle), so the passage ends where the quote does.
    """
    quote, source = quote_ids.tolist(), source_ids.tolist()
    ops: list[tuple] = []
    q_at, s_at = 0, 0
    for qs, qe, ps in anchors:
        ops += _gap_ops(quote[q_at:qs], source[s_at : ps - lo], q_at, s_at, budget)
        ops.append(("equal", qs, qe, ps - lo, ps - lo + qe - qs))
        q_at, s_at = qe, ps - lo + qe - qs
    ops += _gap_ops(quote[q_at:], source[s_at:], q_at, s_at, budget)
    merged: list[tuple] = []
    for op in ops:  # adjacent equal blocks read as one
        if merged and op[0] == "equal" == merged[-1][0]:
            merged[-1] = ("equal", merged[-1][1], op[2], merged[-1][3], op[4])
        else:
            merged.append(op)
    ops = merged
    while ops and ops[0][0] == "insert":
        ops.pop(0)
    while ops and ops[-1][0] == "insert":
        ops.pop()
    if ops and ops[0][0] == "replace":
        tag, q1, q2, s1, s2 = ops[0]
        ops[0] = (tag, q1, q2, max(s1, s2 - (q2 - q1)), s2)
    if ops and ops[-1][0] == "replace":
        tag, q1, q2, s1, s2 = ops[-1]
        ops[-1] = (tag, q1, q2, s1, min(s2, s1 + (q2 - q1)))
    return ops
