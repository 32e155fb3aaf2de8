"""The gate's result object: its fields, decided and refused results, the answer request, claim JSON, case entry.

One module spells the shape every output of the gate has (docs/gate-rules.md,
"Result objects"): the batch assembly (``results.py``, ``result_parts.py``), the
streamed JSON lines (``result_lines.py``, which joins these same bytes) and the
one-case reference (``reference.py``) all build their results here. Nothing here
decides: statuses, reasons and ``decided_at`` are given by the deciding stages.

The answer request has a reference beside its fast path: ``answer_request`` (from
claims serialized once per batch with ``claim_json``) is what the batch gate and the
lines writer run; ``answer_request_reference`` (from claim records) is its one-case
specification, and also what ``reference.decide_case`` (the online single case)
runs. ``tests/gate/test_result_object.py`` holds them equal.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence

from claimgate.gate.schema import DEFAULT_SYSTEM_PROMPT

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


#: Fields a claim record carries only when they apply, after ``CLAIM_FIELDS``: ``typed_value`` (a typed
#: key's value as its type, ``value`` keeping the spelling as written; docs/gate-rules.md, "Typed values")
#: and ``context`` (``{"start", "end", "text"}``: the prose the claim belongs to, for a schema with
#: ``[directives] context = true``; docs/gate-rules.md, "Context"). A seed claim has neither.
OPTIONAL_CLAIM_FIELDS = ("typed_value", "context")


def claim_fields(claim: Mapping) -> dict:
    """A claim record's fields as the answer request carries them: ``CLAIM_FIELDS`` and the optional ones present."""
    fields = {f: claim[f] for f in CLAIM_FIELDS}
    for optional in OPTIONAL_CLAIM_FIELDS:
        if claim.get(optional) is not None:
            fields[optional] = claim[optional]
    return fields


def claim_json(claim: Mapping) -> str:
    """One claim record as it appears inside the answer request's user message (sorted keys)."""
    return json.dumps(claim_fields(claim), sort_keys=True)


@functools.lru_cache(maxsize=4096)
def json_string(text: str) -> str:
    """``json.dumps(text)``, cached: a batch repeats a handful of keys, operations and versions."""
    return json.dumps(text)


def answer_request(
    requested_version: str,
    operation: str,
    claim_key: str,
    claim_jsons: Sequence[str],
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> dict:
    """The prepared (never sent) chat request for a ``ready`` case, from claims serialized with ``claim_json``.

    The batch path; its specification is ``answer_request_reference`` (from claim
    records), byte-equal by ``tests/gate/test_result_object.py``. ``json.dumps(...,
    sort_keys=True)`` writes the four keys in the order below, with ``", "`` and ``": "``
    separators, and a list as ``[a, b]``; each claim is serialized once per batch instead
    of once per case that cites it.
    """
    user = user_message_head(requested_version, operation, claim_key) + ", ".join(claim_jsons) + "]}"
    return {"messages": [{"role": "system", "content": system_prompt}, {"role": "user", "content": user}]}


def answer_request_reference(
    requested_version: str,
    operation: str,
    claim_key: str,
    claims: Sequence[Mapping],
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> dict:
    """The prepared (never sent) chat request for a ``ready`` case, from claim records.

    The one-case specification of ``answer_request`` (which the batch gate and the lines
    writer run, from claims serialized once per batch); it is also what
    ``reference.decide_case`` runs for one online case. ``tests/gate/test_result_object.py``
    holds the two byte-equal. docs/gate-rules.md, "Result objects".

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
            "source_claims": [claim_fields(claim) for claim in claims],
        },
        sort_keys=True,
    )
    return {"messages": [{"role": "system", "content": system_prompt}, {"role": "user", "content": user}]}


def user_message_head(requested_version: str, operation: str, claim_key: str) -> str:
    """The answer request's user message up to its first claim: ``{"claim_key": …, "source_claims": [``.

    ``json.dumps(..., sort_keys=True)``'s text for those keys (see ``answer_request``).
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
    agreed_value: str | bool | int | float | None = None,
    missing_claim_source_ids: list[str] | None = None,
    claim_jsons: Sequence[str] | None = None,
    system_prompt: str = DEFAULT_SYSTEM_PROMPT,
) -> dict:
    """Assemble a non-refused result object, fields in the fixed order of docs/gate-rules.md, "Result objects".

    ``answer_request`` is built here for ``ready`` (by ``answer_request`` from
    ``claim_jsons``, the claims pre-serialized by ``claim_json``, when given; else by
    ``answer_request_reference`` from ``claims``; with ``system_prompt`` as its system
    message) and is ``None`` otherwise;
    ``agreed_value`` / ``missing_claim_source_ids`` are added only when given.
    """
    request = None
    if status == "ready":
        request = (
            answer_request(requested_version, operation, claim_key, claim_jsons, system_prompt)
            if claim_jsons is not None
            else answer_request_reference(requested_version, operation, claim_key, claims, system_prompt)
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
    Written by ``io.tables.jsonl_line``, it is the specification of the lines
    ``result_lines.result_lines`` joins from pre-serialized pieces (held byte-equal by
    ``tests/gate/test_result_lines.py``).
    """
    entry = entry_fields(request, case_id)
    entry["result"] = result
    return entry
