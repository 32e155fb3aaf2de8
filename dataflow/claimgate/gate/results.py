"""Result assembly (Hamilton nodes ``case_decisions``, ``result_parts``, ``gate_result``): shaping only.

These nodes take no decision. Each case's status, reason, error and detail come
from the one stage that decided it (``claimgate.gate.stages``); its ``decided_at`` is
the name of that stage, read from the stages' ``@tag(decides=...)``
(``decision_order.decided_at_by_reason``). What is left is shaping, one node per
step so the picture shows it: every case's decision in case-table order
(``case_decisions``), the per-case lookups results are built from (``result_parts``,
with every parsed claim as a record and as its answer-request JSON), and the result
object of every case (``gate_result``) with its claims, eligible and excluded sources
and, for a ``ready`` case, the prepared answer request. The streamed run's JSON lines
(``result_lines.py``) read the same two lookup nodes. The result object's fields:
``result_object.py`` and docs/gate-rules.md, "Result objects".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from claimgate.gate import decisions
from claimgate.gate.decision_order import decided_at_by_reason
from claimgate.gate.decisions import Stage
from claimgate.gate.result_parts import ClaimRecords, ResultParts, claim_records_of, claim_slices, sources_by_case
from claimgate.gate.schema import ClaimSchema

#: Columns of ``gate_result``, in order.
RESULT_COLUMNS = ("position", "case_id", "status", "reason", "error", "detail", "decided_at", "result")


def case_decisions(
    case_table: pd.DataFrame,
    validated_requests: Stage,
    eligible_sources: Stage,
    directive_errors: Stage,
    missing_sources: Stage,
    conflicting_values: Stage,
    agreed_values: Stage,
) -> pd.DataFrame:
    """Every case's decision from the six deciding stages, in case-table order (index ``position``).

    Columns ``decisions.DECISION_COLUMNS`` (without ``position``, the index) plus
    ``decided_at`` (str: the deciding node). Raises ``AssertionError`` when a case was
    decided by no stage or by two (``decisions.case_decisions``).
    """
    stages = [validated_requests, eligible_sources, directive_errors]
    stages += [missing_sources, conflicting_values, agreed_values]
    return decisions.case_decisions(case_table, stages, decided_at_by_reason())


def result_parts(
    validated_requests: Stage,
    candidate_sources: pd.DataFrame,
    parsed_claims: pd.DataFrame,
    requested_claims: pd.DataFrame,
    missing_sources: Stage,
    agreed_values: Stage,
    claim_schema: ClaimSchema,
    parsed_claim_records: ClaimRecords | None = None,
) -> ResultParts:
    """The lookups each case's result object is built from (``result_parts.ResultParts``), for this batch.

    ``parsed_claim_records``: ``result_parts.claim_records_of(parsed_claims)``, given by a
    streamed run once for the whole table (the lines driver's node
    ``result_lines.parsed_claim_records``, a table constant); built here otherwise.
    """
    # Lookups by position as plain dicts: per-case Series lookups would cost more than the results themselves.
    valid = validated_requests.passed
    fields = ("candidate_ids", "requested_version", "claim_key", "operation")
    requests = dict(zip(valid["position"].tolist(), zip(*(valid[f].tolist() for f in fields))))
    missing_frame = missing_sources.decided
    missing = dict(zip(missing_frame["position"].tolist(), missing_frame["missing_claim_source_ids"]))
    agreed = dict(zip(agreed_values.decided["position"].tolist(), agreed_values.decided["agreed_value"].tolist()))
    claims = parsed_claim_records if parsed_claim_records is not None else claim_records_of(parsed_claims)
    return ResultParts(
        requests=requests,
        missing=missing,
        agreed=agreed,
        claim_records=claims.records,
        claim_jsons=claims.jsons,
        claim_numbers=requested_claims["claim_number"].tolist(),
        claim_slices=claim_slices(requested_claims["position"].to_numpy()),
        sources_by_case=sources_by_case(candidate_sources),
        system_prompt=claim_schema.system_prompt,
    )


def gate_result(case_table: pd.DataFrame, case_decisions: pd.DataFrame, result_parts: ResultParts) -> pd.DataFrame:
    """The decision for every case, assembled into result objects; one row per case in case-table order.

    A ``ready`` case's prepared request takes its system message from ``claim_schema``
    (docs/gate-rules.md, "Claim schemas").

    Columns: ``position`` (int64), ``case_id`` (object: str or None), ``status``,
    ``reason``, ``error`` (``""``, ``GateError`` or ``DirectiveError``), ``detail``,
    ``decided_at`` (str: the deciding node) and ``result`` (object: the JSON-ready
    result object, with ``decided_at``). Per-case Python only slices sorted frames and
    builds each result object (docs/gate-rules.md, "Result objects").
    """
    decided = case_decisions
    result_object = result_parts.result_object
    results = [
        result_object(position, status, error, reason, decided_at)
        for position, status, error, reason, decided_at in zip(
            decided.index.tolist(),
            decided["status"].tolist(),
            decided["error"].tolist(),
            decided["reason"].tolist(),
            decided["decided_at"].tolist(),
        )
    ]
    n = len(decided)
    frame = pd.DataFrame(
        {
            "position": decided.index.to_numpy(dtype="int64"),
            "case_id": pd.Series(case_table["case_id"].to_numpy(), dtype=object, index=range(n)),  # keeps None
            # The decisions' str columns as they are (``.array``): no round trip through Python objects.
            "status": decided["status"].array,
            "reason": decided["reason"].array,
            "error": decided["error"].array,
            "detail": decided["detail"].array,
            "decided_at": decided["decided_at"].array,
            "result": pd.Series(results, dtype=object, index=range(n)).to_numpy() if n else np.array([], dtype=object),
        }
    )
    return frame.astype({c: "str" for c in ("status", "reason", "error", "detail", "decided_at")})
