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
from claimgate.audit.text.negation import NUMBER_WORDS, negation_positions
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
#: Most quote tokens of a ``stitched`` quote in no verbatim piece (a joining word, a changed word).
STITCH_GAP_TOKENS = 2
#: A sentence end: ``.``, ``!`` or ``?``, closing quotes or brackets, then white space or the text's end
#: (see :func:`sentence_end_in`: not before a lower-case letter).
SENTENCE_END_RE = re.compile(r"[.!?][\"'\u201d\u2019)\]]*(?:\s+|$)")


def sentence_end_in(text: str, start: int, end: int) -> bool:
    """Does ``text[start:end]`` hold a sentence end (:data:`SENTENCE_END_RE`)?

    Not when a lower-case letter follows it (``e.g. the``, ``approx. two``): an
    abbreviation, not the end of a sentence. Offsets are characters of ``text``.
    """
    for m in SENTENCE_END_RE.finditer(text, start, end):
        following = text[m.end() : m.end() + 1]
        if m.group()[-1:].isspace() or m.end() == len(text):
            if not following.islower():
                return True
    return False


def removed_is_seam(doc, a: int, b: int, quote_ends_sentence: bool) -> bool:
    """Is leaving out document tokens ``a..b-1`` (tokens ``a - 1`` and ``b`` kept) a seam between sentences?

    Yes when a sentence end lies between two left-out tokens, or on both sides of the
    left-out run (a whole sentence left out), or on one side while the quote has none
    where the run was (``a - 1`` and ``b`` glued into one sentence). Not when the quote
    keeps the sentence end and leaves out only the start or the end of one sentence.
    ``a == b``: nothing left out (two pieces adjacent in the source).
    """
    if a == 0 or b >= len(doc.starts):
        return False
    text, starts, ends = doc.original, doc.starts, doc.ends
    before = sentence_end_in(text, ends[a - 1], starts[a] if b > a else starts[b])
    if b == a:
        return before and not quote_ends_sentence
    inside = b - a > 1 and sentence_end_in(text, ends[a], starts[b - 1])
    after = sentence_end_in(text, ends[b - 1], starts[b])
    return inside or (before and after) or ((before or after) and not quote_ends_sentence)


_OPS = {"replace": "replace", "delete": "insert", "insert": "delete"}  # difflib (quote-side) -> quote's edit


def is_number(token: str) -> bool:
    """A normalized token that states a number: it has a digit (the sign is part of the token), or it is a
    number word of :data:`NUMBER_WORDS` (``twenty-five`` is two tokens, each one). Rules: docs/audit-rules.md,
    "Diagnosis"."""
    return token in NUMBER_WORDS or any(c.isdigit() for c in token)


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
        _, q1, _, s1, s2 = op
        q = self.quote
        quote_ends = 0 < q1 < len(q.starts) and sentence_end_in(q.original, q.ends[q1 - 1], q.starts[q1])
        return removed_is_seam(self.doc, self.lo + s1, self.lo + s2, quote_ends)

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

    def explains_with_less(self, window_chars: int) -> bool:
        """Is the quote an unmarked elision of this passage, or aligned with at most LIGHT_EDIT_MAX_TOKENS edits?"""
        aligns = 2 * self.shared >= len(self.quote.tokens)
        return self.only_elided(window_chars) or (aligns and self.tokens_changed() <= LIGHT_EDIT_MAX_TOKENS)

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


def _changed_in_place(runs: Runs, k: int, blocked) -> list[tuple[int, int, int, int]]:
    """Runs of one diagonal joined across in-place changes of at most STITCH_GAP_TOKENS tokens in all.

    ``(q_start, q_end, p_start, changed tokens)``, only the joined ones (``changed > 0``);
    a change for which ``blocked(k, q1, q2, p1, p2)`` is true (a number or a negation on
    either side) joins nothing.
    """
    rows = sorted(
        zip(runs.q_start.tolist(), runs.q_end.tolist(), runs.p_start.tolist()), key=lambda r: (r[2] - r[0], r[0])
    )
    out: list[list[int]] = []
    for s, e, p in rows:
        last = out[-1] if out else None
        if last is not None and p - s == last[2] - last[0]:
            gap = s - last[1]
            if 0 < gap <= STITCH_GAP_TOKENS - last[3] and not blocked(k, last[1], s, p - gap, p):
                last[1], last[3] = e, last[3] + gap
                continue
        out.append([s, e, p, 0])
    return [(s, e, p, changed) for s, e, p, changed in out if changed]


def stitched_pieces(
    runs_by_doc: list[tuple[int, Runs]], n_quote: int, blocked=None
) -> list[tuple[int, int, int, int]] | None:
    """Fewest verbatim pieces ``(q_start, q_end, p_start, k)`` of >= STITCH_MIN_TOKENS covering the quote, or None.

    ``runs_by_doc``: ``(document number, runs)``, the cited document first. Greedy from
    the quote's start (longest reach first, then the cited document, then the earliest
    document position); at most :data:`STITCH_GAP_TOKENS` quote tokens may be in no
    piece or changed inside one (a piece may hold a word changed in place, when
    ``blocked(k, q1, q2, p1, p2)`` says the change is no number or negation; without
    ``blocked`` pieces are verbatim). ``None`` unless more than one piece is needed.
    """
    candidates = []
    for rank, (k, runs) in enumerate(runs_by_doc):
        long = runs.length >= STITCH_MIN_TOKENS
        qs, qe, ps = runs.q_start[long].tolist(), runs.q_end[long].tolist(), runs.p_start[long].tolist()
        candidates += [(s, e, p, k, rank, 0) for s, e, p in zip(qs, qe, ps)]
        if blocked is not None:
            joined = _changed_in_place(runs, k, blocked)
            candidates += [(s, e, p, k, rank, c) for s, e, p, c in joined if e - s >= STITCH_MIN_TOKENS]
    pieces: list[tuple[int, int, int, int]] = []
    at = gaps = 0
    while at < n_quote:
        best = None
        for s, e, p, k, rank, changed in candidates:
            if s <= at < e and gaps + changed <= STITCH_GAP_TOKENS:
                if best is None or (e, -rank, -changed, -p) > (best[1], -best[4], -best[5], -best[2]):
                    best = (s, e, p, k, rank, changed)
        if best is None:
            gaps += 1
            if gaps > STITCH_GAP_TOKENS:
                return None
            at += 1
            continue
        gaps += best[5]
        pieces.append((at, best[1], best[2] + (at - best[0]), best[3]))
        at = best[1]
    return pieces if len(pieces) > 1 else None


def is_stitch(pieces: list[tuple[int, int, int, int]], docs: dict, cited: int, quote, window_chars: int) -> bool:
    """Are ``pieces`` (:func:`stitched_pieces`) glued from places that are not one passage?

    Yes when a piece is from another document than ``cited``, the next piece starts
    before the previous one ends (out of order), two pieces are more than
    ``window_chars`` original characters apart, or what lies between two pieces is a seam
    (:func:`removed_is_seam`). ``docs``: document number -> indexed document.
    """
    if any(k != cited for *_, k in pieces):
        return True
    doc = docs[cited]
    for (q1, q2, p, _), (r1, r2, p2, _) in zip(pieces, pieces[1:]):
        end = p + (q2 - q1)
        if p2 < end or doc.ends[p2 + (r2 - r1) - 1] - doc.starts[p] > window_chars:
            return True
        quote_ends = sentence_end_in(quote.original, quote.ends[q2 - 1], quote.starts[r1])
        if removed_is_seam(doc, end, p2, quote_ends):
            return True
    return False


def near_miss_kind(comparison: Comparison, pieces: list | None, window_chars: int, stitch: bool = False) -> str:
    """The kind of an aligned comparison, the first in :data:`DIAGNOSIS_KINDS` order that applies.

    ``pieces``: the stitched pieces (:func:`stitched_pieces`) or ``None``; ``stitch``: they
    are glued from places that are not one passage (:func:`is_stitch`). Such a stitch is
    ``stitched`` before any other kind, unless the passage explains the quote with less (it
    is an unmarked elision, or at most LIGHT_EDIT_MAX_TOKENS tokens changed); a quote token
    in no piece that is a number or a negation makes it ``number_changed`` or
    ``negation_changed`` (the quote's own fact, named first).
    ``fabricated`` when the quote shares less than half of its tokens and no other kind applies.
    """
    aligns = 2 * comparison.shared >= len(comparison.quote.tokens)
    if stitch and pieces is not None:
        covered = {t for q1, q2, *_ in pieces for t in range(q1, q2)}
        quote = comparison.quote
        own = [t for t in range(len(quote.tokens)) if t not in covered]
        negations = set(comparison.quote_negations)
        explained = comparison.explains_with_less(window_chars)
        if any(is_number(quote.tokens[t]) for t in own):
            return "number_changed"  # a number of the quote's own, in no piece
        if any(t in negations for t in own):
            return "negation_changed"
        if not explained:
            return "stitched"
    if aligns and comparison.changes_number():
        return "number_changed"
    if aligns and comparison.changes_negation():
        return "negation_changed"
    if comparison.only_elided(window_chars):
        return "unmarked_elision"
    if aligns and comparison.tokens_changed() <= LIGHT_EDIT_MAX_TOKENS:
        return "light_edit"
    if pieces is not None and (stitch or sum(q2 - q1 for q1, q2, *_ in pieces) == len(comparison.quote.tokens)):
        return "stitched"
    if aligns:
        return "paraphrase"
    return "fabricated"
