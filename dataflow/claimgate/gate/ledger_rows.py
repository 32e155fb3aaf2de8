"""Ledger rows of a gate run: what each prepared request relied on (docs/recheck-rules.md, "Prepared requests").

One row per case: the manifest identity (``io.ledger_file.corpus_identity`` over every pinned
source's id and SHA-256, the manifest's own hashes of the file bytes), each candidate source's id
and pinned SHA-256 (``None`` for an id the manifest does not pin), the request as decided (the case
row's fields but ``case_id``), the gate's ``status`` and ``reason``, and the claim schema's identity
(``schema_sha256``: a recheck under another schema is refused, not read as changed documents).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping

from claimgate.errors import IngestionError
from claimgate.gate.schema import ClaimSchema
from claimgate.io.ledger_file import canonical_bytes, corpus_identity

#: The case fields a prepared request records (absent ones are left out).
REQUEST_FIELDS = ("candidate_ids", "requested_version", "claim_key", "operation")


def request_of(case: object) -> dict:
    """The request fields of a case row (``REQUEST_FIELDS`` present in it); ``{}`` for a row that is not a dict."""
    return {f: case[f] for f in REQUEST_FIELDS if f in case} if isinstance(case, Mapping) else {}


def schema_identity(schema: ClaimSchema) -> str:
    """SHA-256 hex of the schema's JSON form (``ClaimSchema.as_dict``, keys sorted, compact): which schema
    a request was prepared under (its prefix, operations, values, version scheme and directive rules)."""
    return hashlib.sha256(canonical_bytes(schema.as_dict())).hexdigest()


def check_same_schema(ledger: Iterable[dict], schema: ClaimSchema) -> None:
    """Refuse a recheck whose schema is not the one the ledger's requests were prepared under.

    ``IngestionError`` ``ledger_other_schema`` (docs/recheck-rules.md, "Refusals") at the first request row
    whose ``schema_sha256`` differs from today's :func:`schema_identity`: under another schema the gate
    decides another contract (a version pattern, the values a key allows), so every difference it reported
    would be the schema's, not the documents'. Rows written before the field existed are not checked.
    """
    today = schema_identity(schema)
    for line, row in enumerate(ledger, 1):
        recorded = row.get("schema_sha256") if row.get("kind") == "request" else None
        if recorded is not None and recorded != today:
            raise IngestionError(
                "ledger_other_schema",
                f"ledger line {line} was prepared under another claim schema (sha256 {str(recorded)[:12]}…, "
                f"today's {today[:12]}…); pass --schema as the gate run had it",
            )


def request_ledger_rows(
    decided: Iterable[tuple[object, object, dict]],
    pins: Mapping[str, str],
    versions: Mapping[str, str],
    schema: ClaimSchema | None = None,
) -> list[dict]:
    """One ledger row (unsealed) per ``(case_id, case row, result object)``.

    ``pins`` is ``{source_id: sha256}`` and ``versions`` ``{source_id: version}`` of the manifest: a
    re-pin may change a source's version without its bytes, and the version decides eligibility.
    ``schema``: the run's claim schema, recorded as ``schema_sha256`` (:func:`schema_identity`) so a recheck
    under another one is refused (:func:`check_same_schema`).

    The row keeps the result's ``status``, ``reason`` and ``agreed_value`` (``None`` unless ``ready``).
    """
    identity = {"schema_sha256": schema_identity(schema)} if schema is not None else {}
    manifest = corpus_identity(pins)
    out = []
    for case_id, case, result in decided:
        request = request_of(case)
        candidates = request.get("candidate_ids")
        ids = [c for c in candidates if isinstance(c, str)] if isinstance(candidates, list) else []
        out.append(
            {
                "kind": "request",
                "case_id": case_id,
                "request": request,
                "status": result["status"],
                "reason": result["reason"],
                "agreed_value": result.get("agreed_value"),
                "corpus_sha256": manifest,
                "sources": {c: pins.get(c) for c in sorted(set(ids))},
                "versions": {c: versions.get(c) for c in sorted(set(ids))},
                **identity,
            }
        )
    return out


def recheck_request(row: dict, line: int, pins: Mapping[str, str], versions: Mapping[str, str], decide) -> dict:
    """The recheck row of one prepared request (docs/recheck-rules.md, "Prepared requests").

    ``pins`` and ``versions`` are today's ``{source_id: sha256}`` and ``{source_id: version}``;
    ``decide(request) -> result object`` decides the
    request against today's verified sources (``gate.reference.decide_case``). ``status``:
    ``unchanged`` (every candidate's pinned hash and version are the same, not decided again), ``intact`` (a
    candidate changed, the gate decides the same status, reason and agreed value), ``decision_changed``
    (any of the three differs). Each row gives ``old_status``, ``old_reason``, ``old_value`` and today's
    ``new_status``, ``new_reason``, ``new_value``.
    """
    old = (row["status"], row["reason"], row.get("agreed_value"))
    out = {"ledger_line": line, "case_id": row["case_id"], **dict(zip(("old_status", "old_reason", "old_value"), old))}
    same_pins = all(pins.get(c) == sha for c, sha in row["sources"].items())
    if same_pins and all(versions.get(c) == v for c, v in row.get("versions", {}).items()):
        new, status = old, "unchanged"
    else:
        result = decide(row["request"])
        new = (result["status"], result["reason"], result.get("agreed_value"))
        status = "intact" if new == old else "decision_changed"
    return {**out, "status": status, **dict(zip(("new_status", "new_reason", "new_value"), new))}
