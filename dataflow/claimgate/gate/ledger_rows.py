"""Ledger rows of a gate run: what each prepared request relied on (docs/recheck-rules.md, "Prepared requests").

One row per case: the manifest identity (``io.ledger_file.corpus_identity`` over every pinned
source's id and SHA-256, the manifest's own hashes of the file bytes), each candidate source's id
and pinned SHA-256 (``None`` for an id the manifest does not pin), the request as decided (the case
row's fields but ``case_id``) and the gate's ``status`` and ``reason``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from claimgate.io.ledger_file import corpus_identity

#: The case fields a prepared request records (absent ones are left out).
REQUEST_FIELDS = ("candidate_ids", "requested_version", "claim_key", "operation")


def request_of(case: object) -> dict:
    """The request fields of a case row (``REQUEST_FIELDS`` present in it); ``{}`` for a row that is not a dict."""
    return {f: case[f] for f in REQUEST_FIELDS if f in case} if isinstance(case, Mapping) else {}


def request_ledger_rows(decided: Iterable[tuple[object, object, str, str]], pins: Mapping[str, str]) -> list[dict]:
    """One ledger row (unsealed) per ``(case_id, case row, status, reason)``; ``pins`` is ``{source_id: sha256}``."""
    manifest = corpus_identity(pins)
    out = []
    for case_id, case, status, reason in decided:
        request = request_of(case)
        candidates = request.get("candidate_ids")
        ids = [c for c in candidates if isinstance(c, str)] if isinstance(candidates, list) else []
        out.append(
            {
                "kind": "request",
                "case_id": case_id,
                "request": request,
                "status": status,
                "reason": reason,
                "corpus_sha256": manifest,
                "sources": {c: pins.get(c) for c in sorted(set(ids))},
            }
        )
    return out
