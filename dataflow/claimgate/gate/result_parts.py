"""What a batch's result objects are built from: the per-case lookups and their helpers (no Hamilton nodes).

The node ``results.result_parts`` builds a ``ResultParts`` once per batch; both
``results.gate_result`` (result objects in a frame) and ``result_lines`` (the same
results as JSON lines for a streamed run) read it, so both read the decisions the
same way. Nothing here decides: statuses and reasons come from the deciding stages
(``results.case_decisions``). The result object's shape is ``result_object.py``
(docs/gate-rules.md, "Result objects").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from claimgate.gate.result_object import CLAIM_FIELDS, OPTIONAL_CLAIM_FIELDS, claim_json, decided_result, refused_result


def claim_slices(positions: np.ndarray) -> dict[int, tuple[int, int]]:
    """Map each position in a sorted array (``requested_claims["position"]``) to its ``[start, stop)`` row range."""
    if len(positions) == 0:
        return {}
    unique, starts = np.unique(positions, return_index=True)
    stops = np.append(starts[1:], len(positions))
    return {int(p): (int(a), int(b)) for p, a, b in zip(unique, starts, stops)}


@dataclass(frozen=True)
class ClaimRecords:
    """Every parsed claim as a record of ``CLAIM_FIELDS`` and as its answer-request JSON (``result_object.claim_json``).

    Built once per parsed claim (``to_dict("records")`` iterates Arrow-backed strings one
    by one), and each is serialized once for answer requests however many cases cite it.
    ``records[n]`` / ``jsons[n]`` belong to row ``n`` of ``parsed_claims``.
    """

    records: list[dict]
    jsons: list[str]


def claim_records_of(parsed_claims: pd.DataFrame) -> ClaimRecords:
    """``ClaimRecords`` of ``parsed_claims`` (columns ``CLAIM_FIELDS``)."""
    records = [dict(zip(CLAIM_FIELDS, values)) for values in zip(*(parsed_claims[f].tolist() for f in CLAIM_FIELDS))]
    for field in OPTIONAL_CLAIM_FIELDS:
        if field in parsed_claims and parsed_claims[field].notna().any():
            for record, value in zip(records, parsed_claims[field].tolist()):
                if value is not None:
                    record[field] = value
    return ClaimRecords(records, [claim_json(record) for record in records])


def sources_by_case(candidate_sources: pd.DataFrame) -> dict[int, tuple[list[str], list[str]]]:
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

    ``requests``: position -> ``(candidate_ids, requested_version, claim_key, operation)``
    of each valid request. ``missing``: position -> missing claim source ids.
    ``agreed``: position -> agreed value. ``claim_records`` / ``claim_jsons``: every parsed
    claim as a record of ``CLAIM_FIELDS`` and as its answer-request JSON;
    ``claim_numbers`` / ``claim_slices``: each case's claims as a row range of numbers
    into those lists. ``sources_by_case``: position -> ``(eligible ids, excluded ids)``.
    """

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
