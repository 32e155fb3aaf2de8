"""The answer audit as a Hamilton dataflow: answer → claims → the audit's rows → statuses → verdict.

Nodes: ``answer_document → parsed_answer → answer_claims, citation_table`` (into the audit's
own ``citation_matches → judged_citations → audit_result``), then ``citation_offsets``,
``claim_results`` and ``answer_result``. ``citation_table`` is this module's: compose it with
``audit.stages`` but not ``audit.batching`` (which would provide a second one). Rules:
docs/answer-rules.md.
"""

from __future__ import annotations

import pandas as pd

from claimgate.audit.answer.claims import (
    annotated_markdown,
    answer_verdict,
    claim_detail,
    claim_status,
    offset_check,
)
from claimgate.audit.answer.formats import ParsedAnswer, parse_answer
from claimgate.io.tables import citation_table_frame

CLAIM_COLUMNS = ("claim_id", "kind", "start", "end", "text", "markers", "missing_markers")


def parsed_answer(
    answer_document: object, sent_documents: list | None = None, answer_format: str = "auto"
) -> ParsedAnswer:
    """The answer read into claims and citations (``formats.parse_answer``; ``invalid_answer`` when malformed)."""
    return parse_answer(answer_document, answer_format, sent_documents)


def answer_claims(parsed_answer: ParsedAnswer) -> pd.DataFrame:
    """One row per claim: ``claim_id, kind, text`` (str), ``start, end`` (int64, characters of the answer), and
    ``markers``, ``missing_markers`` (lists of str)."""
    frame = pd.DataFrame(parsed_answer.claims, columns=list(CLAIM_COLUMNS), dtype=object)
    return frame.astype({"start": "int64", "end": "int64"})


def citation_table(parsed_answer: ParsedAnswer) -> pd.DataFrame:
    """The audit's citation table: one row per (claim, citation), ``claim`` the claim's text (what a judge reads)."""
    texts = {c["claim_id"]: c["text"] for c in parsed_answer.claims}
    rows = []
    for c in parsed_answer.citations:
        row = {"citation_id": c["citation_id"], "claim": texts[c["claim_id"]], "quote": c["quote"]}
        if c["doc_id"] is not None:  # no document: an invalid_citation row
            row["doc_id"] = c["doc_id"]
        rows.append(row)
    return citation_table_frame(rows)


def citation_offsets(parsed_answer: ParsedAnswer, source_documents: dict) -> pd.Series:
    """Each citation's provider offset check (``claims.offset_check``: dict or None), in citation order."""
    values = [
        offset_check(c["location"], c["quote"], source_documents.get(c["doc_id"]) if c["doc_id"] else None)
        for c in parsed_answer.citations
    ]
    return pd.Series(values, dtype=object)


def claim_results(parsed_answer: ParsedAnswer, audit_result: pd.DataFrame, citation_offsets: pd.Series) -> list[dict]:
    """Every claim with ``status``, ``reason``, ``detail`` and its ``citations``.

    A citation is its audit row (``audit_result``'s columns) plus ``marker``, ``quote``, ``location``, ``offsets``.
    """
    audit_rows = audit_result.drop(columns=["position"]).to_dict("records")
    by_claim: dict[str, list[dict]] = {}
    for cited, row, offsets in zip(parsed_answer.citations, audit_rows, citation_offsets):
        row = {
            **row,
            "model_calls": int(row["model_calls"]),
            "marker": cited["marker"],
            "quote": cited["quote"],
            "location": cited["location"],
            "offsets": offsets,
        }
        by_claim.setdefault(cited["claim_id"], []).append(row)
    results = []
    for claim in parsed_answer.claims:
        citations = by_claim.get(claim["claim_id"], [])
        status, reason = claim_status(claim, citations)
        detail = claim_detail(claim, citations, reason)
        results.append({**claim, "status": status, "reason": reason, "detail": detail, "citations": citations})
    return results


def answer_result(parsed_answer: ParsedAnswer, claim_results: list[dict], uncited_policy: str = "strict") -> dict:
    """The answer's verdict and claims as one dict.

    Keys: ``verdict, reason, policy, format, failing_claims, unused_markers, claims, text, annotated``.

    ``verdict`` is ``accepted`` or ``refused`` (``claims.answer_verdict`` under ``uncited_policy``);
    ``annotated`` the answer as Markdown with every failing claim marked in place.
    """
    verdict, reason, failing = answer_verdict(claim_results, uncited_policy)
    return {
        "verdict": verdict,
        "reason": reason,
        "policy": uncited_policy,
        "format": parsed_answer.format,
        "failing_claims": failing,
        "unused_markers": parsed_answer.unused_markers,
        "claims": claim_results,
        "text": parsed_answer.text,
        "annotated": annotated_markdown(parsed_answer.text, claim_results),
    }
