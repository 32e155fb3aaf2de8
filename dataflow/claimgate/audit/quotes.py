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

The rules in full, with their reasons: docs/audit-rules.md ("Normalization",
"Numbers", "Negation", "Ellipses and brackets", "Minimum evidence"). The parts:
:mod:`claimgate.audit.quote_parsing` (a quote's fragments and segments),
:mod:`claimgate.audit.corpus_index` (documents normalized once, postings),
:mod:`claimgate.audit.alignment` (placements of one fragment),
:mod:`claimgate.audit.fragment_chain` (the chain of fragments) and
:mod:`claimgate.audit.negation` (which tokens negate); this module tries the
readings of a quote's marks and builds the results.

Matching model (see :mod:`claimgate.audit.normalize` for tokens):

- A quote is split at ellipses (``...``, ``…``, ``. . .``, ``[...]``, ``[…]``,
  ``⋯``, ``．．．`` and every spelling NFKC folds to dots) into
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
- An ellipsis must not hide a negation in any listed language
  (:mod:`claimgate.audit.negation`): not in the source text between two fragments, and, for a
  *leading* ellipsis, not in the up to :data:`EDGE_ELISION_TOKENS` (3) source tokens
  just before the first fragment (not crossing the document start), for a
  *trailing* one, not in the up to 3 tokens just after the last fragment
  (``... patients had serious adverse events`` against ``No patients had serious
  adverse events`` is ``elision_drops_negation``); nor hide a token in a script
  with no negator list (``elision_unchecked_script``: fail closed).
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
(a bracket reason, in the order number, inserted negation, dropped negation,
unchecked script; otherwise ``elision_drops_negation`` when the elided tokens hold a
negation, else ``elision_unchecked_script``). With several documents, documents are taken
in sorted ``doc_id`` order. Brackets and ellipses can also be the source's own
(``J[c]=p``, ``[12]``, ``1, 2, ..., n``): marks found among the cited
document's own are read literally first (and do not count for ``match_kind``);
when the editorial reading is not ``found``, the quote is read again with those marks as the source's punctuation
(which must then match verbatim, contiguously; a leading or trailing ellipsis
stays the editor's, with its negation check) and the better verdict is kept (see
:func:`_audit`).

Cost (no exponential case, no quadratic path): the smallest-gap search is a
depth-first search over gap choices with every ``(segment, document position)``
solved once, so one fragment costs at most segments x document tokens x
(BRACKET_MAX_TOKENS + 1) alignments; the chain is a dynamic programme over
placements (smallest reachable chain end per placement, range minima by sparse
table), O(p log p) for p placements. On top, a hard bound: one reading of a quote
may spend at most ``max_steps`` (:data:`MATCH_STEP_LIMIT`, 250,000) on one
document, where a step is one placement or one alignment of up to 16 tokens
compared as bytes (4 compared word by word), so a long segment costs in proportion
to its length and a 1 MB quote against a repetitive document cannot run away; a
quote of one fragment stops at its first clean placement. Over the bound, the
match fails closed: the cited document gives ``not_found`` / ``match_too_complex``
(never ``found``, never ``misattributed``); another document counts as not
matching (so :func:`audit_quote` and :func:`audit_quote_scan`, which look at
different other documents, still agree). Honest quotes use at most 315 steps on the
arXiv benchmark and a few hundred on a 250,000-token document with line-end
hyphens; the worst repetitive cases tried fail closed in about a second.

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
- ``not_found`` / ``elision_unchecked_script``: the only placements elide (or put a
  bracket for, or a bracket holding) text in a script with no negator list
  (Georgian, Armenian, Ethiopic, Tamil, ...), where a hidden negation cannot be seen.
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

from bisect import bisect_left
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from claimgate.audit.alignment import MATCH_STEP_LIMIT, DocumentSearch, Placements, TooComplex
from claimgate.audit.corpus_index import CorpusIndex, IndexedDocument, build_corpus_index
from claimgate.audit.fragment_chain import Link, earliest_chain
from claimgate.audit.negation import NEGATION_WORDS
from claimgate.audit.normalize import normalize_text
from claimgate.audit.quote_parsing import (
    BRACKET_MAX_TOKENS,
    BRACKET_RE,
    BRACKET_READINGS,
    BRACKET_REASONS,
    EDGE_ELISION_TOKENS,
    ELLIPSIS_RE,
    ELLIPSIS_READINGS,
    ParsedQuote,
    fold_ellipses,
    has_fused_bracket,
    insufficient_reason,
    parse_quote,
    source_marks_reading,
)
from claimgate.audit.quote_results import elided_of, spans_of, verdict_row, with_elided

__all__ = [
    "BRACKET_MAX_TOKENS",
    "EDGE_ELISION_TOKENS",
    "MATCH_STEP_LIMIT",
    "NEGATION_WORDS",
    "CorpusIndex",
    "MatchSettings",
    "audit_quote",
    "audit_quote_scan",
    "build_corpus_index",
    "normalize_text",
]


@dataclass(frozen=True)
class MatchSettings:
    """How much evidence a quote needs and how much work matching it may take.

    ``min_tokens``: fewest normalized tokens a quote needs (all fragments together);
    ``min_fragment_tokens``: fewest per ellipsis fragment (see docs/audit-rules.md,
    "Minimum evidence"); ``window_chars``: largest span, in original document
    characters, from the first fragment's first character to the last fragment's
    last character (only for quotes with an ellipsis); ``max_steps``: most matching
    steps per reading of the quote per document (see the module docstring, "Cost").
    """

    min_tokens: int = 4
    min_fragment_tokens: int = 3
    window_chars: int = 2000
    max_steps: int = MATCH_STEP_LIMIT


class _Matcher:
    """Matches one parsed quote (one reading of its marks) against documents of one index."""

    def __init__(self, parsed: ParsedQuote, settings: MatchSettings) -> None:
        self.parsed = parsed
        self.settings = settings
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
        search = DocumentSearch(doc, self.settings.max_steps)
        try:
            return self._match(search)
        except TooComplex:
            return "match_too_complex", []

    def _match(self, search: DocumentSearch) -> tuple[str | None, list[tuple[int, int]]]:
        doc = search.doc
        placements: list[Placements] = []
        # one fragment and no edge ellipsis: the first placement without violations decides
        first_only = len(self.parsed.fragments) == 1 and not (self.parsed.lead_elided or self.parsed.trail_elided)
        for fragment, bites in zip(self.parsed.fragments, self.brackets_bite, strict=True):
            may_break = len(fragment.segments) > 1 and (bites or bool(doc.elision_stops))
            found = search.placements(fragment, may_break, first_only)
            if not found.starts:
                return None, []
            placements.append(found)
        chain = self._chain(search, placements, strict=True)
        if chain is not None:
            return "clean", [(s, e) for s, e, _ in chain]
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


_RANK = {"found": 2, "misattributed": 1}

#: Other documents to look at for a parsed quote (document numbers, ascending).
OtherDocuments = Callable[[ParsedQuote], Iterable[int]]


def _nothing_elided(doc: IndexedDocument, chain: list[tuple[int, int]], parsed: ParsedQuote) -> list[dict]:
    return []  # not asked for: spare the line index


def _no_other_documents(parsed: ParsedQuote) -> Iterable[int]:
    return ()


def _audit(
    quote, cited_doc_id: str, index: CorpusIndex, settings: MatchSettings, others: OtherDocuments, report_elided: bool
) -> dict:
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
    if isinstance(quote, str):
        quote = fold_ellipses(quote)  # every dot spelling an ellipsis, before ellipses are looked for
        cited = index.doc_number(cited_doc_id)
        if cited is not None:
            # marks that are the cited source's own are matched literally first
            doc = index.docs[cited]
            own = source_marks_reading(quote, doc.brackets, doc.has_ellipsis)
            if own is not None:
                # only the cited document: another document's marks are not these
                result = _audit_reading(
                    own, cited_doc_id, index, settings, _no_other_documents, report_elided, "editorial", "editorial"
                )
                if result["verdict"] == "found":
                    return result
    result = _audit_reading(quote, cited_doc_id, index, settings, others, report_elided, "editorial", "editorial")
    if result["verdict"] == "found" or not isinstance(quote, str):
        return result
    bracket_readings = BRACKET_READINGS if BRACKET_RE.search(quote) else BRACKET_READINGS[:1]
    if not has_fused_bracket(quote):  # without a fused letter the second reading is the first one
        bracket_readings = tuple(r for r in bracket_readings if r != "editorial_fused_literal")
    ellipsis_readings = ELLIPSIS_READINGS if ELLIPSIS_RE.search(quote) else ELLIPSIS_READINGS[:1]
    for ellipses in ellipsis_readings:
        for brackets in bracket_readings:
            if (ellipses, brackets) == ("editorial", "editorial"):
                continue
            other = _audit_reading(quote, cited_doc_id, index, settings, others, report_elided, brackets, ellipses)
            if _RANK.get(other["verdict"], 0) > _RANK.get(result["verdict"], 0) or (
                result["reason"] == "no_verbatim_match" and other["reason"] == "match_too_complex"
            ):
                result = other
            if result["verdict"] == "found":
                return result
    return result


def _audit_reading(
    quote,
    cited_doc_id: str,
    index: CorpusIndex,
    settings: MatchSettings,
    others: OtherDocuments,
    report_elided: bool,
    brackets: str,
    ellipses: str,
) -> dict:
    """One reading of the quote's marks: cited document, then ``others(parsed)``.

    A cited document over the step budget decides ``not_found`` /
    ``match_too_complex``; another document over it counts as not matching (so the
    indexed and the scanning audit, which look at different other documents, agree).
    """
    parsed = parse_quote(quote, index.token_id, brackets, ellipses)
    short = insufficient_reason(parsed, settings.min_tokens, settings.min_fragment_tokens)
    if short is not None:
        return with_elided(verdict_row("insufficient_quote", short, None, [], []), [])
    matcher = _Matcher(parsed, settings)
    kind = parsed.match_kind
    elided = elided_of if report_elided else _nothing_elided
    cited = index.doc_number(cited_doc_id)
    negation: str | None = None
    negation_elided: list[dict] = []
    if cited is not None:
        status, chain = matcher.match(index.docs[cited])
        if status == "clean":
            row = verdict_row("found", "verbatim_match", kind, [cited_doc_id], spans_of(index.docs[cited], chain))
            return with_elided(row, elided(index.docs[cited], chain, parsed))
        if status == "match_too_complex":
            return with_elided(verdict_row("not_found", status, None, [], []), [])
        negation = status
        if status is not None:
            negation_elided = elided(index.docs[cited], chain, parsed)
    matched: list[int] = []
    first_chain: list[tuple[int, int]] = []
    other_negation: str | None = None
    for k in others(parsed):
        if k == cited:
            continue
        status, chain = matcher.match(index.docs[k])
        if status == "clean":
            if not matched:
                first_chain = chain
            matched.append(k)
        elif status not in (None, "match_too_complex") and other_negation is None:
            other_negation = status
            if negation is None:
                negation_elided = elided(index.docs[k], chain, parsed)
    if matched:
        reason = "unknown_cited_document" if cited is None else "found_in_other_document"
        ids = [index.doc_ids[k] for k in matched]
        row = verdict_row("misattributed", reason, kind, ids, spans_of(index.docs[matched[0]], first_chain))
        return with_elided(row, elided(index.docs[matched[0]], first_chain, parsed))
    if cited is None:
        return with_elided(verdict_row("not_found", "unknown_cited_document", None, [], []), [])
    reason = negation or other_negation or "no_verbatim_match"
    return with_elided(
        verdict_row("not_found", reason, None, [], []), negation_elided if reason != "no_verbatim_match" else []
    )


def audit_quote(
    quote: str,
    cited_doc_id: str,
    index: CorpusIndex,
    *,
    min_tokens: int = 4,
    min_fragment_tokens: int = 3,
    window_chars: int = 2000,
    max_steps: int = MATCH_STEP_LIMIT,
    report_elided: bool = False,
) -> dict:
    """Audit one quote against its cited document, then (indexed) the rest of the corpus.

    Keyword arguments are the fields of :class:`MatchSettings` (units there).
    Returns ``{"verdict", "reason", "match_kind", "matched_doc_ids", "spans"}`` (see
    the module docstring for the codes); with ``report_elided`` also ``elided``: what
    each ellipsis of the deciding placement leaves out (see :func:`claimgate.audit.quote_results.elided_of`; ``[]``
    when no placement decided). Fails closed: an empty, non-str or
    punctuation-only quote is ``insufficient_quote``/``empty_quote``; an unknown
    ``cited_doc_id`` is never ``found``; a match over ``max_steps`` is never
    ``found``. Rules: docs/audit-rules.md.
    """
    settings = MatchSettings(min_tokens, min_fragment_tokens, window_chars, max_steps)
    result = _audit(
        quote, cited_doc_id, index, settings, lambda parsed: index.candidates(parsed).tolist(), report_elided
    )
    if not report_elided:
        del result["elided"]
    return result


def audit_quote_scan(
    quote: str,
    cited_doc_id: str,
    index: CorpusIndex,
    *,
    min_tokens: int = 4,
    min_fragment_tokens: int = 3,
    window_chars: int = 2000,
    max_steps: int = MATCH_STEP_LIMIT,
    report_elided: bool = False,
) -> dict:
    """Reference audit: the cited document, then every other document one by one.

    Same arguments, units and result as :func:`audit_quote` (which must agree with
    it); no postings are used, only the normalized documents of ``index``.
    """
    settings = MatchSettings(min_tokens, min_fragment_tokens, window_chars, max_steps)
    result = _audit(quote, cited_doc_id, index, settings, lambda parsed: range(len(index.docs)), report_elided)
    if not report_elided:
        del result["elided"]
    return result
