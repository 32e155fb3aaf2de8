"""Matching one parsed reading of a quote against one indexed document.

Why this module exists: the orchestrator (:mod:`claimgate.audit.matching.audit`)
asks one question per document: is this reading here, cleanly, and if not, which
rule refused its only placements? The placements come from
:mod:`claimgate.audit.matching.alignment`, the chain from
:mod:`claimgate.audit.matching.fragment_chain`; this module decides between the
strict and the loose chain and names the reason. Rules: docs/audit-rules.md,
"Ellipses and brackets", "Negation" and "Cost".

What it refuses to do: build a result row or look at another document.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from claimgate.audit.index.types import IndexedDocument
from claimgate.audit.matching.alignment import DocumentSearch, Placements, TooComplex
from claimgate.audit.matching.deciding import bites, elision_reason
from claimgate.audit.matching.fragment_chain import Link, earliest_chain
from claimgate.audit.matching.quote_parsing import BRACKET_REASONS, EDGE_ELISION_TOKENS, ParsedQuote
from claimgate.audit.matching.settings import MatchSettings


class Matcher:
    """Matches one parsed quote (one reading of its marks) against documents of one index."""

    def __init__(self, parsed: ParsedQuote, settings: MatchSettings, strings: Sequence[str] | None = None) -> None:
        """``strings``: the index's token strings by id (:attr:`CorpusIndex.strings`), for the
        deciding-word and value checks (docs/audit-rules.md, "Deciding words"); ``None`` skips them."""
        self.parsed = parsed
        self.settings = settings
        self.strings = strings
        # an unjoined quote token that no document has: no document can match
        segments = [segment for fragment in parsed.fragments for segment in fragment.segments]
        self.hopeless = any(
            -1 in segment.token_ids and any(segment.token_ids[j] < 0 for j in segment.unjoined_positions)
            for segment in segments
        )
        # segments without joined words: in a document without any, each occurs as its bytes
        self.needles = [segment.needle for segment in segments if not segment.joined_words]
        # per fragment: can a bracket break a rule without a negation in the document?
        self.brackets_bite = [any(b.negates or b.numbers or b.unchecked for b in f.brackets) for f in parsed.fragments]
        self._biting: dict[int, bool] = {}  # token id -> a value or a deciding word's first token

    def match(self, doc: IndexedDocument) -> tuple[str | None, list[tuple[int, int]]]:
        """``("clean" | reason | None, [(start_token, end_token) per fragment])``.

        The reason is a bracket reason, ``elision_drops_negation`` or
        ``match_too_complex`` (the step budget is spent; no chain).
        """
        if self.hopeless:
            return None, []
        if not doc.joined_words:
            for needle in self.needles:
                if needle not in doc.token_bytes:
                    return None, []  # a necessary condition, checked in C
        search = DocumentSearch(doc, self.settings.max_steps, self.strings)
        try:
            return self._match(search)
        except TooComplex:
            return "match_too_complex", []

    def _match(self, search: DocumentSearch) -> tuple[str | None, list[tuple[int, int]]]:
        doc = search.doc
        placements: list[Placements] = []
        # one fragment and no edge ellipsis: the first placement without violations decides
        first_only = len(self.parsed.fragments) == 1 and not (self.parsed.lead_elided or self.parsed.trail_elided)
        doc_bites = None
        for fragment, bracket_bites in zip(self.parsed.fragments, self.brackets_bite, strict=True):
            may_break = len(fragment.segments) > 1 and (bracket_bites or bool(doc.elision_stops))
            if not may_break and len(fragment.segments) > 1 and self.strings is not None:
                if doc_bites is None:
                    doc_bites = self._document_bites(search)
                may_break = doc_bites
            found = search.placements(fragment, may_break, first_only)
            if not found.starts:
                return None, []
            placements.append(found)
        chain = self._chain(search, placements, strict=True)
        if chain is not None:
            spans = [(s, e) for s, e, _ in chain]
            parsed = self.parsed
            if self.strings is not None and (len(spans) > 1 or parsed.lead_elided or parsed.trail_elided):
                tokens = DocumentTokens(search.doc_ids, self.strings)
                refused = elision_reason(tokens, spans, parsed.lead_elided, parsed.trail_elided)
                if refused is not None:
                    return refused, spans
            return "clean", spans
        if not any(any(p.violations) for p in placements) and not doc.elision_stops:
            return None, []  # nothing strict refused: the loose chain is the same (none)
        chain = self._chain(search, placements, strict=False)
        if chain is None:
            return None, []
        bits = 0
        for _, _, violations in chain:
            bits |= violations
        reason = next((r for bit, r in BRACKET_REASONS if bits & bit), None) or self._elision_reason(search, chain)
        return reason, [(s, e) for s, e, _ in chain]

    def _document_bites(self, search: DocumentSearch) -> bool:
        """Does the document hold a value, a deciding word or code, which a bracket may not stand for?"""
        if "`" in search.doc.original or "~~~" in search.doc.original:
            return True  # it may have code, where a bracket is never the editor's
        strings, biting = self.strings, self._biting
        for i in set(search.doc_ids):
            hit = biting.get(i)
            if hit is None:
                hit = biting[i] = bites(strings[i])
            if hit:
                return True
        return False

    def _elision_reason(self, search: DocumentSearch, chain: list[Link]) -> str:
        """``elision_drops_negation`` if the elided source tokens hold a negation, else ``elision_unchecked_script``.

        Called for a chain that only the loose rules allow, so its elided tokens hold an
        elision stop: a negation, or (when none) a token in a script with no negator list.
        """
        if search.doc.elision_stops is search.doc.negations:
            return "elision_drops_negation"
        elided = [(e, s) for (_, e, _), (s, _, _) in zip(chain, chain[1:])]
        if self.parsed.lead_elided:
            elided.append((max(0, chain[0][0] - EDGE_ELISION_TOKENS), chain[0][0]))
        if self.parsed.trail_elided:
            elided.append((chain[-1][1], min(search.n, chain[-1][1] + EDGE_ELISION_TOKENS)))
        negations = search.doc.negations
        hides_negation = any(bisect_left(negations, lo) < bisect_left(negations, hi) for lo, hi in elided)
        return "elision_drops_negation" if hides_negation else "elision_unchecked_script"

    def _chain(self, search: DocumentSearch, placements: list[Placements], strict: bool) -> list[Link] | None:
        """The earliest chain; ``strict``: placements without violation bits and no negation elided."""
        allowed = [[not (strict and bits) for bits in p.violations] for p in placements]
        if strict and search.doc.elision_stops:
            # an edge ellipsis may not hide a negation just beyond the quote's edge
            if self.parsed.lead_elided:
                allowed[0] = [
                    ok and not search.stopped(max(0, s - EDGE_ELISION_TOKENS), s)
                    for s, ok in zip(placements[0].starts, allowed[0])
                ]
            if self.parsed.trail_elided:
                n = search.n
                allowed[-1] = [
                    ok and not search.stopped(e, min(n, e + EDGE_ELISION_TOKENS))
                    for e, ok in zip(placements[-1].ends, allowed[-1])
                ]
        if len(placements) > 1:
            search.spend(sum(len(p.starts) for p in placements))  # the programme is linear-logarithmic
        return earliest_chain(search.doc, placements, allowed, strict, self.settings.window_chars)


class DocumentTokens(Sequence):
    """A document's token strings, read through its token ids (slices only)."""

    def __init__(self, ids: memoryview, strings: Sequence[str]) -> None:
        self.ids, self.strings = ids, strings

    def __len__(self) -> int:
        return len(self.ids)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return [self.strings[i] for i in self.ids[key]]
        return self.strings[self.ids[key]]
