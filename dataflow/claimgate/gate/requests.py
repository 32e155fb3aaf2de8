"""Per-request rules shared by the batch gate and the one-case reference.

These are the parts of the gate that are about a single request's shape and about
the answer request's exact text (docs/gate-rules.md, "Request checks", "Versions",
"Claim schemas", "Case tables" and "Result objects"; the system message comes from
the schema). Both ``stages.py`` and ``results.py`` (frames) and ``reference.py``
(one case at a time) call them, so the two can only differ in how they combine sources.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence

from claimgate.gate.schema import DEFAULT_SYSTEM_PROMPT, ClaimSchema

#: Fields of a claim record, in order (docs/gate-rules.md, "Result objects").
CLAIM_FIELDS = (
    "source_id",
    "version",
    "path",
    "url",
    "source_sha256",
    "document_revision",
    "operation",
    "claim_key",
    "value",
    "start_line",
    "end_line",
    "start",
    "end",
    "quote",
)

#: Request checks in the order they are applied; the first failure refuses the case.
REQUEST_CHECKS = (
    "invalid_case",
    "invalid_candidate_ids",
    "duplicate_candidate",
    "invalid_requested_version",
    "missing_operation",
    "unsupported_requested_operation",
    "unsupported_requested_claim",
    "unknown_candidate",
    "invalid_source_version",
)


def check_request(
    row: Mapping | object,
    source_versions: Mapping[str, str],
    schema: ClaimSchema,
    unversioned_sources: frozenset[str] | None = None,
) -> tuple[str | None, str, str]:
    """Apply the request checks to one case row.

    ``row`` is the raw case object (a dict, as JSON, CSV and Parquet readers give, with ``candidate_ids``,
    ``requested_version``, ``claim_key`` and optionally ``operation``);
    ``source_versions`` maps every verified source id to its manifest version;
    ``unversioned_sources``, when given, must be ``unversioned_source_ids(source_versions,
    schema)`` (a batch computes it once instead of testing each candidate's version).

    Returns ``(operation, reason, detail)``: ``reason`` is ``""`` when the request is
    valid (``operation`` is then the resolved operation), else the first failing
    ``GateError`` reason of ``REQUEST_CHECKS`` (``invalid_case`` here only when the row
    is not an object; case-id problems are found by the case-table reader).
    """
    # Runs once per case row of a batch: plain loops and a cached version test keep it cheap.
    if not isinstance(row, dict):
        return None, "invalid_case", f"case row is a {type(row).__name__}, not an object"
    candidates = row.get("candidate_ids")
    if not isinstance(candidates, list):
        return None, "invalid_candidate_ids", "candidate_ids must be a list of non-empty strings"
    for candidate in candidates:
        if not isinstance(candidate, str) or not candidate:
            return None, "invalid_candidate_ids", "candidate_ids must be a list of non-empty strings"
    if len(set(candidates)) != len(candidates):
        seen: set[str] = set()
        for candidate in candidates:
            if candidate in seen:
                return None, "duplicate_candidate", f"{candidate!r} is listed twice"
            seen.add(candidate)
    version_problem = schema.versions.problem(row.get("requested_version"))
    if version_problem:
        return None, "invalid_requested_version", version_problem
    operation = row.get("operation")
    if operation is None:
        operation = schema.single_operation
        if operation is None:
            return None, "missing_operation", f"the schema declares {len(schema.operations)} operations"
    elif not isinstance(operation, str) or operation not in schema.operations:
        return None, "unsupported_requested_operation", f"{operation!r} is not declared by the schema"
    key = row.get("claim_key")
    if not isinstance(key, str) or key not in schema.operations[operation]:
        return None, "unsupported_requested_claim", f"{key!r} is not a key of {operation}"
    for candidate in candidates:
        if candidate not in source_versions:
            return None, "unknown_candidate", f"{candidate!r} is not in the manifest"
    if unversioned_sources is not None and unversioned_sources.isdisjoint(candidates):
        return operation, "", ""
    for candidate in candidates:
        source_version = source_versions[candidate]
        if schema.versions.problem(source_version):
            return None, "invalid_source_version", f"{candidate!r} has version {source_version!r}"
    return operation, "", ""


def unversioned_source_ids(source_versions: Mapping[str, str], schema: ClaimSchema) -> frozenset[str]:
    """Ids of the sources whose manifest version is not a version under the schema's scheme."""
    return frozenset(source_id for source_id, version in source_versions.items() if schema.versions.problem(version))


def answer_request(
    requested_version: str,
    operation: str,
    claim_key: str,
    claims: Sequence[Mapping],
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> dict:
    """The prepared (never sent) chat request for a ``ready`` case (docs/gate-rules.md, "Result objects").

    ``system_prompt`` is the schema's ``[answer_request] system``
    (``schema.DEFAULT_SYSTEM_PROMPT`` when it sets none). ``claims`` are claim records with
    exactly ``CLAIM_FIELDS``. The user message is
    ``json.dumps({"requested_version", "operation", "claim_key", "source_claims"},
    sort_keys=True)`` with json's default separators and ASCII escaping.
    """
    user = json.dumps(
        {
            "requested_version": requested_version,
            "operation": operation,
            "claim_key": claim_key,
            "source_claims": [{f: claim[f] for f in CLAIM_FIELDS} for claim in claims],
        },
        sort_keys=True,
    )
    return {"messages": [{"role": "system", "content": system_prompt}, {"role": "user", "content": user}]}


def claim_json(claim: Mapping) -> str:
    """One claim record as it appears inside the answer request's user message (sorted keys)."""
    return json.dumps({f: claim[f] for f in CLAIM_FIELDS}, sort_keys=True)


@functools.lru_cache(maxsize=4096)
def json_string(text: str) -> str:
    """``json.dumps(text)``, cached: a batch repeats a handful of keys, operations and versions."""
    return json.dumps(text)


def answer_request_from_json(
    requested_version: str,
    operation: str,
    claim_key: str,
    claim_jsons: Sequence[str],
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> dict:
    """``answer_request`` from claims already serialized with ``claim_json``: the same bytes, built faster.

    ``json.dumps(..., sort_keys=True)`` writes the four keys in the order below, with
    ``", "`` and ``": "`` separators, and a list as ``[a, b]``; each claim is serialized
    once per batch instead of once per case that cites it. Equality with
    ``answer_request`` is tested.
    """
    user = user_message_head(requested_version, operation, claim_key) + ", ".join(claim_jsons) + "]}"
    return {"messages": [{"role": "system", "content": system_prompt}, {"role": "user", "content": user}]}


def user_message_head(requested_version: str, operation: str, claim_key: str) -> str:
    """The answer request's user message up to its first claim: ``{"claim_key": …, "source_claims": [``.

    ``json.dumps(..., sort_keys=True)``'s text for those keys (see ``answer_request_from_json``).
    """
    return (
        '{"claim_key": ' + json_string(claim_key)
        + ', "operation": ' + json_string(operation)
        + ', "requested_version": ' + json_string(requested_version)
        + ', "source_claims": ['
    )  # fmt: skip


def decided_result(
    *,
    requested_version: str,
    claim_key: str,
    operation: str,
    candidate_ids: list[str],
    eligible_source_ids: list[str],
    excluded_wrong_version_ids: list[str],
    status: str,
    reason: str,
    claims: list[dict],
    decided_at: str,
    agreed_value: str | None = None,
    missing_claim_source_ids: list[str] | None = None,
    claim_jsons: Sequence[str] | None = None,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> dict:
    """Assemble a non-refused result object, fields in the fixed order of docs/gate-rules.md, "Result objects".

    ``answer_request`` is built here for ``ready`` (from ``claim_jsons``, the claims
    pre-serialized by ``claim_json``, when given; with ``system_prompt`` as its system
    message) and is ``None`` otherwise;
    ``agreed_value`` / ``missing_claim_source_ids`` are added only when given.
    """
    request = None
    if status == "ready":
        request = (
            answer_request_from_json(requested_version, operation, claim_key, claim_jsons, system_prompt)
            if claim_jsons is not None
            else answer_request(requested_version, operation, claim_key, claims, system_prompt)
        )
    result = {
        "requested_version": requested_version,
        "claim_key": claim_key,
        "operation": operation,
        "candidate_ids": list(candidate_ids),
        "eligible_source_ids": eligible_source_ids,
        "excluded_wrong_version_ids": excluded_wrong_version_ids,
        "answer_request": request,
        "status": status,
        "reason": reason,
        "claims": claims,
    }
    if agreed_value is not None:
        result["agreed_value"] = agreed_value
    if missing_claim_source_ids is not None:
        result["missing_claim_source_ids"] = missing_claim_source_ids
    result["decided_at"] = decided_at
    return result


def refused_result(error: str, reason: str, decided_at: str) -> dict:
    """A refused case: ``{status, error, reason, answer_request: None, decided_at}``."""
    return {"status": "refused", "error": error, "reason": reason, "answer_request": None, "decided_at": decided_at}


def entry_fields(request: object, case_id: str | None) -> dict:
    """An output entry without its result: ``{case_id, candidate_ids, requested_version, claim_key[, operation]}``.

    The request fields are echoed from the raw row (``None`` where the row lacks them
    or is not an object); ``operation`` is echoed too when the row gives one.
    """
    fields = request if isinstance(request, dict) else {}
    entry = {
        "case_id": case_id,
        "candidate_ids": fields.get("candidate_ids"),
        "requested_version": fields.get("requested_version"),
        "claim_key": fields.get("claim_key"),
    }
    if "operation" in fields:
        entry["operation"] = fields["operation"]
    return entry


def case_entry(request: object, case_id: str | None, result: dict) -> dict:
    """One output entry ``{case_id, candidate_ids, requested_version, claim_key[, operation], result}``.

    ``entry_fields`` with the case's result object last (docs/gate-rules.md, "Result objects").
    """
    entry = entry_fields(request, case_id)
    entry["result"] = result
    return entry
