"""The eight fixture cases (docs/gate-rules.md, "The teaching cases"): status, reason, decided_at via the driver."""

from __future__ import annotations

import pytest

EXPECTED = {
    "newer-wrong-version-excluded": ("ready", "eligible_directives_agree", "agreed_values"),
    "compatible-agreement": ("ready", "eligible_directives_agree", "agreed_values"),
    "same-version-conflict": ("conflict", "same_version_directives_disagree", "conflicting_values"),
    "absent-version": ("not_in_docs", "no_eligible_version", "eligible_sources"),
    "missing-claim": ("not_in_docs", "requested_claim_missing", "missing_sources"),
    "partial-missing-claim": ("not_in_docs", "requested_claim_missing", "missing_sources"),
    "unknown-directive-value": ("refused", "unknown_directive_value", "directive_errors"),
    "malformed-directive": ("refused", "malformed_directive", "directive_errors"),
}


@pytest.mark.parametrize("case_id", sorted(EXPECTED))
def test_fixture_case_status_reason_and_decided_at(fixture_run, case_id):
    row = fixture_run.results.set_index("case_id").loc[case_id]
    assert (row["status"], row["reason"], row["decided_at"]) == EXPECTED[case_id]
    assert row["result"]["status"] == EXPECTED[case_id][0]
    assert row["result"]["reason"] == EXPECTED[case_id][1]
    assert row["result"]["decided_at"] == EXPECTED[case_id][2]


def test_fixture_table_has_exactly_the_eight_cases_in_order(fixture_run):
    assert fixture_run.results["case_id"].tolist() == list(EXPECTED)
