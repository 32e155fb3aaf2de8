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

from array import array
from collections.abc import Sequence

from claimgate.audit.index.types import IndexedDocument
from claimgate.audit.matching.alignment import DocumentSearch, Placements, TooComplex, _holds
from claimgate.audit.matching.code_and_case import SOURCE_OPENERS, punctuation, source_is_code_shaped
from claimgate.audit.matching.code_runs import CODE_RUN_REASON, same_code_marks
from claimgate.audit.matching.deciding import bites, elision_reason
from claimgate.audit.matching.fragment_chain import Link, earliest_chain
from claimgate.audit.matching.quote_parsing import BRACKET_REASONS, EDGE_ELISION_TOKENS, ParsedQuote
from claimgate.audit.matching.settings import MatchSettings
from claimgate.audit.matching.value_clauses import elides_whole_clauses, value_clauses
from claimgate.audit.text.marks import FOOTNOTE_RE


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
        self.brackets_bite = [
            any(b.negates or b.numbers or b.unchecked or b.adds for b in f.brackets) for f in parsed.fragments
        ]
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
            status, spans = self._match(search)
        except TooComplex:
            return "match_too_complex", []
        if status == "clean" and not self._same_punctuation(doc, spans):
            return None, []  # a code-shaped quote with other punctuation: not this text
        if status == "clean" and not self._same_code_runs(doc, spans):
            # docs/audit-rules.md, "Punctuation in code runs": a later placement may keep them
            try:
                kept = self._chain_keeping_code_runs(search)
            except TooComplex:
                kept = None
            return kept if kept is not None else (CODE_RUN_REASON, spans)
        return status, spans

    def _same_punctuation(self, doc: IndexedDocument, spans: list[tuple[int, int]]) -> bool:
        """Does every fragment keep the punctuation of its source span where either is code-shaped?"""
        fragments = self.parsed.fragments
        return all(self._keeps_punctuation(f, doc, s, e) for f, (s, e) in zip(fragments, spans, strict=True))

    def _same_code_runs(self, doc: IndexedDocument, spans: list[tuple[int, int]]) -> bool:
        """Does every fragment without an editor's bracket keep the marks of the source's code runs?"""
        return all(self._keeps_code_runs(f, doc, s, e) for f, (s, e) in zip(self.parsed.fragments, spans, strict=True))

    @staticmethod
    def _keeps_punctuation(fragment, doc: IndexedDocument, s: int, e: int) -> bool:
        """Where the quote or the source span ``s..e-1`` is code-shaped, is the span's punctuation the fragment's?
        Rule: docs/audit-rules.md, "Brackets in code and values" (a quote shaped like code)."""
        if fragment.punctuation is None or e <= s:
            return True
        written = fragment.punctuation.marks
        text = doc.original[doc.starts[s] : doc.ends[e - 1]]
        if (fragment.punctuation.code or source_is_code_shaped(text)) and punctuation(text) != written:
            # a quote may leave a footnote marker out: docs/audit-rules.md, "Footnote markers"
            return bool(FOOTNOTE_RE.search(text)) and punctuation(FOOTNOTE_RE.sub("", text)) == written
        return True

    @staticmethod
    def _keeps_code_runs(fragment, doc: IndexedDocument, s: int, e: int) -> bool:
        """Does the source span ``s..e-1`` have the fragment's code-run marks (docs/audit-rules.md, "Punctuation in
        code runs")?"""
        if fragment.punctuation is None or e <= s:
            return True
        return same_code_marks(fragment.punctuation.runs, doc.original, doc.starts[s], doc.ends[e - 1])

    def _chain_keeping_code_runs(self, search: DocumentSearch) -> tuple[str, list[tuple[int, int]]] | None:
        """The earliest strict chain of placements that keep the punctuation and the code runs, or ``None``."""
        doc = search.doc
        placements = [search.placements(fragment, True) for fragment in self.parsed.fragments]
        mask = [
            [
                self._keeps_code_runs(f, doc, s, e) and self._keeps_punctuation(f, doc, s, e)
                for s, e in zip(p.starts, p.ends, strict=True)
            ]
            for f, p in zip(self.parsed.fragments, placements, strict=True)
        ]
        chain = self._chain(search, placements, strict=True, mask=mask)
        return None if chain is None else self._clean_or_refused(search, chain)

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
            return self._clean_or_refused(search, chain)
        if not any(any(p.violations) for p in placements) and not doc.elision_stops:
            return None, []  # nothing strict refused: the loose chain is the same (none)
        chain = self._chain(search, placements, strict=False)
        if chain is None:
            return None, []
        bits = 0
        for _, _, violations in chain:
            bits |= violations
        reason = next((r for bit, r in BRACKET_REASONS if bits & bit), None) or self._elision_reason(search, chain)
        if reason == "elision_drops_negation" and self.strings is not None:
            honest = self._chain_over_value_clauses(search, placements)
            if honest is not None:
                return self._clean_or_refused(search, honest)
        return reason, [(s, e) for s, e, _ in chain]

    def _clean_or_refused(self, search: DocumentSearch, chain: list[Link]) -> tuple[str, list[tuple[int, int]]]:
        """``"clean"`` for a strict chain, or the deciding-word reason its ellipses are refused for."""
        spans = [(s, e) for s, e, _ in chain]
        parsed = self.parsed
        if self.strings is not None and (len(spans) > 1 or parsed.lead_elided or parsed.trail_elided):
            tokens = DocumentTokens(search.doc_ids, self.strings)
            refused = elision_reason(tokens, spans, parsed.lead_elided, parsed.trail_elided)
            if refused is not None:
                return refused, spans
        return "clean", spans

    def _chain_over_value_clauses(self, search: DocumentSearch, placements: list[Placements]) -> list[Link] | None:
        """The earliest strict chain whose elided negations all lie in wholly elided alternative-value clauses.

        A negation in such a clause (``, or None for no limit,``) scopes over the clause
        only (docs/audit-rules.md, "Alternative-value clauses"): it stops no ellipsis that
        hides the whole clause. ``None`` if there is no such chain.
        """
        doc = search.doc
        lo = max(0, min(p.starts[0] for p in placements) - EDGE_ELISION_TOKENS)
        hi = min(search.n, max(p.ends[-1] for p in placements) + EDGE_ELISION_TOKENS)
        tokens = DocumentTokens(search.doc_ids, self.strings)
        clauses = value_clauses(tokens, doc.original, doc.starts, doc.ends, doc.negations, lo, hi)
        if not clauses:
            return None
        stops = array("i", [p for p in doc.elision_stops if p not in clauses])
        # kept text may not end inside a clause before its negation, nor resume inside it after it
        ends_in = [range(first + 1, p + 1) for p, (first, _) in clauses.items()]
        starts_in = [range(p + 1, end) for p, (_, end) in clauses.items()]
        last = len(placements) - 1
        mask = [
            [
                (k == last or not any(e in r for r in ends_in)) and (k == 0 or not any(s in r for r in starts_in))
                for s, e in zip(p.starts, p.ends, strict=True)
            ]
            for k, p in enumerate(placements)
        ]
        chain = self._chain(search, placements, strict=True, stops=stops, mask=mask)
        if chain is None:
            return None
        lead = EDGE_ELISION_TOKENS if self.parsed.lead_elided else 0
        trail = EDGE_ELISION_TOKENS if self.parsed.trail_elided else 0
        if not elides_whole_clauses([(s, e) for s, e, _ in chain], clauses, lead, trail, search.n):
            return None
        return chain

    def _document_bites(self, search: DocumentSearch) -> bool:
        """Does the document hold a value, a deciding word, code or a bracket, which a bracket may not stand for?"""
        if "`" in search.doc.original or "~~~" in search.doc.original:
            return True  # it may have code, where a bracket is never the editor's
        if any(c in search.doc.original for c in SOURCE_OPENERS):
            return True  # a bracket of its own, whose text an editor's bracket may not replace
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
        hides_negation = any(_holds(negations, lo, hi) for lo, hi in elided)
        return "elision_drops_negation" if hides_negation else "elision_unchecked_script"

    def _chain(
        self,
        search: DocumentSearch,
        placements: list[Placements],
        strict: bool,
        stops: array | None = None,
        mask: list[list[bool]] | None = None,
    ) -> list[Link] | None:
        """The earliest chain; ``strict``: placements without violation bits and no elision stop elided.

        ``stops``: the elision stops to use (the document's when ``None``); ``mask``: per
        fragment, which placements may be used at all (all when ``None``).
        """
        doc = search.doc if stops is None else _WithStops(search.doc, stops)
        allowed = [[not (strict and bits) for bits in p.violations] for p in placements]
        if mask is not None:
            allowed = [[a and b for a, b in zip(row, ok, strict=True)] for row, ok in zip(allowed, mask, strict=True)]
        if strict and doc.elision_stops:
            # an edge ellipsis may not hide a negation just beyond the quote's edge
            if self.parsed.lead_elided:
                allowed[0] = [
                    ok and not _holds(doc.elision_stops, max(0, s - EDGE_ELISION_TOKENS), s)
                    for s, ok in zip(placements[0].starts, allowed[0])
                ]
            if self.parsed.trail_elided:
                n = search.n
                allowed[-1] = [
                    ok and not _holds(doc.elision_stops, e, min(n, e + EDGE_ELISION_TOKENS))
                    for e, ok in zip(placements[-1].ends, allowed[-1])
                ]
        if len(placements) > 1:
            search.spend(sum(len(p.starts) for p in placements))  # the programme is linear-logarithmic
        return earliest_chain(doc, placements, allowed, strict, self.settings.window_chars)


class _WithStops:
    """A document read with other elision stops (what :func:`earliest_chain` reads of it)."""

    def __init__(self, doc: IndexedDocument, stops: array) -> None:
        self.starts, self.ends, self.n_tokens, self.elision_stops = doc.starts, doc.ends, doc.n_tokens, stops


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
