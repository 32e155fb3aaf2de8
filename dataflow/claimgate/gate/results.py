"""Result building (Hamilton node ``gate_result``): assembles what the decision stages decided.

``gate_result`` takes no decision. Each case's status, reason, error and detail come
from the one stage that decided it (``claimgate.gate.stages``); its ``decided_at`` is
the name of that stage, read from the stages' ``@tag(decides=...)``
(``decisions.decided_at_by_reason``). What is left is shaping: the result object of
every case, in case-table order, with its claims, eligible and excluded sources and,
for a ``ready`` case, the prepared answer request. The result object's fields:
docs/gate-rules.md, "Result objects".
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from claimgate.gate.decisions import Stage
from claimgate.gate.result_parts import result_parts
from claimgate.gate.schema import ClaimSchema

#: Columns of ``gate_result``, in order.
RESULT_COLUMNS = ("position", "case_id", "status", "reason", "error", "detail", "decided_at", "result")


def gate_result(
    case_table: pd.DataFrame,
    validated_requests: Stage,
    candidate_sources: pd.DataFrame,
    eligible_sources: Stage,
    directive_errors: Stage,
    parsed_claims: pd.DataFrame,
    requested_claims: pd.DataFrame,
    missing_sources: Stage,
    conflicting_values: Stage,
    agreed_values: Stage,
    claim_schema: ClaimSchema,
) -> pd.DataFrame:
    """The decision for every case, assembled into result objects; one row per case in case-table order.

    A ``ready`` case's prepared request takes its system message from ``claim_schema``
    (docs/gate-rules.md, "Claim schemas").

    Columns: ``position`` (int64), ``case_id`` (object: str or None), ``status``,
    ``reason``, ``error`` (``""``, ``GateError`` or ``DirectiveError``), ``detail``,
    ``decided_at`` (str: the deciding node) and ``result`` (object: the JSON-ready
    result object, with ``decided_at``). Per-case Python only slices sorted frames and
    builds each result object (docs/gate-rules.md, "Result objects").
    """
    stages = [validated_requests, eligible_sources, directive_errors]
    stages += [missing_sources, conflicting_values, agreed_values]
    parts = result_parts(case_table, stages, candidate_sources, parsed_claims, requested_claims, claim_schema)
    decided = parts.decided
    result_object = parts.result_object
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
