"""The batch gate (one Hamilton execution over frames) equals the one-case-at-a-time rules, field for field.

``reference.decide_case`` is docs/gate-rules.md applied to one case; the batch must give
the same result object for every row of the fixture table and of a generated table
with bad rows of every kind, whatever the case table's format.
"""

from __future__ import annotations

import json

import pytest
from claimgate.cli.documents import case_entries
from claimgate.execution import drivers
from claimgate.gate.reference import decide_case
from claimgate.gate.result_object import refused_result
from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

from ..helpers import FIXTURES


def reference_results(run: drivers.GateRun) -> list[dict]:
    """Every row decided by ``reference.decide_case`` (case-table problems refused as ``invalid_case``)."""
    sources = {record["source_id"]: record for record in run.verified_sources.to_dict("records")}
    results = []
    for row, problem in zip(run.case_rows["request"], run.case_rows["case_problem"]):
        if problem:
            results.append(refused_result("GateError", "invalid_case", "validated_requests"))
        else:
            results.append(decide_case(row, sources, run.schema))
    return results


def assert_equal_field_for_field(run: drivers.GateRun) -> None:
    expected = reference_results(run)
    got = run.results["result"].tolist()
    assert len(got) == len(expected) == len(run.case_rows)
    for position, (batch, one) in enumerate(zip(got, expected)):
        assert list(batch) == list(one), f"row {position}: fields or their order differ"
        for field in one:
            assert batch[field] == one[field], f"row {position}: {field} differs"
        assert json.dumps(batch) == json.dumps(one), f"row {position}: serializations differ"


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """150 pinned sources and 3,000 cases with bad rows (JSONL), plus a portable 1,200-case table."""
    folder = tmp_path_factory.mktemp("generated")
    manifest = write_sources(folder / "docs", n_sources=150, seed=11, mean_bytes=1500)
    cases = write_case_table(folder / "cases.jsonl", case_rows(manifest, 3000, seed=11, bad_rate=0.08))
    portable = case_rows(manifest, 1200, seed=12, bad_rate=0.1, portable=True)
    return manifest, cases, portable, folder


def test_fixture_table_equals_reference():
    assert_equal_field_for_field(drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json"))


def test_generated_table_equals_reference(generated):
    manifest, cases, _, _ = generated
    run = drivers.run_gate(manifest, cases)
    assert_equal_field_for_field(run)
    statuses = set(run.results["reason"])
    # The generated table reaches every decision and many refusals, so the comparison means something.
    for reason in (
        "eligible_directives_agree",
        "same_version_directives_disagree",
        "no_eligible_version",
        "requested_claim_missing",
        "malformed_directive",
        "unknown_directive_value",
        "invalid_case",
        "invalid_candidate_ids",
        "unknown_candidate",
        "invalid_source_version",
    ):
        assert reason in statuses, reason


def test_generated_case_ids_missing_are_null_not_nan(generated):
    manifest, cases, _, _ = generated
    run = drivers.run_gate(manifest, cases)
    entries = case_entries(run)
    missing = [e for e in entries if e["case_id"] is None]
    assert missing, "the generated table has rows without a case_id"
    assert "NaN" not in json.dumps(entries)


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv", ".parquet"])
def test_every_input_format_gives_the_same_results(generated, suffix):
    manifest, _, portable, folder = generated
    reference_run = drivers.run_gate(manifest, write_case_table(folder / "portable-reference.jsonl", portable))
    run = drivers.run_gate(manifest, write_case_table(folder / f"portable{suffix}", portable))
    assert run.results["result"].tolist() == reference_run.results["result"].tolist()
    assert run.results["case_id"].tolist() == reference_run.results["case_id"].tolist()
    assert_equal_field_for_field(run)
