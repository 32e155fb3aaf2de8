"""The contract gate (before generation), as a Hamilton dataflow over frames.

Why: an assistant answering a question about a versioned API is wrong before the
model starts when the only page stating a rule is for another version, or when two
pages of the requested version state different rules. This gate selects the
requested version exactly, compares the explicit directives the eligible sources
declare, and prepares a cited answer request only when they all declare the
requested key and agree. Otherwise it stops with a stable reason.

What it refuses to do: read meaning into prose (only directive lines count), let a
newer version or the candidate order pick a winner, treat silence as agreement, or
call a model (the answer request is prepared, never sent).

The whole case table is decided in one execution: sources are verified and parsed
once, candidates are exploded into a frame and joined to the claims frame, and
statuses are computed over frames. Per-case Python is limited to the request checks
on raw rows and to building each result object. Every node's name is the value it
returns; the decision order is the order of the nodes:

``validated_requests → candidate_sources → eligible_sources → parsed_claims →
missing_sources → gate_result``
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from claimgate.errors import DirectiveError
from claimgate.gate import directives
from claimgate.gate.directives import parse_directives
from claimgate.gate.requests import CLAIM_FIELDS, check_request, claim_json, decided_result, refused_result
from claimgate.gate.schema import ClaimSchema

_EMPTY_CANDIDATES = {
    "position": "int64",
    "rank": "int64",
    "source_id": "str",
    "source_version": "str",
    "requested_version": "str",
}


def validated_requests(
    case_table: pd.DataFrame, verified_sources: pd.DataFrame, claim_schema: ClaimSchema
) -> pd.DataFrame:
    """Every case row with its request checks applied, in case-table order.

    Needs ``case_table`` columns ``position`` (int64), ``case_id`` (object),
    ``request`` (object: the raw row) and ``case_problem`` (str). Returns columns
    ``position`` (int64), ``case_id`` (object), ``candidate_ids`` (object: list or the
    raw value), ``requested_version``, ``claim_key``, ``operation`` (object),
    ``reason`` and ``detail`` (str: ``""`` for a valid request, else the ``GateError``
    reason). A row with a ``case_problem`` is ``invalid_case``; the other reasons
    come from ``requests.check_request``, in ``requests.REQUEST_CHECKS`` order.
    """
    versions = dict(zip(verified_sources["source_id"], verified_sources["version"]))
    rows = []
    for position, case_id, request, problem in zip(
        case_table["position"].tolist(),
        case_table["case_id"].tolist(),
        case_table["request"].tolist(),
        case_table["case_problem"].tolist(),
    ):
        if problem:
            operation, reason, detail = None, "invalid_case", problem
        else:
            operation, reason, detail = check_request(request, versions, claim_schema)
        fields = request if isinstance(request, dict) else {}
        rows.append(
            (
                position,
                case_id,
                fields.get("candidate_ids"),
                fields.get("requested_version"),
                fields.get("claim_key"),
                operation,
                reason,
                detail,
            )
        )
    columns = [
        "position",
        "case_id",
        "candidate_ids",
        "requested_version",
        "claim_key",
        "operation",
        "reason",
        "detail",
    ]
    # dtype=object first: pandas would infer ``str`` for the echoed columns and turn a missing
    # case_id or version (None) into NaN, which JSON would write as ``NaN``.
    frame = pd.DataFrame(rows, columns=columns, dtype=object)
    return frame.astype({"position": "int64", "reason": "str", "detail": "str"})


def candidate_sources(validated_requests: pd.DataFrame, verified_sources: pd.DataFrame) -> pd.DataFrame:
    """One row per (valid case, candidate): ``position, rank, source_id, source_version, requested_version``.

    ``rank`` is the 0-based place of the candidate in the request; it is kept for
    display only and never used to decide. Refused requests contribute no row.
    """
    valid = validated_requests.loc[
        validated_requests["reason"] == "", ["position", "candidate_ids", "requested_version"]
    ]
    if valid.empty:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _EMPTY_CANDIDATES.items()})
    exploded = valid.explode("candidate_ids", ignore_index=True).dropna(subset=["candidate_ids"])
    exploded = exploded.rename(columns={"candidate_ids": "source_id"})
    exploded["rank"] = exploded.groupby("position").cumcount()
    versions = verified_sources[["source_id", "version"]].rename(columns={"version": "source_version"})
    joined = exploded.merge(versions, on="source_id", how="left", validate="many_to_one")
    return joined[list(_EMPTY_CANDIDATES)].astype(_EMPTY_CANDIDATES)


def eligible_sources(candidate_sources: pd.DataFrame) -> pd.DataFrame:
    """Candidate rows whose source version equals the requested version, exactly.

    Same columns as ``candidate_sources``. Exact string equality: ``1.0`` is not
    ``1.00`` and a newer version is never a fallback (issue 2 "Version selection").
    """
    mask = candidate_sources["source_version"] == candidate_sources["requested_version"]
    return candidate_sources.loc[mask].reset_index(drop=True)


def source_directives(
    eligible_sources: pd.DataFrame, verified_sources: pd.DataFrame, claim_schema: ClaimSchema
) -> dict:
    """Directives of every source eligible for at least one case, each source parsed once.

    A dict of two frames. ``parsed_claims``: one row per (source, claim) with ``requests.CLAIM_FIELDS``
    (``start_line``/``end_line`` 1-based, ``start``/``end`` character offsets, all
    int64; the rest str), sorted by ``source_id`` then ``start``.
    ``directive_errors``: one row per source whose directives are refused, columns
    ``source_id, reason, detail`` (str). Sources eligible for no case are not read.
    """
    needed = set(eligible_sources["source_id"].unique())
    records = verified_sources.loc[verified_sources["source_id"].isin(needed)].sort_values("source_id")
    claims: list[dict] = []
    errors: list[tuple[str, str, str]] = []
    for record in records.to_dict("records"):
        try:
            directives = parse_directives(record["text"], claim_schema, record["source_id"])
        except DirectiveError as exc:
            errors.append((record["source_id"], exc.reason, exc.detail))
            continue
        provenance = {
            "source_id": record["source_id"],
            "version": record["version"],
            "path": record["path"],
            "url": record["url"],
            "source_sha256": record["sha256"],
            "document_revision": record["document_revision"],
        }
        claims.extend({**provenance, **directive} for directive in directives)
    integer = ("start_line", "end_line", "start", "end")
    dtypes = {c: ("int64" if c in integer else "str") for c in CLAIM_FIELDS}
    parsed = pd.DataFrame(claims, columns=list(CLAIM_FIELDS)).astype(dtypes)
    refused = pd.DataFrame(errors, columns=["source_id", "reason", "detail"]).astype("str")
    return {"parsed_claims": parsed, "directive_errors": refused}


def parsed_claims(source_directives: dict) -> pd.DataFrame:
    """One row per (eligible source, claim) with ``requests.CLAIM_FIELDS``, sorted by source id, offset."""
    return source_directives["parsed_claims"]


def directive_errors(source_directives: dict) -> pd.DataFrame:
    """One row per eligible source whose directives are refused: ``source_id, reason, detail``."""
    return source_directives["directive_errors"]


#: Columns of ``ignored_directive_lines`` and their dtypes.
IGNORED_LINE_COLUMNS = {"source_id": "str", "line": "int64", "rule": "str", "quote": "str"}


def ignored_directive_lines(verified_sources: pd.DataFrame, claim_schema: ClaimSchema) -> pd.DataFrame:
    """Lines of every pinned source that a schema opt-in keeps from being read as directives.

    One row per line, sorted by ``source_id`` then ``line``: ``source_id`` (str),
    ``line`` (int64, 1-based), ``rule`` (str: ``skip_fenced_code`` or ``scope_prefix``),
    ``quote`` (str, the line, at most 200 characters). Empty when the schema has no
    opt-in (docs/using-your-docs.md, "Directive opt-ins"). Every pinned source is listed,
    whether or not a case uses it, so the listing does not depend on the case table.
    """
    rows = [
        line
        for source_id, text in sorted(zip(verified_sources["source_id"], verified_sources["text"]))
        for line in directives.ignored_directive_lines(text, claim_schema, source_id)
    ]
    return pd.DataFrame(rows, columns=list(IGNORED_LINE_COLUMNS)).astype(IGNORED_LINE_COLUMNS)


def _cases_with_directive_errors(eligible_sources: pd.DataFrame, directive_errors: pd.DataFrame) -> pd.DataFrame:
    """``position, reason, detail`` of the first refused eligible source (source-id order) per case."""
    hit = eligible_sources[["position", "source_id"]].merge(directive_errors, on="source_id")
    return hit.sort_values(["position", "source_id"]).drop_duplicates("position")[["position", "reason", "detail"]]


def _requested_claims(eligible_sources: pd.DataFrame, validated_requests: pd.DataFrame) -> pd.DataFrame:
    """Eligible rows with the case's ``operation`` and ``claim_key`` attached."""
    wanted = validated_requests[["position", "operation", "claim_key"]].astype({"operation": "str", "claim_key": "str"})
    return eligible_sources[["position", "source_id"]].merge(wanted, on="position")


def missing_sources(
    eligible_sources: pd.DataFrame,
    parsed_claims: pd.DataFrame,
    directive_errors: pd.DataFrame,
    validated_requests: pd.DataFrame,
) -> pd.DataFrame:
    """(case, eligible source) pairs where the source does not declare the requested key.

    Columns ``position`` (int64), ``source_id`` (str), sorted. Cases already refused
    by a directive error are left out: that refusal comes first in the decision order.
    Silence never counts as agreement.
    """
    refused = _cases_with_directive_errors(eligible_sources, directive_errors)["position"]
    wanted = _requested_claims(eligible_sources.loc[~eligible_sources["position"].isin(refused)], validated_requests)
    declared = parsed_claims[["source_id", "operation", "claim_key"]].drop_duplicates()
    marked = wanted.merge(declared, on=["source_id", "operation", "claim_key"], how="left", indicator=True)
    missing = marked.loc[marked["_merge"] == "left_only", ["position", "source_id"]]
    return missing.sort_values(["position", "source_id"]).reset_index(drop=True)


def _slices(positions: np.ndarray) -> dict[int, tuple[int, int]]:
    """Map each position in a sorted array to its ``[start, stop)`` row range."""
    if len(positions) == 0:
        return {}
    unique, starts = np.unique(positions, return_index=True)
    stops = np.append(starts[1:], len(positions))
    return {int(p): (int(a), int(b)) for p, a, b in zip(unique, starts, stops)}


def gate_result(
    validated_requests: pd.DataFrame,
    candidate_sources: pd.DataFrame,
    eligible_sources: pd.DataFrame,
    parsed_claims: pd.DataFrame,
    directive_errors: pd.DataFrame,
    missing_sources: pd.DataFrame,
    claim_schema: ClaimSchema,
) -> pd.DataFrame:
    """The decision for every case, one row per case in case-table order.

    A ``ready`` case's prepared request takes its system message from ``claim_schema``.

    Columns: ``position`` (int64), ``case_id`` (object), ``status``, ``reason``,
    ``error`` (``""``, ``GateError`` or ``DirectiveError``), ``detail``, ``decided_at``
    (str) and ``result`` (object: the JSON-ready result object of issue 2, with
    ``decided_at``). Statuses and reasons are computed over frames; per-case Python
    only slices the sorted frames and builds each result object.
    """
    requests = validated_requests.set_index("position", drop=False)
    n = len(requests)
    status = pd.Series("", index=requests.index, dtype="str")
    reason = requests["reason"].copy()
    error = pd.Series("", index=requests.index, dtype="str")
    detail = requests["detail"].copy()
    decided_at = pd.Series("", index=requests.index, dtype="str")

    gate_refused = reason != ""
    status[gate_refused], error[gate_refused], decided_at[gate_refused] = "refused", "GateError", "validated_requests"

    eligible_count = eligible_sources.groupby("position").size().reindex(requests.index, fill_value=0)
    no_eligible = ~gate_refused & (eligible_count == 0)
    status[no_eligible], reason[no_eligible], decided_at[no_eligible] = (
        "not_in_docs",
        "no_eligible_version",
        "eligible_sources",
    )

    directive_refused = _cases_with_directive_errors(eligible_sources, directive_errors).set_index("position")
    has_directive_error = pd.Series(requests.index.isin(directive_refused.index), index=requests.index)
    status[has_directive_error], error[has_directive_error] = "refused", "DirectiveError"
    reason[has_directive_error] = directive_refused["reason"]
    detail[has_directive_error] = directive_refused["detail"]
    decided_at[has_directive_error] = "parsed_claims"

    has_missing = pd.Series(requests.index.isin(missing_sources["position"]), index=requests.index)
    status[has_missing], reason[has_missing], decided_at[has_missing] = (
        "not_in_docs",
        "requested_claim_missing",
        "missing_sources",
    )

    # Claims for the requested (operation, key) of every case still undecided or missing.
    open_cases = ~gate_refused & ~no_eligible & ~has_directive_error
    wanted = _requested_claims(
        eligible_sources.loc[eligible_sources["position"].isin(requests.index[open_cases])], validated_requests
    )
    # Only the join keys, the sort key, the value and a claim number travel through the join;
    # the full claim records are built once per parsed claim below.
    numbered = parsed_claims[["source_id", "operation", "claim_key", "start", "value"]].assign(
        claim_number=np.arange(len(parsed_claims), dtype="int64")
    )
    case_claims = wanted.merge(numbered, on=["source_id", "operation", "claim_key"])
    case_claims = case_claims.sort_values(["position", "source_id", "start"], kind="stable").reset_index(drop=True)
    distinct = case_claims.groupby("position")["value"].nunique().reindex(requests.index, fill_value=0)
    deciding = open_cases & ~has_missing
    conflict = deciding & (distinct > 1)
    ready = deciding & (distinct == 1)
    status[conflict], reason[conflict], decided_at[conflict] = (
        "conflict",
        "same_version_directives_disagree",
        "gate_result",
    )
    status[ready], reason[ready], decided_at[ready] = "ready", "eligible_directives_agree", "gate_result"

    # Per-case assembly of the result objects (the only per-case Python besides the checks).
    # Column lists zipped into records once per parsed claim (to_dict("records") iterates Arrow-backed
    # strings one by one), each serialized once for answer requests however many cases cite it.
    parsed_records = [
        dict(zip(CLAIM_FIELDS, values)) for values in zip(*(parsed_claims[f].tolist() for f in CLAIM_FIELDS))
    ]
    serialized = [claim_json(record) for record in parsed_records]
    claim_numbers = case_claims["claim_number"].tolist()
    claim_slices = _slices(case_claims["position"].to_numpy())
    candidates = candidate_sources.sort_values(["position", "source_id"], kind="stable")
    candidate_ids = candidates["source_id"].tolist()
    candidate_eligible = (candidates["source_version"] == candidates["requested_version"]).tolist()
    candidate_slices = _slices(candidates["position"].to_numpy())
    missing_ids = missing_sources["source_id"].tolist()
    missing_slices = _slices(missing_sources["position"].to_numpy())

    results = []
    for position, case_status, case_error, case_reason, case_decided, request in zip(
        requests.index.tolist(),
        status.tolist(),
        error.tolist(),
        reason.tolist(),
        decided_at.tolist(),
        requests[["candidate_ids", "requested_version", "claim_key", "operation"]].itertuples(index=False),
    ):
        if case_status == "refused":
            results.append(refused_result(case_error, case_reason, case_decided))
            continue
        a, b = candidate_slices.get(position, (0, 0))
        eligible_ids = [s for s, ok in zip(candidate_ids[a:b], candidate_eligible[a:b]) if ok]
        excluded_ids = [s for s, ok in zip(candidate_ids[a:b], candidate_eligible[a:b]) if not ok]
        a, b = claim_slices.get(position, (0, 0))
        claims = [dict(parsed_records[number]) for number in claim_numbers[a:b]]  # each result owns its claims
        extra = {}
        if case_status == "ready":
            extra["agreed_value"] = claims[0]["value"]
            extra["claim_jsons"] = [serialized[number] for number in claim_numbers[a:b]]
        if case_reason == "requested_claim_missing":
            a, b = missing_slices[position]
            extra["missing_claim_source_ids"] = missing_ids[a:b]
        results.append(
            decided_result(
                requested_version=request.requested_version,
                claim_key=request.claim_key,
                operation=request.operation,
                candidate_ids=request.candidate_ids,
                eligible_source_ids=eligible_ids,
                excluded_wrong_version_ids=excluded_ids,
                status=case_status,
                reason=case_reason,
                claims=claims,
                decided_at=case_decided,
                system_prompt=claim_schema.system_prompt,
                **extra,
            )
        )
    frame = pd.DataFrame(
        {
            "position": requests["position"].to_numpy(),
            "case_id": pd.Series(requests["case_id"].to_numpy(), dtype=object, index=range(n)),  # keeps None
            "status": status.to_numpy(),
            "reason": reason.to_numpy(),
            "error": error.to_numpy(),
            "detail": detail.to_numpy(),
            "decided_at": decided_at.to_numpy(),
            "result": pd.Series(results, dtype=object, index=range(n)).to_numpy() if n else np.array([], dtype=object),
        }
    )
    return frame.astype({c: "str" for c in ("status", "reason", "error", "detail", "decided_at")})
