"""Alignment: where each fragment of a quote can be placed in one document.

Why this module exists: a fragment is literal segments with bracketed editor's
text between them; each bracket stands for 0 to ``BRACKET_MAX_TOKENS`` source
tokens. This module finds, for every start in a document, the smallest bracket
gaps that match, and records which rule a placement breaks (as violation bits);
the chain of fragments is chosen elsewhere (:mod:`claimgate.audit.matching.fragment_chain`).

What it refuses to do: it never spends more than its step budget on one document:
over it, :class:`TooComplex` is raised and the caller fails closed
(``match_too_complex``). Cost model: docs/audit-rules.md, "Ellipses and brackets" ("Cost").
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from claimgate.audit.index.types import IndexedDocument
from claimgate.audit.matching.code_and_case import bracketed_in_source, code_regions, in_code
from claimgate.audit.matching.deciding import INSERTS_VALUE, REPLACES_VALUE, added_bits, gap_bits
from claimgate.audit.matching.identifier_case import same_identifier_case
from claimgate.audit.matching.quote_parsing import (
    BRACKET_MAX_TOKENS,
    CHANGES_NUMBER,
    COVERS_UNCHECKED_SCRIPT,
    DROPS_NEGATION,
    INSERTS_NEGATION,
    Bracket,
    Fragment,
    Segment,
)
from claimgate.audit.text.reference import JoinedWord

#: Most steps that one reading of a quote may spend on one document. A step is one
#: fragment placement, or one alignment of a segment at a document position, where an
#: alignment costs one step per started :data:`BYTE_TOKENS_PER_STEP` tokens compared as
#: bytes (or :data:`WORD_TOKENS_PER_STEP` compared word by word, when line-end hyphens
#: make a word-by-word walk necessary). Matching is polynomial (at most segments x
#: document tokens x (BRACKET_MAX_TOKENS + 1) alignments per fragment); this is the
#: hard bound on top, and because long segments cost in proportion to their length it
#: also bounds the time of a huge quote against a repetitive document (no quadratic
#: path). A document that needs more is not matched: ``not_found`` /
#: ``match_too_complex`` if it is the cited one.
MATCH_STEP_LIMIT = 250_000
#: Tokens one step may compare as int32 bytes (a C ``memcmp``).
BYTE_TOKENS_PER_STEP = 16
#: Tokens one step may compare word by word (a Python loop).
WORD_TOKENS_PER_STEP = 4

_MISS = object()  # memo miss


class TooComplex(Exception):
    """The step budget of one reading of a quote on one document is spent."""


class Placements(NamedTuple):
    """A fragment's placements in one document, one per start (ascending).

    ``starts[j]``/``ends[j]``: token positions (end exclusive); ``violations[j]``:
    violation bits of its brackets (0: clean).
    """

    starts: list[int]
    ends: list[int]
    violations: list[int]


def occurrences(hay: bytes, needle: bytes) -> Iterator[int]:
    """Token positions (ascending) where the int32 token string ``needle`` occurs in ``hay``.

    Lazy, so a caller that stops early (or runs out of steps) does not pay for the rest.
    """
    i = hay.find(needle)
    while i != -1:
        misalignment = i & 3
        if misalignment == 0:
            yield i >> 2
            i = hay.find(needle, i + 4)
        else:
            i = hay.find(needle, i + 4 - misalignment)


def find_all(hay: bytes, needle: bytes) -> list[int]:
    """Every position of :func:`occurrences`, as a list."""
    return list(occurrences(hay, needle))


def alignment_steps(segment: Segment, by_bytes: bool) -> int:
    """Steps one alignment of ``segment`` costs (see :data:`MATCH_STEP_LIMIT`)."""
    per_step = BYTE_TOKENS_PER_STEP if by_bytes else WORD_TOKENS_PER_STEP
    return 1 + (len(segment.token_ids) - 1) // per_step


def align_segment(
    segment: Segment, doc_ids, doc_joined: dict[int, tuple[JoinedWord, ...]], position: int, n_tokens: int
) -> int:
    """Match ``segment`` at document token ``position``; position after the match or -1.

    Each step has at most one way to succeed (equal tokens; several document parts
    joined equal one quote token; several quote parts joined equal one document
    token), so no backtracking is needed.
    """
    quote_ids = segment.token_ids
    quote_joined = segment.joined_words
    m = len(quote_ids)
    p = position
    j = 0
    while j < m:
        if p < n_tokens and doc_ids[p] == quote_ids[j]:
            p += 1
            j += 1
            continue
        for word_id, end in doc_joined.get(p, ()):
            if word_id == quote_ids[j]:
                p = end
                j += 1
                break
        else:
            for word_id, end in quote_joined.get(j, ()):
                if p < n_tokens and word_id == doc_ids[p]:
                    j = end
                    p += 1
                    break
            else:
                return -1
    return p


def _holds(positions, lo: int, hi: int) -> bool:
    """True if the ascending ``positions`` hold one in ``lo..hi-1``."""
    at = bisect_left(positions, lo)
    return at < len(positions) and positions[at] < hi


class DocumentSearch:
    """One reading of a quote searched in one document: step budget, memos, negations."""

    def __init__(self, doc: IndexedDocument, max_steps: int, strings: Sequence[str] | None = None) -> None:
        self.doc = doc
        self.strings = strings  # the index's token strings (by id): the deciding-word and value checks
        self._code: list[tuple[int, int]] | None = None  # the document's code regions, found on first use
        self.n = doc.n_tokens
        self.budget = max_steps
        self._doc_ids: memoryview | None = None

    @property
    def doc_ids(self) -> memoryview:
        """The document's token ids (int32), made on first use: most searches compare bytes only."""
        if self._doc_ids is None:
            self._doc_ids = memoryview(self.doc.token_bytes).cast("i")
        return self._doc_ids

    def spend(self, steps: int = 1) -> None:
        """Take ``steps`` from the budget; :class:`TooComplex` once it is overdrawn."""
        self.budget -= steps
        if self.budget < 0:
            raise TooComplex

    def negated(self, lo: int, hi: int) -> bool:
        """True if document tokens ``lo..hi-1`` hold a negation."""
        return _holds(self.doc.negations, lo, hi)

    def stopped(self, lo: int, hi: int) -> bool:
        """True if document tokens ``lo..hi-1`` hold an elision stop (a negation or an unchecked-script token)."""
        return _holds(self.doc.elision_stops, lo, hi)

    def align(self, segment: Segment, position: int) -> int:
        """:func:`align_segment` for its steps; a byte comparison when neither side has joined words."""
        by_words = bool(segment.joined_words or self.doc.joined_words)
        self.spend(alignment_steps(segment, not by_words))
        if by_words:
            return align_segment(segment, self.doc_ids, self.doc.joined_words, position, self.n)
        end = position + len(segment.token_ids)
        return end if end <= self.n and self.doc.token_bytes[4 * position : 4 * end] == segment.needle else -1

    def gap_violations(self, bracket: Bracket, p: int, q: int) -> int:
        """Violation bits of ``bracket`` standing for document tokens ``p..q-1``."""
        bits = 0
        covered_negation = self.negated(p, q)
        if covered_negation and not bracket.negates:
            bits |= DROPS_NEGATION
        if bracket.negates and (bracket.degree or not covered_negation):
            bits |= INSERTS_NEGATION  # "[hardly]" never stands in for a source "not" (nor for "hardly")
        if bracket.unchecked or (
            self.doc.elision_stops is not self.doc.negations and not covered_negation and self.stopped(p, q)
        ):
            bits |= COVERS_UNCHECKED_SCRIPT  # it may negate in a script nothing here reads
        if bracket.numbers:
            covered = set(self.doc_ids[p:q])
            if not covered.issuperset(bracket.numbers):
                bits |= CHANGES_NUMBER
        if q == p:
            bits |= bracket.adds  # an insertion: its text may add no fact (deciding.added_bits)
        if self.strings is not None:
            if q > p:
                covered_strings = [self.strings[i] for i in self.doc_ids[p:q]]
                bits |= gap_bits(covered_strings, bracket.tokens)
                if bracket.adds:  # what it adds to the words it stands for: code written in it too (``[os.path]``)
                    bits |= added_bits(bracket.tokens, covered_strings)
                    if bracket.adds & INSERTS_VALUE and not {t.casefold() for t in bracket.tokens} <= {
                        t.casefold() for t in covered_strings
                    }:
                        bits |= INSERTS_VALUE
            if self._code is None:
                self._code = code_regions(self.doc.original)
            at = self.doc.starts[p] if p < self.n else len(self.doc.original)
            if self._code and (in_code(self._code, at) or (q > p and in_code(self._code, self.doc.ends[q - 1] - 1))):
                bits |= REPLACES_VALUE  # a bracket in the source's code is the code's own text
        if not bits & REPLACES_VALUE and bracketed_in_source(self.doc.original, self.doc.starts, self.doc.ends, p, q):
            bits |= REPLACES_VALUE  # the source's own bracket: the quote's must match it literally
        return bits

    def smallest_gaps(self, fragment: Fragment, memo: dict, p0: int, strict: bool) -> tuple[int, int] | None:
        """``(end, bits)`` of the smallest-gap match of segments ``1..`` after a bracket at ``p0``.

        Gap sequences are tried in lexicographic order (smallest gaps first), as a
        depth-first search over the gaps would, but each ``(segment, position)`` is
        solved once (``memo``), so a fragment costs at most segments x positions x
        (BRACKET_MAX_TOKENS + 1) alignments. ``strict``: only gaps whose bracket breaks
        no rule (bits 0); otherwise any gap, with the bits of the gaps used.
        """
        segments, brackets, n = fragment.segments, fragment.brackets, self.n
        last = len(segments) - 1
        if last == 0:
            return p0, 0
        hit = memo.get((1, p0), _MISS)
        if hit is not _MISS:
            return hit
        # an explicit stack, not recursion: a quote may have hundreds of brackets
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
                e = self.align(segments[i], q)
                if e < 0:
                    continue
                bits = self.gap_violations(brackets[i - 1], p, q)
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

    def case_kept(self, fragment: Fragment, s: int, e: int) -> bool:
        """Does the placement ``s..e-1`` keep the case of the fragment's code tokens (docs/audit-rules.md, "Case")?"""
        if fragment.written is None:
            return True
        doc = self.doc
        return same_identifier_case(fragment.written, doc.original, doc.starts, doc.ends, s, e)

    def placements(self, fragment: Fragment, may_break: bool, first_only: bool = False) -> Placements:
        """Starts (ascending), ends and violation bits of ``fragment``'s placements, one per start.

        At one start the smallest bracket gaps breaking no rule are used, else the
        smallest gaps at all (with their bits). ``may_break``: some gap can break a
        rule here (otherwise the second search would repeat the first).
        ``first_only``: stop at the first placement without violation bits, or at the
        first of all when none can be clean (enough when this fragment is the whole
        quote: the chain takes the first placement it may use, see
        :func:`claimgate.audit.matching.fragment_chain.earliest_chain`).
        Each start costs the steps of its first alignment, spent as it is tried.
        """
        out = Placements([], [], [])
        if not fragment.segments:
            return out
        first = fragment.segments[0]
        doc = self.doc
        exact = not first.joined_words and not doc.joined_words
        if exact:
            starts: Iterable[int] = occurrences(doc.token_bytes, first.needle)
        elif 0 in first.unjoined_positions:
            # the quote's leading unjoined tokens occur as bytes, unless a joined document
            # word is read inside them: then the start is at most ``prefix - 1`` before it
            prefix = 1
            while prefix in first.unjoined_positions:
                prefix += 1
            near_joins = {p for j in doc.joined_words for p in range(max(0, j - prefix + 1), j + 1)}
            starts = sorted(set(occurrences(doc.token_bytes, first.needle[: 4 * prefix])) | near_joins)
        else:
            starts = range(self.n)
        start_steps = alignment_steps(first, exact)  # each start: its first alignment included
        width = len(first.token_ids)
        if exact and len(fragment.segments) == 1:
            for s in starts:
                self.spend(start_steps)
                if not self.case_kept(fragment, s, s + width):
                    continue
                out.starts.append(s)
                out.ends.append(s + width)
                out.violations.append(fragment.edge_violations)
                if first_only:  # all placements here have the same bits: the first decides
                    break
            return out
        strict_memo: dict = {}
        loose_memo: dict = {}
        doc_ids = None if exact else self.doc_ids
        for s in starts:
            self.spend(start_steps)
            e = s + width if exact else align_segment(first, doc_ids, doc.joined_words, s, self.n)
            if e < 0:
                continue
            best = self.smallest_gaps(fragment, strict_memo, e, strict=True)
            if best is None and may_break:
                best = self.smallest_gaps(fragment, loose_memo, e, strict=False)
            if best is not None and self.case_kept(fragment, s, best[0]):
                out.starts.append(s)
                out.ends.append(best[0])
                out.violations.append(best[1] | fragment.edge_violations)
                if first_only and (not out.violations[-1] or fragment.edge_violations):
                    break  # clean, or no placement can be (its edge brackets break a rule)
        return out
