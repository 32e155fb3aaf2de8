"""Auditing one quote: its readings, the cited document, then the rest of the corpus.

Why this module exists: a quote is only evidence if the cited document says
exactly that, and a real quote cited to the wrong document is *misattributed*, not
fabricated. This module is the orchestrator: it takes the readings of a quote's
marks as :func:`claimgate.audit.matching.quote_parsing.quote_readings` hands them
down, asks :class:`claimgate.audit.matching.matcher.Matcher` about the cited
document and the candidate documents, keeps the best verdict and builds the row
(:mod:`claimgate.audit.matching.results`).

What it refuses to do: accept a paraphrase, a near match or a frankenquote; an
unknown cited document is never ``found`` and a match over the step budget is never
``found``. The rules, with their reasons and the module that enforces each:
docs/audit-rules.md ("Verdicts and reason codes", "Placement", "Cost").
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass

from claimgate.audit.index.types import CorpusIndex, IndexedDocument
from claimgate.audit.matching.alignment import MATCH_STEP_LIMIT
from claimgate.audit.matching.candidates import candidate_documents
from claimgate.audit.matching.deciding import at_deciding_word
from claimgate.audit.matching.matcher import DocumentTokens, Matcher
from claimgate.audit.matching.quote_parsing import ParsedQuote, Reading, insufficient_reason, quote_readings
from claimgate.audit.matching.results import elided_of, spans_of, verdict_row, with_elided
from claimgate.audit.matching.settings import MatchSettings

__all__ = ["MatchSettings", "audit_quote", "audit_quote_reference"]

_RANK = {"found": 2, "misattributed": 1}

#: Other documents to look at for a parsed quote (document numbers, ascending).
OtherDocuments = Callable[[ParsedQuote], Iterable[int]]


def _nothing_elided(doc: IndexedDocument, chain: list[tuple[int, int]], parsed: ParsedQuote) -> list[dict]:
    return []  # not asked for: spare the line index


def _no_other_documents(parsed: ParsedQuote) -> Iterable[int]:
    return ()


@dataclass(frozen=True)
class _Citation:
    """What stays the same across the readings of one quote: where it is cited and how to match."""

    cited_doc_id: str
    index: CorpusIndex
    settings: MatchSettings
    others: OtherDocuments
    report_elided: bool


def _audit(quote, citation: _Citation) -> dict:
    """The readings of the quote's marks, in order, until one is ``found``.

    Otherwise the first reading with the best verdict wins (found > misattributed >
    the editorial result, which keeps its reason, e.g. ``elision_drops_negation``,
    except that a ``no_verbatim_match`` gives way to a ``match_too_complex`` of
    another reading: that reading was not decided, so "nowhere" is not known). The
    reading of the cited document's own marks counts only if it is ``found``.
    """
    index = citation.index
    cited = index.doc_number(citation.cited_doc_id)
    source = index.docs[cited] if cited is not None and isinstance(quote, str) else None
    brackets = source.brackets if source is not None else None
    readings = quote_readings(
        quote, index.token_id, brackets, source is not None and source.has_ellipsis, index.case_variants
    )
    result: dict | None = None
    for reading in readings:
        other = _audit_reading(reading, citation)
        if other["verdict"] == "found":
            return other
        if reading.cited_only:
            continue
        if result is None or (
            _RANK.get(other["verdict"], 0) > _RANK.get(result["verdict"], 0)
            or (result["reason"] == "no_verbatim_match" and other["reason"] == "match_too_complex")
        ):
            result = other
    assert result is not None  # the editorial reading is always handed down
    return result


def _audit_reading(reading: Reading, citation: _Citation) -> dict:
    """One reading of the quote's marks: cited document, then ``citation.others(parsed)``.

    A cited document over the step budget decides ``not_found`` /
    ``match_too_complex``; another document over it counts as not matching (so the
    indexed and the reference audit, which look at different other documents, agree).
    A ``cited_only`` reading looks at the cited document alone.
    """
    parsed, index, settings = reading.parsed, citation.index, citation.settings
    short = insufficient_reason(parsed, settings.min_tokens, settings.min_fragment_tokens)
    if short is not None:
        return with_elided(verdict_row("insufficient_quote", short, None, [], []), [])
    others = _no_other_documents if reading.cited_only else citation.others
    matcher = Matcher(parsed, settings, index.strings)
    kind = parsed.match_kind
    elided = elided_of if citation.report_elided else _nothing_elided
    cited_doc_id = citation.cited_doc_id
    cited = index.doc_number(cited_doc_id)
    negation: str | None = None
    negation_elided: list[dict] = []
    if cited is not None:
        status, chain = matcher.match(index.docs[cited])
        if status == "clean":
            reason = "verbatim_match"
            doc = index.docs[cited]
            tokens = DocumentTokens(memoryview(doc.token_bytes).cast("i"), index.strings)
            if at_deciding_word(tokens, doc.negations, chain, parsed.lead_elided, parsed.trail_elided):
                reason = "verbatim_match_at_deciding_word"  # found, with a context warning
            row = verdict_row("found", reason, kind, [cited_doc_id], spans_of(doc, chain))
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


def _row(quote, citation: _Citation) -> dict:
    """The audit's result row; ``elided`` only when the citation asks for it."""
    result = _audit(quote, citation)
    if not citation.report_elided:
        del result["elided"]
    return result


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
    other_documents: bool = True,
) -> dict:
    """Audit one quote against its cited document, then (indexed) the rest of the corpus.

    Keyword arguments are the fields of :class:`MatchSettings` (units there); ``other_documents=False``
    decides in the cited document alone (``found`` or not, never ``misattributed``: a recheck indexes only
    the changed documents, so a lookup in the others would be a lookup in a part of the corpus).
    Returns ``{"verdict", "reason", "match_kind", "matched_doc_ids", "spans"}`` (see
    docs/audit-rules.md, "Verdicts and reason codes"); with ``report_elided`` also
    ``elided``: what each ellipsis of the deciding placement leaves out (see
    :func:`claimgate.audit.matching.results.elided_of`; ``[]`` when no placement
    decided). Fails closed: an empty, non-str or punctuation-only quote is
    ``insufficient_quote``/``empty_quote``; an unknown ``cited_doc_id`` is never
    ``found``; a match over ``max_steps`` is never ``found``.
    """
    settings = MatchSettings(min_tokens, min_fragment_tokens, window_chars, max_steps)
    others = lambda parsed: candidate_documents(index, parsed).tolist() if other_documents else []  # noqa: E731
    return _row(quote, _Citation(cited_doc_id, index, settings, others, report_elided))


def audit_quote_reference(
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

    The executable specification of :func:`audit_quote`: same arguments, units and
    result, held equal by the tests (tests/audit/matching/test_quotes.py,
    test_real_input_kinds.py and tests/audit/text/test_negation_gaps.py); no postings are
    used, only the normalized documents of ``index``.
    """
    settings = MatchSettings(min_tokens, min_fragment_tokens, window_chars, max_steps)
    others = lambda parsed: range(len(index.docs))  # noqa: E731
    return _row(quote, _Citation(cited_doc_id, index, settings, others, report_elided))
