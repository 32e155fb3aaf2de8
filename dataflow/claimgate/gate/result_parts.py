"""What a batch's result objects are built from: per-case lookups over the decided frames (no Hamilton nodes).

Shared by ``results.gate_result`` (result objects in a frame) and ``result_lines`` (the
same results as JSON lines for a streamed run), so both read the decisions the same way.
Nothing here decides: statuses and reasons come from the deciding stages
(``decisions.case_decisions``). The result object's fields: docs/gate-rules.md,
"Result objects".
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from claimgate.gate.decisions import Stage, case_decisions
from claimgate.gate.requests import CLAIM_FIELDS, claim_json, decided_result, refused_result
from claimgate.gate.schema import ClaimSchema


def _slices(positions: np.ndarray) -> dict[int, tuple[int, int]]:
    """Map each position in a sorted array to its ``[start, stop)`` row range."""
    if len(positions) == 0:
        return {}
    unique, starts = np.unique(positions, return_index=True)
    stops = np.append(starts[1:], len(positions))
    return {int(p): (int(a), int(b)) for p, a, b in zip(unique, starts, stops)}


@dataclass(frozen=True)
class ClaimRecords:
    """Every parsed claim as a record of ``CLAIM_FIELDS`` and as its answer-request JSON (``requests.claim_json``).

    Built once per parsed claim (``to_dict("records")`` iterates Arrow-backed strings one
    by one), and each is serialized once for answer requests however many cases cite it.
    ``records[n]`` / ``jsons[n]`` belong to row ``n`` of ``parsed_claims``.
    """

    records: list[dict]
    jsons: list[str]


def claim_records_of(parsed_claims: pd.DataFrame) -> ClaimRecords:
    """``ClaimRecords`` of ``parsed_claims`` (columns ``CLAIM_FIELDS``)."""
    records = [dict(zip(CLAIM_FIELDS, values)) for values in zip(*(parsed_claims[f].tolist() for f in CLAIM_FIELDS))]
    return ClaimRecords(records, [claim_json(record) for record in records])


def _eligible_and_excluded(candidate_sources: pd.DataFrame) -> dict[int, tuple[list[str], list[str]]]:
    """Position -> ``(eligible source ids, excluded wrong-version ids)``, each sorted by source id.

    One sort of the whole frame by ``(position, source id)`` (source ids ranked in Python's
    string order, which is the order ``sorted`` gives a case's ids), then each case's
    eligible and excluded rows are sliced out of that order.
    """
    if candidate_sources.empty:
        return {}
    ids = candidate_sources["source_id"].tolist()
    names = sorted(set(ids))
    rank = pd.Categorical(ids, categories=names).codes
    positions = candidate_sources["position"].to_numpy()
    eligible = (candidate_sources["source_version"] == candidate_sources["requested_version"]).to_numpy(bool)
    order = np.lexsort((rank, ~eligible, positions))  # by position, eligible rows first, then by id
    sorted_ids = [ids[i] for i in order.tolist()]
    sorted_positions, sorted_eligible = positions[order], eligible[order]
    # Each case's rows are [start, first excluded) eligible and [first excluded, stop) excluded.
    unique, starts = np.unique(sorted_positions, return_index=True)
    stops = np.append(starts[1:], len(order))
    eligible_counts = np.add.reduceat(sorted_eligible.astype("int64"), starts)
    return {
        position: (sorted_ids[a : a + e], sorted_ids[a + e : b])
        for position, a, b, e in zip(unique.tolist(), starts.tolist(), stops.tolist(), eligible_counts.tolist())
    }


@dataclass(frozen=True)
class ResultParts:
    """What every result object of a batch is built from, as plain lookups by case position.

    ``decided``: ``decisions.case_decisions`` (index ``position``, case-table order).
    ``requests``: position -> ``(candidate_ids, requested_version, claim_key, operation)``
    of each valid request. ``missing``: position -> missing claim source ids.
    ``agreed``: position -> agreed value. ``claim_records`` / ``claim_jsons``: every parsed
    claim as a record of ``CLAIM_FIELDS`` and as its answer-request JSON;
    ``claim_numbers`` / ``claim_slices``: each case's claims as a row range of numbers
    into those lists. ``sources_by_case``: position -> ``(eligible ids, excluded ids)``.
    """

    decided: pd.DataFrame
    requests: dict
    missing: dict
    agreed: dict
    claim_records: list[dict]
    claim_jsons: list[str]
    claim_numbers: list[int]
    claim_slices: dict[int, tuple[int, int]]
    sources_by_case: dict[int, tuple[list[str], list[str]]]
    system_prompt: str

    def result_object(self, position: int, status: str, error: str, reason: str, decided_at: str) -> dict:
        """The result object of the case at ``position`` (docs/gate-rules.md, "Result objects").

        Its claims are copies; its eligible and excluded id lists are this batch's lists for
        ``position`` (each built for that one case), so call it once per case.
        """
        if status == "refused":
            return refused_result(error, reason, decided_at)
        candidate_ids, requested_version, claim_key, operation = self.requests[position]
        eligible_ids, excluded_ids = self.sources_by_case.get(position) or ([], [])
        a, b = self.claim_slices.get(position, (0, 0))
        numbers = self.claim_numbers[a:b]
        missing_ids = self.missing.get(position)
        ready = status == "ready"
        return decided_result(
            requested_version=requested_version,
            claim_key=claim_key,
            operation=operation,
            candidate_ids=candidate_ids,
            eligible_source_ids=eligible_ids,
            excluded_wrong_version_ids=excluded_ids,
            status=status,
            reason=reason,
            claims=[self.claim_records[number].copy() for number in numbers],  # each result owns its claims
            decided_at=decided_at,
            agreed_value=self.agreed[position] if ready else None,
            missing_claim_source_ids=list(missing_ids) if missing_ids is not None else None,
            claim_jsons=[self.claim_jsons[number] for number in numbers] if ready else None,
            system_prompt=self.system_prompt,
        )


def result_parts(
    case_table: pd.DataFrame,
    stages: list[Stage],
    candidate_sources: pd.DataFrame,
    parsed_claims: pd.DataFrame,
    requested_claims: pd.DataFrame,
    claim_schema: ClaimSchema,
    claim_records: ClaimRecords | None = None,
) -> ResultParts:
    """The lookups of ``ResultParts`` for one batch; ``stages`` are the six deciding stages in decision order.

    ``claim_records``: ``claim_records_of(parsed_claims)`` when the caller already has it
    (a streamed run builds it once for the whole table); built here otherwise.

    Raises ``AssertionError`` as ``decisions.case_decisions`` does when a case is decided
    by no stage or by two.
    """
    validated_requests, missing_sources, agreed_values = stages[0], stages[3], stages[5]
    decided = case_decisions(case_table, stages)
    # Lookups by position as plain dicts: per-case Series lookups would cost more than the results themselves.
    valid = validated_requests.passed
    fields = ("candidate_ids", "requested_version", "claim_key", "operation")
    requests = dict(zip(valid["position"].tolist(), zip(*(valid[f].tolist() for f in fields))))
    missing_frame = missing_sources.decided
    missing = dict(zip(missing_frame["position"].tolist(), missing_frame["missing_claim_source_ids"]))
    agreed = dict(zip(agreed_values.decided["position"].tolist(), agreed_values.decided["agreed_value"].tolist()))
    claims = claim_records if claim_records is not None else claim_records_of(parsed_claims)
    return ResultParts(
        decided=decided,
        requests=requests,
        missing=missing,
        agreed=agreed,
        claim_records=claims.records,
        claim_jsons=claims.jsons,
        claim_numbers=requested_claims["claim_number"].tolist(),
        claim_slices=_slices(requested_claims["position"].to_numpy()),
        sources_by_case=_eligible_and_excluded(candidate_sources),
        system_prompt=claim_schema.system_prompt,
    )
