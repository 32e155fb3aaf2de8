"""The chain of fragments: one placement per fragment, in order, within the window.

Why this module exists: a quote with ellipses is evidence only if all its
fragments occur in one document, in order, without overlapping, within
``window_chars`` original characters, and (when strict) without a negation elided
between them. Among all such chains the lexicographically earliest one is
reported, so the choice is deterministic.

The programme: from the last fragment back, the smallest end (in original
characters) of any chain completing each placement; the earliest chain is then
read forwards, taking at each fragment the first placement whose best completion
fits the window. It exists twice on purpose: :func:`chain` (numpy and a sparse
table of range minima, O(p log p) for p placements) and its executable
specification :func:`chain_reference` (plain Python, quadratic), which also serves
production for small inputs (:func:`earliest_chain` picks by size);
tests/audit/matching/test_fragment_chain.py holds them equal. Rules:
docs/audit-rules.md, "Ellipses and brackets".
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right

import numpy as np

from claimgate.audit.index.types import IndexedDocument
from claimgate.audit.matching.alignment import Placements

_INF = int(np.iinfo(np.int64).max)
#: Largest sum over adjacent fragments of placement-count products solved with lists.
SMALL_CHAIN_WORK = 4096

#: One link of a chain: ``(start token, end token, violation bits)``.
Link = tuple[int, int, int]


def earliest_chain(
    doc: IndexedDocument, placements: list[Placements], allowed: list[list[bool]], strict: bool, window: int
) -> list[Link] | None:
    """Lexicographically earliest in-order, non-overlapping, in-window chain of allowed placements.

    ``placements[k]`` are fragment ``k``'s placements, ``allowed[k][j]`` says whether
    placement ``j`` may be used; ``strict``: no negation may lie between two
    consecutive links; ``window``: most original characters from the first link's
    first character to the last link's last one. ``None`` if there is no chain.
    """
    if len(placements) == 1:
        starts, ends, violations = placements[0]
        j = next((j for j, ok in enumerate(allowed[0]) if ok), None)
        return None if j is None else [(starts[j], ends[j], violations[j])]
    work = sum(len(a.starts) * len(b.starts) for a, b in zip(placements, placements[1:], strict=False))
    if work <= SMALL_CHAIN_WORK:
        return chain_reference(doc, placements, allowed, strict, window)
    return chain(doc, placements, allowed, strict, window)


def chain_reference(
    doc: IndexedDocument, placements: list[Placements], allowed: list[list[bool]], strict: bool, window: int
) -> list[Link] | None:
    """:func:`earliest_chain` in plain Python: the executable specification of :func:`chain`.

    Quadratic in placements; it also serves production for small inputs. Held equal to
    :func:`chain` by tests/audit/matching/test_fragment_chain.py.
    """
    token_starts, token_ends, n = doc.starts, doc.ends, doc.n_tokens
    negations = doc.elision_stops if strict else ()

    def successors(end: int, next_starts: list[int]) -> tuple[int, int]:
        lo = bisect_left(next_starts, end)
        if not negations:
            return lo, len(next_starts)
        at = bisect_left(negations, end)
        return lo, bisect_right(next_starts, negations[at] if at < len(negations) else n)

    best: list[list[int]] = [[] for _ in placements]  # smallest chain end per placement
    last = placements[-1]
    best[-1] = [token_ends[e - 1] if ok else _INF for e, ok in zip(last.ends, allowed[-1], strict=True)]
    for k in range(len(placements) - 2, -1, -1):
        after, next_starts = best[k + 1], placements[k + 1].starts
        row = []
        for e, ok in zip(placements[k].ends, allowed[k], strict=True):
            lo, hi = successors(e, next_starts) if ok else (0, 0)
            row.append(min(after[lo:hi], default=_INF))
        best[k] = row
    starts, ends, violations = placements[0]
    j = next((j for j, end in enumerate(best[0]) if end - token_starts[starts[j]] <= window), None)
    if j is None:
        return None
    limit = token_starts[starts[j]] + window
    out = [(starts[j], ends[j], violations[j])]
    for k in range(1, len(placements)):
        starts, ends, violations = placements[k]
        lo, hi = successors(out[-1][1], starts)
        j = next(j for j in range(lo, hi) if best[k][j] <= limit)
        out.append((starts[j], ends[j], violations[j]))
    return out


def range_min(values: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
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


def _successor_ranges(doc: IndexedDocument, ends: np.ndarray, next_starts: np.ndarray, strict: bool):
    """Per placement end, the index range ``[lo, hi)`` of next placements that may follow.

    In order and not overlapping (start >= end); ``strict``: no negation elided
    between them (start <= the first negation at or after the end).
    """
    lo = np.searchsorted(next_starts, ends, "left")
    negations = np.frombuffer(doc.elision_stops, dtype=np.intc) if strict else None
    if negations is None or not len(negations):
        return lo, np.full(len(ends), len(next_starts), dtype=np.int64)
    at = np.searchsorted(negations, ends, "left")
    first_negation = np.where(at < len(negations), negations[np.minimum(at, len(negations) - 1)], doc.n_tokens)
    return lo, np.searchsorted(next_starts, first_negation, "right")


def chain(
    doc: IndexedDocument, placements: list[Placements], allowed: list[list[bool]], strict: bool, window: int
) -> list[Link] | None:
    """:func:`earliest_chain` with numpy arrays and range minima (O(p log p) for p placements)."""
    token_starts = np.frombuffer(doc.starts, dtype=np.intc)
    token_ends = np.frombuffer(doc.ends, dtype=np.intc)
    frags = [(np.asarray(p.starts, dtype=np.int64), np.asarray(p.ends, dtype=np.int64)) for p in placements]
    allowed_arrays = [np.asarray(ok, dtype=bool) for ok in allowed]
    best = [np.empty(0, dtype=np.int64)] * len(frags)  # smallest chain end per placement
    best[-1] = np.where(allowed_arrays[-1], token_ends[frags[-1][1] - 1].astype(np.int64), _INF)
    for k in range(len(frags) - 2, -1, -1):
        lo, hi = _successor_ranges(doc, frags[k][1], frags[k + 1][0], strict)
        best[k] = np.where(allowed_arrays[k], range_min(best[k + 1], lo, hi), _INF)
    s = frags[0][0]
    fits = np.flatnonzero(best[0] - token_starts[s] <= window)
    if not len(fits):
        return None
    j = int(fits[0])
    limit = int(token_starts[s[j]]) + window
    out = [(placements[0].starts[j], placements[0].ends[j], placements[0].violations[j])]
    for k in range(1, len(frags)):
        lo, hi = _successor_ranges(doc, np.asarray([out[-1][1]]), frags[k][0], strict)
        lo_k, hi_k = int(lo[0]), int(hi[0])
        j = lo_k + int(np.argmax(best[k][lo_k:hi_k] <= limit))
        out.append((placements[k].starts[j], placements[k].ends[j], placements[k].violations[j]))
    return out
