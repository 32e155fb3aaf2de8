"""The near-miss kinds of a rejected citation, and the facts of one alignment they are decided on.

Why this module exists: a rejected quote says ``not_found / no_verbatim_match`` and
nothing more, yet most rejected quotes are not inventions: a number or a negation
changed, words dropped without a mark, two pieces glued together, a paraphrase. The
kinds, their order and their bounds live here, once; the passage they are decided
against comes from :mod:`claimgate.audit.diagnosis.nearest_passage`, the citation
from :mod:`claimgate.audit.diagnosis.diagnose`. Rules: docs/audit-rules.md,
"Diagnosis" ("Kinds").

What it refuses to do: change a verdict, or read a document beyond the aligned region.
"""

from __future__ import annotations

import re
from bisect import bisect_left

from claimgate.audit.diagnosis.nearest_passage import Runs
from claimgate.audit.text.negation import negation_positions
from claimgate.audit.text.reference import NormalizedText

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
#: Most steps one citation's diagnosis may spend (a step: see :mod:`claimgate.audit.diagnosis.nearest_passage`).
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
SENTENCE_END_RE = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?:\s|$)")
_OPS = {"replace": "replace", "delete": "insert", "insert": "delete"}  # difflib (quote-side) -> quote's edit


def is_number(token: str) -> bool:
    """A normalized token that states a number (has a digit; the sign is part of the token)."""
    return any(c.isdigit() for c in token)


def count_in(positions, lo: int, hi: int) -> int:
    """How many of the ascending ``positions`` lie in ``[lo, hi)``."""
    return bisect_left(positions, hi) - bisect_left(positions, lo)


def _span(starts, ends, lo: int, hi: int, leading: bool = False) -> tuple[int, int]:
    """Original characters of tokens ``lo..hi-1``.

    An empty range is a point: after token ``lo - 1``, or, when ``leading`` (or at the
    text's start), before token ``lo``.
    """
    if hi > lo:
        return int(starts[lo]), int(ends[hi - 1])
    point = int(starts[lo]) if (leading or lo == 0) and lo < len(starts) else int(ends[lo - 1])
    return point, point


class Comparison:
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
        return bool(SENTENCE_END_RE.search(gap))

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


def stitched_pieces(runs: Runs, n_quote: int) -> list[tuple[int, int, int]] | None:
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


def near_miss_kind(comparison: Comparison, pieces: list | None, window_chars: int) -> str:
    """The kind of an aligned comparison, the first in :data:`DIAGNOSIS_KINDS` order that applies.

    ``pieces``: the stitched pieces (:func:`stitched_pieces`) or ``None``; ``fabricated``
    when the quote shares less than half of its tokens and no other kind applies.
    """
    aligns = 2 * comparison.shared >= len(comparison.quote.tokens)
    if aligns and comparison.changes_number():
        return "number_changed"
    if aligns and comparison.changes_negation():
        return "negation_changed"
    if comparison.only_elided(window_chars):
        return "unmarked_elision"
    if aligns and comparison.tokens_changed() <= LIGHT_EDIT_MAX_TOKENS:
        return "light_edit"
    if pieces is not None:
        return "stitched"
    if aligns:
        return "paraphrase"
    return "fabricated"
