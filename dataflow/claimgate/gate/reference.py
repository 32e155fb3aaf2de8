"""The gate's rules applied to one case at a time: the executable specification, and the online single-case path.

This is the specification of docs/gate-rules.md written as one plain function,
``decide_case``, with no frames. The fast path it specifies is the batch gate: the
deciding nodes of ``stages.py`` and the assembly of ``results.py``, which decide a
whole case table over frames in one Hamilton execution (what the command line and
``run_pipeline.py`` run). ``tests/gate/test_batch_equivalence.py`` holds the two
equal field for field (and ``tests/gate/test_stages.py`` stage by stage);
``benchmarks/gate_scale.py`` measures the batch against it. It also serves
production: ``Gate.decide`` (``claimgate.api``) decides one online case with it,
where one Hamilton execution would cost more than the case. Like the rules page, it
parses the eligible sources of every case again. ``decided_at`` is not written here:
it is the node whose ``@tag(decides=...)`` lists the reason
(``decision_order.decided_at_by_reason``), so the reference and the batch gate name
the same node.

Decision order: request checks (``GateError``) → no eligible source
(``not_in_docs / no_eligible_version``) → a directive error in an eligible source
(``DirectiveError``, the first in source-id order) → an eligible source lacks the
key (``not_in_docs / requested_claim_missing``) → values differ (``conflict /
same_version_directives_disagree``) → ``ready / eligible_directives_agree``.
Lists of source ids and claims are sorted by source id (then line), so candidate
order never changes a decision or a prepared request.
"""

from __future__ import annotations

from collections.abc import Mapping

from claimgate.errors import DirectiveError
from claimgate.gate.decision_order import decided_at_by_reason
from claimgate.gate.directives import parse_directives
from claimgate.gate.requests import check_request
from claimgate.gate.result_object import decided_result, refused_result
from claimgate.gate.schema import ClaimSchema
from claimgate.gate.values import typed_columns


def decide_case(row: Mapping | object, sources: Mapping[str, Mapping[str, str]], schema: ClaimSchema) -> dict:
    """Decide one case row against verified sources; return its result object.

    ``sources`` maps source id → verified record (``source_id, version, path, url,
    sha256, document_revision, text``). Never raises for a bad case: a refusal is
    returned as ``{"status": "refused", "error", "reason", "answer_request": None,
    "decided_at"}``.
    """
    versions = {source_id: record["version"] for source_id, record in sources.items()}
    operation, reason, _detail = check_request(row, versions, schema)
    if reason:
        return refused_result("GateError", reason, decided_at_by_reason()[reason])
    assert isinstance(row, Mapping) and operation is not None
    candidates: list[str] = row["candidate_ids"]
    requested_version: str = row["requested_version"]
    key: str = row["claim_key"]
    eligible = sorted(c for c in candidates if versions[c] == requested_version)
    excluded = sorted(c for c in candidates if versions[c] != requested_version)
    common = {
        "requested_version": requested_version,
        "claim_key": key,
        "operation": operation,
        "candidate_ids": candidates,
        "eligible_source_ids": eligible,
        "excluded_wrong_version_ids": excluded,
    }
    if not eligible:
        return _decided(common, status="not_in_docs", reason="no_eligible_version", claims=[])
    claims: list[dict] = []
    missing: list[str] = []
    for source_id in eligible:  # sorted: the first directive error in source-id order wins
        record = sources[source_id]
        try:
            directives = parse_directives(record["text"], schema, source_id)
        except DirectiveError as exc:
            return refused_result("DirectiveError", exc.reason, decided_at_by_reason()[exc.reason])
        matching = [d for d in directives if d["operation"] == operation and d["claim_key"] == key]
        if not matching:
            missing.append(source_id)
        for directive in matching:
            claims.append(
                {
                    "source_id": source_id,
                    "version": record["version"],
                    "path": record["path"],
                    "url": record["url"],
                    "source_sha256": record["sha256"],
                    "document_revision": record["document_revision"],
                    **directive,
                }
            )
    if missing:
        return _decided(
            common,
            status="not_in_docs",
            reason="requested_claim_missing",
            claims=claims,
            missing_claim_source_ids=missing,
        )
    values = {typed_columns(claim)["agreement"] for claim in claims}  # typed equality (values.py)
    if len(values) > 1:
        return _decided(common, status="conflict", reason="same_version_directives_disagree", claims=claims)
    agreed = typed_columns(claims[0])["agreed"]
    return _decided(
        common,
        status="ready",
        reason="eligible_directives_agree",
        claims=claims,
        agreed_value=agreed,
        system_prompt=schema.system_prompt,
    )


def _decided(common: dict, *, reason: str, **fields) -> dict:
    """``result_object.decided_result`` with ``decided_at`` looked up for ``reason``."""
    return decided_result(**common, reason=reason, decided_at=decided_at_by_reason()[reason], **fields)
