"""Each decision stage on small hand-built frames: it decides exactly the cases it can, and passes on the rest."""

from __future__ import annotations

import inspect

import pandas as pd
import pytest
from claimgate.gate import stages
from claimgate.gate.decision_order import decided_at_by_reason, gate_decision_stages
from claimgate.gate.decisions import (
    DECISION_COLUMNS,
    Stage,
    case_decisions,
    no_decisions,
)
from claimgate.gate.directives import DIRECTIVE_ERROR_REASONS
from claimgate.gate.schema import load_schema
from hypothesis import given, settings
from hypothesis import strategies as st

QUILL = load_schema(None)


def _sources(**versions: str) -> pd.DataFrame:
    """A ``verified_sources`` frame with the given ``source_id=version`` and texts ``<id>.md``."""
    ids = list(versions)
    return pd.DataFrame(
        {
            "source_id": ids,
            "version": list(versions.values()),
            "path": [f"{s}.md" for s in ids],
            "url": [f"https://quill.invalid/{s}" for s in ids],
            "sha256": ["0" * 64] * len(ids),
            "document_revision": ["1" * 64] * len(ids),
            "text": [""] * len(ids),
        }
    ).astype("str")


def _requests(*rows: tuple[int, list[str], str, str]) -> Stage:
    """A ``validated_requests`` stage that passed every ``(position, candidates, version, key)``."""
    passed = pd.DataFrame(
        [(p, c, v, k, "create_copy") for p, c, v, k in rows],
        columns=["position", "candidate_ids", "requested_version", "claim_key", "operation"],
        dtype=object,
    ).astype({"position": "int64"})
    return Stage(decided=no_decisions(), passed=passed)


def _eligible(*pairs: tuple[int, str]) -> Stage:
    """An ``eligible_sources`` stage that passed the ``(position, source_id)`` rows (version 1.0)."""
    rows = pd.DataFrame(
        [(p, rank, s, "1.0", "1.0") for rank, (p, s) in enumerate(pairs)],
        columns=["position", "rank", "source_id", "source_version", "requested_version"],
    )
    return Stage(decided=no_decisions(), passed=rows)


def _claims(*rows: tuple[int, str, int, str]) -> pd.DataFrame:
    """A ``requested_claims`` frame of ``(position, source_id, start, value)`` rows."""
    frame = pd.DataFrame(rows, columns=["position", "source_id", "start", "value"])
    return frame.assign(claim_number=range(len(frame)), agreed=frame["value"]).astype(
        {"position": "int64", "source_id": "str", "start": "int64", "value": "str", "claim_number": "int64"}
    )


def _decided(stage: Stage) -> list[tuple]:
    return list(stage.decided[list(DECISION_COLUMNS)].itertuples(index=False, name=None))


def test_validated_requests_refuses_bad_rows_as_gate_errors_and_passes_the_valid_ones():
    good = {"case_id": "ok", "candidate_ids": ["a"], "requested_version": "1.0", "claim_key": "existing_path"}
    unknown = {**good, "case_id": "unknown", "candidate_ids": ["nowhere"]}
    table = pd.DataFrame(
        {
            "position": [0, 1, 2],
            "case_id": pd.Series(["ok", None, "unknown"], dtype=object),
            "request": pd.Series([good, "not an object", unknown], dtype=object),
            "case_problem": ["", "case row is a str, not an object", ""],
        }
    ).astype({"position": "int64", "case_problem": "str"})
    stage = stages.validated_requests(table, _sources(a="1.0"), QUILL)
    assert _decided(stage) == [
        (1, "refused", "invalid_case", "GateError", "case row is a str, not an object"),
        (2, "refused", "unknown_candidate", "GateError", "'nowhere' is not in the manifest"),
    ]
    assert stage.passed.to_dict("records") == [
        {
            "position": 0,
            "candidate_ids": ["a"],
            "requested_version": "1.0",
            "claim_key": "existing_path",
            "operation": "create_copy",
        }
    ]


def test_eligible_sources_decides_no_eligible_version_and_never_falls_back_to_another_version():
    requests = _requests((0, ["old", "new"], "1.0", "existing_path"), (1, ["new", "padded"], "1.0", "existing_path"))
    candidates = stages.candidate_sources(requests, _sources(old="1.0", new="2.0", padded="1.00"))
    stage = stages.eligible_sources(candidates, requests)
    assert _decided(stage) == [(1, "not_in_docs", "no_eligible_version", "", "")]
    assert stage.passed[["position", "source_id"]].values.tolist() == [[0, "old"]]


def test_directive_errors_refuses_a_case_with_the_first_refused_source_in_source_id_order():
    eligible = _eligible((0, "b-page"), (0, "a-page"), (0, "clean"), (1, "clean"))
    errors = pd.DataFrame(
        [("b-page", "malformed_directive", "b-page:3: bad"), ("a-page", "unknown_directive_value", "a-page:7: bad")],
        columns=["source_id", "reason", "detail"],
    )
    stage = stages.directive_errors(eligible, {"claims": None, "errors": errors})
    assert _decided(stage) == [(0, "refused", "unknown_directive_value", "DirectiveError", "a-page:7: bad")]
    assert stage.passed[["position", "source_id"]].values.tolist() == [[1, "clean"]]


def test_requested_claims_keeps_only_the_requested_operation_and_key_of_open_cases():
    requests = _requests((0, ["a", "b"], "1.0", "existing_path"), (1, ["a"], "1.0", "close_required"))
    parsed = pd.DataFrame(
        [
            ("b", "create_copy", "existing_path", "refuse", 40),
            ("a", "create_copy", "existing_path", "overwrite", 10),
            ("a", "create_copy", "close_required", "yes", 20),
        ],
        columns=["source_id", "operation", "claim_key", "value", "start"],
    )
    parsed = parsed.assign(agreement=parsed["value"], agreed=parsed["value"])
    claims = stages.requested_claims(_eligible((0, "b"), (0, "a"), (1, "a")), parsed, requests)
    assert claims.drop(columns="agreed").values.tolist() == [
        [0, "a", 10, "overwrite", 1],
        [0, "b", 40, "refuse", 0],
        [1, "a", 20, "yes", 2],
    ]


def test_a_source_that_is_silent_on_the_key_makes_the_case_missing_not_agreeing():
    open_cases = _eligible((0, "says"), (0, "silent"), (0, "also-silent"), (1, "says"))
    claims = _claims((0, "says", 5, "refuse"), (1, "says", 5, "refuse"))
    stage = stages.missing_sources(open_cases, claims)
    assert _decided(stage) == [(0, "not_in_docs", "requested_claim_missing", "", "")]
    assert stage.decided["missing_claim_source_ids"].tolist() == [["also-silent", "silent"]]
    assert stage.passed["position"].tolist() == [1]


def test_conflicting_values_decides_conflict_and_passes_cases_whose_values_agree():
    claims = _claims((0, "a", 1, "refuse"), (0, "b", 1, "overwrite"), (1, "a", 1, "refuse"), (1, "b", 9, "refuse"))
    stage = stages.conflicting_values(Stage(decided=no_decisions(), passed=claims))
    assert _decided(stage) == [(0, "conflict", "same_version_directives_disagree", "", "")]
    assert stage.passed["position"].tolist() == [1, 1]


def test_agreed_values_decides_ready_for_every_case_left_with_its_agreed_value():
    claims = _claims((1, "a", 1, "refuse"), (1, "b", 9, "refuse"), (4, "a", 2, "yes"))
    stage = stages.agreed_values(Stage(decided=no_decisions(), passed=claims))
    ready = ("ready", "eligible_directives_agree", "", "")
    assert _decided(stage) == [(1, *ready), (4, *ready)]
    assert stage.decided["agreed_value"].tolist() == ["refuse", "yes"]
    assert stage.passed.empty


@pytest.mark.parametrize("name, reasons", gate_decision_stages())
def test_the_deciding_node_holds_its_decision(name, reasons):
    source = inspect.getsource(getattr(stages, name))
    if name == "validated_requests":  # the checks themselves live in requests.check_request, called here
        assert '"GateError"' in source and "check_request(" in source
    elif name == "directive_errors":  # the parser names the reason; this node refuses the case
        assert '"DirectiveError"' in source
    else:
        assert all(f'"{reason}"' in source for reason in reasons), name


def test_every_directive_error_the_parser_raises_is_declared_by_directive_errors():
    from claimgate.gate import directives

    raised = set(
        piece.split('"')[1] for piece in inspect.getsource(directives).split("DirectiveError(")[1:] if '"' in piece
    )
    assert raised == set(DIRECTIVE_ERROR_REASONS)


_PAGE_TEXT = {
    "refuse": "# Page\n@quill create_copy existing_path=refuse\n",
    "overwrite": "Intro.\n@quill create_copy existing_path=overwrite\n",
    "silent": "# Page\nProse that mentions no directive at all.\n",
    "broken": "# Page\n@quill create_copy existing_path=rename\n",
}


@settings(max_examples=60, deadline=None)
@given(
    pages=st.lists(st.tuples(st.sampled_from(["1.0", "2.0"]), st.sampled_from(sorted(_PAGE_TEXT))), min_size=1,
                   max_size=5),
    cases=st.lists(st.tuples(st.sets(st.integers(0, 4), min_size=1, max_size=4), st.sampled_from(["1.0", "2.0"])),
                   min_size=1, max_size=8),
)  # fmt: skip
def test_the_stages_decide_every_case_once_as_the_one_case_reference_does(pages, cases):
    from claimgate.gate.reference import decide_case

    sources = _sources(**{f"p{i}": version for i, (version, _) in enumerate(pages)})
    sources["text"] = [_PAGE_TEXT[kind] for _, kind in pages]
    rows = [
        {
            "case_id": f"c{n}",
            "candidate_ids": sorted(f"p{i}" for i in picked if i < len(pages)) or ["p0"],
            "requested_version": version,
            "claim_key": "existing_path",
        }
        for n, (picked, version) in enumerate(cases)
    ]
    table = pd.DataFrame(
        {"position": range(len(rows)), "case_id": [r["case_id"] for r in rows], "request": rows, "case_problem": ""}
    ).astype({"position": "int64", "case_problem": "str"})
    requests = stages.validated_requests(table, sources, QUILL)
    eligible = stages.eligible_sources(stages.candidate_sources(requests, sources), requests)
    directives = stages.source_directives(eligible, sources, QUILL)
    errors = stages.directive_errors(eligible, directives)
    claims = stages.requested_claims(errors, stages.parsed_claims(directives), requests)
    missing = stages.missing_sources(errors, claims)
    conflicts = stages.conflicting_values(missing)
    agreed = stages.agreed_values(conflicts)
    stages_in_order = [requests, eligible, errors, missing, conflicts, agreed]
    decided = case_decisions(table, stages_in_order, decided_at_by_reason())  # each case once
    records = {record["source_id"]: record for record in sources.to_dict("records")}
    for position, row in enumerate(rows):
        one = decide_case(row, records, QUILL)
        assert (decided.at[position, "status"], decided.at[position, "reason"]) == (one["status"], one["reason"])
        assert decided.at[position, "decided_at"] == one["decided_at"]
