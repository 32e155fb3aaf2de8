"""The gate's result object (``gate.result_object``): the answer request's exact text, the fields of each status.

Through the batch gate on the demo fixtures, and the answer request's fast path
(``answer_request``, from claims serialized once) byte-equal to its one-case
specification (``answer_request_reference``, from claim records).
"""

from __future__ import annotations

import json

import pytest
from claimgate.gate import result_object
from claimgate.gate.result_object import answer_request, answer_request_reference, claim_json
from hypothesis import given, settings
from hypothesis import strategies as st

SYSTEM_CONTENT = (
    "Describe only the supplied explicit fictional API contract. "
    "Cite every supplied source ID. Do not invent an unsupported rule."
)
CLAIM_FIELDS = [
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
]
DECIDED_FIELDS = [
    "requested_version",
    "claim_key",
    "operation",
    "candidate_ids",
    "eligible_source_ids",
    "excluded_wrong_version_ids",
    "answer_request",
    "status",
    "reason",
    "claims",
]
REFUSED_FIELDS = {"status", "error", "reason", "answer_request", "decided_at"}


# ----------------------------------------------------------------------------- the answer request


@pytest.mark.parametrize("case_id", ["newer-wrong-version-excluded", "compatible-agreement"])
def test_the_answer_request_has_the_exact_shape(fixture_results, case_id):
    result = fixture_results[case_id]
    request = result["answer_request"]
    assert list(request) == ["messages"]
    system, user = request["messages"]
    assert system == {"role": "system", "content": SYSTEM_CONTENT}
    assert list(user) == ["role", "content"] and user["role"] == "user"
    expected = json.dumps(
        {
            "requested_version": result["requested_version"],
            "operation": "create_copy",
            "claim_key": result["claim_key"],
            "source_claims": result["claims"],
        },
        sort_keys=True,
    )
    assert user["content"] == expected
    decoded = json.loads(user["content"])
    assert set(decoded) == {"requested_version", "operation", "claim_key", "source_claims"}
    for claim in decoded["source_claims"]:
        assert sorted(claim) == sorted(CLAIM_FIELDS)
    assert {c["source_id"] for c in decoded["source_claims"]} == set(result["eligible_source_ids"])


def test_the_answer_request_of_compatible_agreement_cites_both_sources_by_line_and_span(fixture_results):
    claims = json.loads(fixture_results["compatible-agreement"]["answer_request"]["messages"][1]["content"])[
        "source_claims"
    ]
    assert [(c["source_id"], c["value"], c["start_line"]) for c in claims] == [
        ("quill-guide", "refuse", 10),
        ("quill-reference", "refuse", 12),
    ]


@pytest.mark.parametrize(
    "case_id", ["same-version-conflict", "absent-version", "missing-claim", "partial-missing-claim"]
)
def test_only_a_ready_case_carries_an_answer_request(fixture_results, case_id):
    assert fixture_results[case_id]["answer_request"] is None


# ----------------------------------------------------------------------------- the result object per status


def test_ready_result_has_agreed_value_and_no_missing_ids(fixture_results):
    result = fixture_results["compatible-agreement"]
    assert list(result) == [*DECIDED_FIELDS, "agreed_value", "decided_at"]
    assert result["agreed_value"] == "refuse"
    assert result["operation"] == "create_copy"


def test_conflict_result_has_all_claims_and_neither_extra_field(fixture_results):
    result = fixture_results["same-version-conflict"]
    assert list(result) == [*DECIDED_FIELDS, "decided_at"]
    assert sorted((c["source_id"], c["value"]) for c in result["claims"]) == [
        ("quill-conflicting-guide", "overwrite"),
        ("quill-guide", "refuse"),
    ]


def test_no_eligible_version_result_has_neither_extra_field(fixture_results):
    result = fixture_results["absent-version"]
    assert list(result) == [*DECIDED_FIELDS, "decided_at"]
    assert result["excluded_wrong_version_ids"] == ["quill-guide", "quill-new-version"]


def test_requested_claim_missing_result_names_the_silent_sources_and_keeps_the_found_claims(fixture_results):
    result = fixture_results["partial-missing-claim"]
    assert list(result) == [*DECIDED_FIELDS, "missing_claim_source_ids", "decided_at"]
    assert result["missing_claim_source_ids"] == ["quill-missing-claim"]
    assert [(c["source_id"], c["value"]) for c in result["claims"]] == [("quill-guide", "refuse")]
    silent = fixture_results["missing-claim"]
    assert silent["missing_claim_source_ids"] == ["quill-guide"] and silent["claims"] == []


@pytest.mark.parametrize("case_id", ["unknown-directive-value", "malformed-directive"])
def test_refused_result_is_exactly_status_error_reason_null_request_decided_at(fixture_results, case_id):
    result = fixture_results[case_id]
    assert set(result) == REFUSED_FIELDS
    assert result["status"] == "refused" and result["error"] == "DirectiveError" and result["answer_request"] is None


# ----------------------------------------------------------------------------- reference and fast path


def test_the_claim_fields_are_the_result_objects_claim_fields():
    assert list(result_object.CLAIM_FIELDS) == CLAIM_FIELDS


@pytest.mark.parametrize("case_id", ["newer-wrong-version-excluded", "compatible-agreement"])
def test_answer_request_equals_its_reference_on_the_fixture_claims(fixture_results, case_id):
    result = fixture_results[case_id]
    fields = (result["requested_version"], result["operation"], result["claim_key"])
    fast = answer_request(*fields, [claim_json(claim) for claim in result["claims"]], SYSTEM_CONTENT)
    reference = answer_request_reference(*fields, result["claims"], SYSTEM_CONTENT)
    assert fast == reference == result["answer_request"]
    assert json.dumps(fast) == json.dumps(reference)


_TEXT = st.text(max_size=12)


@settings(max_examples=200, deadline=None)
@given(
    version=_TEXT,
    operation=_TEXT,
    key=_TEXT,
    values=st.lists(st.tuples(_TEXT, st.integers(0, 10**6), _TEXT), max_size=4),
    system=_TEXT,
)
def test_answer_request_equals_its_reference_on_any_text(version, operation, key, values, system):
    claims = [
        {
            **dict.fromkeys(result_object.CLAIM_FIELDS, ""),
            "value": value,
            "start": start,
            "start_line": start,
            "end": start,
            "end_line": start,
            "quote": quote,
        }
        for value, start, quote in values
    ]
    fast = answer_request(version, operation, key, [claim_json(claim) for claim in claims], system)
    assert fast == answer_request_reference(version, operation, key, claims, system)
