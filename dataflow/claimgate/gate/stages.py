"""The contract gate's decision stages (before generation), as Hamilton nodes over frames.

Why: an assistant answering a question about a versioned API is wrong before the
model starts when the only page stating a rule is for another version, or when two
pages of the requested version state different rules. This gate selects the
requested version exactly, compares the explicit directives the eligible sources
declare, and prepares a cited answer request only when they all declare the
requested key and agree. Otherwise it stops with a stable reason.

What it refuses to do: read meaning into prose (only directive lines count), let a
newer version or the candidate order pick a winner, treat silence as agreement, or
call a model (the answer request is prepared, never sent).

Each deciding node decides the cases it can and passes the rest on (a
``decisions.Stage``); it names the reason codes it decides in ``@tag(decides=...)``,
which is where ``decided_at`` and the pictures' decision order come from:

``validated_requests → eligible_sources → directive_errors → missing_sources →
conflicting_values → agreed_values``, with ``candidate_sources``,
``source_directives``, ``parsed_claims`` and ``requested_claims`` carrying rows between
them; the nodes of ``claimgate.gate.results`` (``case_decisions`` … ``gate_result``) only
assemble what they decided.
The whole case table is decided in one execution, over frames; per-case Python is
limited to the request checks on raw rows. The rules: docs/gate-rules.md.
"""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
from hamilton.function_modifiers import tag

from claimgate.errors import DirectiveError, bounded_detail
from claimgate.gate.decisions import Stage, decisions
from claimgate.gate.directives import DIRECTIVE_ERROR_REASONS, ignored_lines_of, parse_directives
from claimgate.gate.requests import REQUEST_CHECKS, check_request, unversioned_source_ids
from claimgate.gate.result_object import CLAIM_FIELDS
from claimgate.gate.schema import ClaimSchema

_EMPTY_CANDIDATES = {
    "position": "int64",
    "rank": "int64",
    "source_id": "str",
    "source_version": "str",
    "requested_version": "str",
}
_REQUEST_COLUMNS = ["position", "candidate_ids", "requested_version", "claim_key", "operation"]
_REQUESTED_CLAIM_COLUMNS = {"position": "int64", "source_id": "str", "start": "int64", "value": "str",
                            "claim_number": "int64"}  # fmt: skip


@tag(decides=list(REQUEST_CHECKS))
def validated_requests(case_table: pd.DataFrame, verified_sources: pd.DataFrame, claim_schema: ClaimSchema) -> Stage:
    """The request checks: decides ``refused`` / ``GateError`` for every invalid case row.

    Needs ``case_table`` columns ``position`` (int64), ``request`` (object: the raw
    row) and ``case_problem`` (str). ``decided``: the refused cases (``reason`` from
    ``requests.REQUEST_CHECKS``, the first check that fails; a row with a
    ``case_problem`` is ``invalid_case``). ``passed``: one row per valid case,
    ``position`` (int64), ``candidate_ids`` (list of str), ``requested_version``,
    ``claim_key``, ``operation`` (str). See docs/gate-rules.md, "Request checks".
    """
    versions = dict(zip(verified_sources["source_id"], verified_sources["version"]))
    unversioned = unversioned_source_ids(versions, claim_schema)
    checked = []
    for position, request, problem in zip(
        case_table["position"].tolist(), case_table["request"].tolist(), case_table["case_problem"].tolist()
    ):
        if problem:
            operation, reason, detail = None, "invalid_case", problem
        else:
            operation, reason, detail = check_request(request, versions, claim_schema, unversioned)
        checked.append((position, request, operation, reason, bounded_detail(detail)))
    refused = [(p, r, d) for p, _, _, r, d in checked if r]
    valid = [(p, q["candidate_ids"], q["requested_version"], q["claim_key"], o) for p, q, o, r, _ in checked if not r]
    decided = decisions(
        [p for p, _, _ in refused],
        status="refused",
        error="GateError",
        reason=[r for _, r, _ in refused],
        detail=[d for _, _, d in refused],
    )
    # dtype=object first: pandas would infer ``str`` and copy the candidate lists into arrays.
    passed = pd.DataFrame(valid, columns=_REQUEST_COLUMNS, dtype=object).astype({"position": "int64"})
    return Stage(decided=decided, passed=passed)


def candidate_sources(validated_requests: Stage, verified_sources: pd.DataFrame) -> pd.DataFrame:
    """One row per (valid case, candidate): ``position, rank, source_id, source_version, requested_version``.

    ``position``/``rank`` int64, the rest str. ``rank`` is the 0-based place of the
    candidate in the request; it is kept for display only and never used to decide.
    Refused requests contribute no row.
    """
    valid = validated_requests.passed
    if valid.empty:
        return pd.DataFrame({c: pd.Series(dtype=t) for c, t in _EMPTY_CANDIDATES.items()})
    # The candidate lists are flattened in Python (an explode, a groupby and a merge cost more
    # than the 1-4 candidates of a case): each valid case's rows together, in request order.
    candidates = valid["candidate_ids"].tolist()
    lengths = np.fromiter((len(ids) for ids in candidates), dtype="int64", count=len(candidates))
    ids = list(itertools.chain.from_iterable(candidates))
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    versions = dict(zip(verified_sources["source_id"].tolist(), verified_sources["version"].tolist()))
    frame = pd.DataFrame(
        {
            "position": np.repeat(valid["position"].to_numpy(dtype="int64"), lengths),
            "rank": np.arange(len(ids), dtype="int64") - starts,
            "source_id": ids,
            "source_version": [versions.get(source_id) for source_id in ids],  # every id is known (request checks)
            "requested_version": np.repeat(valid["requested_version"].to_numpy(dtype=object), lengths),
        }
    )
    return frame.astype(_EMPTY_CANDIDATES)


@tag(decides=["no_eligible_version"])
def eligible_sources(candidate_sources: pd.DataFrame, validated_requests: Stage) -> Stage:
    """Version selection: decides ``not_in_docs`` / ``no_eligible_version`` for a case with no eligible source.

    A candidate is eligible when its source version equals the requested version,
    exactly (string equality: ``1.0`` is not ``1.00``; a newer version is never a
    fallback). ``passed``: the eligible candidate rows (columns of
    ``candidate_sources``) of every other valid case. See docs/gate-rules.md,
    "Version selection".
    """
    mask = candidate_sources["source_version"] == candidate_sources["requested_version"]
    eligible = candidate_sources.loc[mask].reset_index(drop=True)
    valid = validated_requests.passed["position"]
    none_eligible = valid.loc[~valid.isin(eligible["position"])]
    decided = decisions(none_eligible, status="not_in_docs", reason="no_eligible_version")
    return Stage(decided=decided, passed=eligible)


def source_directives(eligible_sources: Stage, verified_sources: pd.DataFrame, claim_schema: ClaimSchema) -> dict:
    """Directives of every source eligible for at least one open case, each source parsed once.

    A dict of two frames. ``claims``: one row per (source, claim) with
    ``result_object.CLAIM_FIELDS`` (``start_line``/``end_line`` 1-based, ``start``/``end``
    character offsets, all int64; the rest str), sorted by ``source_id`` then ``start``.
    ``errors``: one row per source whose directives are refused (the parser's first
    ``DirectiveError``), columns ``source_id, reason, detail`` (str). Sources eligible
    for no open case are not read. See docs/gate-rules.md, "Directives".
    """
    needed = set(eligible_sources.passed["source_id"].unique())
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
    return {"claims": parsed, "errors": refused}


def parsed_claims(source_directives: dict) -> pd.DataFrame:
    """One row per (eligible source, claim) with ``result_object.CLAIM_FIELDS``, sorted by source id, offset."""
    return source_directives["claims"]


#: Columns of ``ignored_directive_lines`` and their dtypes.
IGNORED_LINE_COLUMNS = {"source_id": "str", "line": "int64", "rule": "str", "quote": "str"}


def ignored_directive_lines(verified_sources: pd.DataFrame, claim_schema: ClaimSchema) -> pd.DataFrame:
    """Lines of every pinned source that a schema opt-in keeps from being read as directives.

    One row per line, sorted by ``source_id`` then ``line``: ``source_id`` (str),
    ``line`` (int64, 1-based), ``rule`` (str: ``skip_fenced_code`` or ``scope_prefix``),
    ``quote`` (str, the line, at most 200 characters). Empty when the schema has no
    opt-in (docs/gate-rules.md, "Directive opt-ins"). Every pinned source is listed,
    whether or not a case uses it, so the listing does not depend on the case table.
    Decides nothing: no case's status depends on it.
    """
    rows = []
    if claim_schema.skip_fenced_code or claim_schema.directive_scope != "line":  # else no text is read at all
        texts = sorted(zip(verified_sources["source_id"].tolist(), verified_sources["text"].tolist()))
        rows = [line for source_id, text in texts for line in ignored_lines_of(text, claim_schema, source_id)]
    return pd.DataFrame(rows, columns=list(IGNORED_LINE_COLUMNS)).astype(IGNORED_LINE_COLUMNS)


@tag(decides=list(DIRECTIVE_ERROR_REASONS))
def directive_errors(eligible_sources: Stage, source_directives: dict) -> Stage:
    """Directive refusals: decides ``refused`` / ``DirectiveError`` for a case with a refused eligible source.

    A case is refused when any of its eligible sources has a directive the schema
    rejects (``source_directives["errors"]``); its ``reason`` and ``detail`` are those
    of the first such source in source-id order. ``passed``: the eligible rows of
    every other case. See docs/gate-rules.md, "Directives" and "Decision order".
    """
    eligible = eligible_sources.passed
    hit = eligible[["position", "source_id"]].merge(source_directives["errors"], on="source_id")
    first = hit.sort_values(["position", "source_id"]).drop_duplicates("position")
    decided = decisions(
        first["position"], status="refused", error="DirectiveError", reason=first["reason"], detail=first["detail"]
    )
    passed = eligible.loc[~eligible["position"].isin(first["position"])].reset_index(drop=True)
    return Stage(decided=decided, passed=passed)


def requested_claims(directive_errors: Stage, parsed_claims: pd.DataFrame, validated_requests: Stage) -> pd.DataFrame:
    """The claims each open case asked for: its eligible sources' directives for its (operation, key).

    One row per (case, claim): ``position`` (int64), ``source_id`` (str), ``start``
    (int64), ``value`` (str) and ``claim_number`` (int64: the claim's row in
    ``parsed_claims``), sorted by position, source id, start. Only these columns
    travel through the join; the full claim records are built once per parsed claim
    when results are assembled.
    """
    wanted = validated_requests.passed[["position", "operation", "claim_key"]].astype(
        {"operation": "str", "claim_key": "str"}
    )
    open_pairs = directive_errors.passed[["position", "source_id"]].merge(wanted, on="position")
    numbered = parsed_claims[["source_id", "operation", "claim_key", "start", "value"]].assign(
        claim_number=np.arange(len(parsed_claims), dtype="int64")
    )
    joined = open_pairs.merge(numbered, on=["source_id", "operation", "claim_key"])
    joined = joined.sort_values(["position", "source_id", "start"], kind="stable").reset_index(drop=True)
    return joined[list(_REQUESTED_CLAIM_COLUMNS)].astype(_REQUESTED_CLAIM_COLUMNS)


@tag(decides=["requested_claim_missing"])
def missing_sources(directive_errors: Stage, requested_claims: pd.DataFrame) -> Stage:
    """Silence is not agreement: decides ``not_in_docs`` / ``requested_claim_missing``.

    A case is decided here when one of its eligible sources declares no directive
    for the requested (operation, key). ``decided`` adds ``missing_claim_source_ids``
    (object: the sorted list of those sources). ``passed``: the ``requested_claims``
    rows of every other case. See docs/gate-rules.md, "Decision order".
    """
    declaring = requested_claims[["position", "source_id"]].drop_duplicates()
    marked = directive_errors.passed[["position", "source_id"]].merge(
        declaring, on=["position", "source_id"], how="left", indicator=True
    )
    missing = marked.loc[marked["_merge"] == "left_only", ["position", "source_id"]]
    missing = missing.sort_values(["position", "source_id"])
    # One list per case from the sorted pairs (a groupby of lists calls Python once per group).
    cases, starts = np.unique(missing["position"].to_numpy(), return_index=True)
    ids = missing["source_id"].tolist()
    lists = [ids[a:b] for a, b in zip(starts.tolist(), [*starts[1:].tolist(), len(ids)])]
    decided = decisions(
        cases,
        status="not_in_docs",
        reason="requested_claim_missing",
        missing_claim_source_ids=pd.Series(lists, dtype=object),
    )
    passed = requested_claims.loc[~requested_claims["position"].isin(cases)].reset_index(drop=True)
    return Stage(decided=decided, passed=passed)


def _distinct_values(claims: pd.DataFrame) -> pd.Series:
    """Number of distinct ``value`` per ``position`` of a ``requested_claims`` frame."""
    return claims.groupby("position", sort=True)["value"].nunique()


@tag(decides=["same_version_directives_disagree"])
def conflicting_values(missing_sources: Stage) -> Stage:
    """Values that differ: decides ``conflict`` / ``same_version_directives_disagree``; the gate never picks one.

    Every eligible source of these cases declares the key; a case is decided here when
    its claims hold more than one distinct value. ``passed``: the ``requested_claims``
    rows of the cases whose values are all equal. See docs/gate-rules.md, "Decision order".
    """
    claims = missing_sources.passed
    distinct = _distinct_values(claims)
    disagreeing = distinct.index[distinct > 1]
    decided = decisions(disagreeing, status="conflict", reason="same_version_directives_disagree")
    passed = claims.loc[~claims["position"].isin(disagreeing)].reset_index(drop=True)
    return Stage(decided=decided, passed=passed)


@tag(decides=["eligible_directives_agree"])
def agreed_values(conflicting_values: Stage) -> Stage:
    """Agreement: decides ``ready`` / ``eligible_directives_agree`` for every case still open.

    Every eligible source declares the requested key and all values are equal.
    ``decided`` adds ``agreed_value`` (str). ``passed`` is empty: no case is left.
    See docs/gate-rules.md, "Decision order".
    """
    claims = conflicting_values.passed
    first = claims.drop_duplicates("position")
    decided = decisions(
        first["position"], status="ready", reason="eligible_directives_agree", agreed_value=first["value"]
    )
    return Stage(decided=decided, passed=claims.iloc[0:0])
