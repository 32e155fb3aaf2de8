"""The request checks: the rules about one case row's shape, shared by the batch gate and the one-case reference.

Which fields a case row must have, in which order they are checked, and which
reason refuses it (docs/gate-rules.md, "Request checks", "Versions" and "Case
tables"). ``stages.validated_requests`` (a whole table) and ``reference.decide_case``
(one case) both call ``check_request``, so the two can only differ in how they
combine sources. The result object a decision becomes is ``result_object.py``.
"""

from __future__ import annotations

from collections.abc import Mapping

from claimgate.gate.schema import ClaimSchema

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
