"""Claim schemas (docs/gate-rules.md): schema refusals, the schema's prefix, operations, and a second schema end to end.

The second schema is Lumen (``fixtures/second_schema``), a fictional storage SDK with prefix
``%lumen`` and two operations, so every case row must name its operation. Its case table has
one case per status and per ``GateError`` / ``DirectiveError`` reason.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claimgate.cli.documents import case_entries
from claimgate.errors import DirectiveError, IngestionError
from claimgate.execution import drivers
from claimgate.gate import stages as gate_stages
from claimgate.gate.directives import parse_directives
from claimgate.gate.reference import decide_case
from claimgate.gate.schema import load_schema

from ..helpers import FIXTURES, cli

LUMEN = FIXTURES / "second_schema"
LUMEN_SCHEMA = LUMEN / "lumen_schema.toml"

# position -> (case_id, status, error, reason, decided_at): the specification of the Lumen run.
LUMEN_EXPECTED = [
    ("put-newer-version-excluded", "ready", "", "eligible_directives_agree", "agreed_values"),
    ("delete-single-source-ready", "ready", "", "eligible_directives_agree", "agreed_values"),
    ("put-same-version-conflict", "conflict", "", "same_version_directives_disagree", "conflicting_values"),
    ("delete-same-version-conflict", "conflict", "", "same_version_directives_disagree", "conflicting_values"),
    ("put-absent-version", "not_in_docs", "", "no_eligible_version", "eligible_sources"),
    ("no-candidates", "not_in_docs", "", "no_eligible_version", "eligible_sources"),
    ("delete-missing-claim", "not_in_docs", "", "requested_claim_missing", "missing_sources"),
    ("put-partial-missing-claim", "not_in_docs", "", "requested_claim_missing", "missing_sources"),
    ("malformed-directive", "refused", "DirectiveError", "malformed_directive", "directive_errors"),
    ("unsupported-operation", "refused", "DirectiveError", "unsupported_operation", "directive_errors"),
    ("unsupported-claim-key", "refused", "DirectiveError", "unsupported_claim_key", "directive_errors"),
    ("unknown-directive-value", "refused", "DirectiveError", "unknown_directive_value", "directive_errors"),
    ("duplicate-directive", "refused", "DirectiveError", "duplicate_directive", "directive_errors"),
    (None, "refused", "GateError", "invalid_case", "validated_requests"),  # not an object
    (None, "refused", "GateError", "invalid_case", "validated_requests"),  # no case_id
    ("put-newer-version-excluded", "refused", "GateError", "invalid_case", "validated_requests"),  # repeated id
    ("invalid-candidate-ids", "refused", "GateError", "invalid_candidate_ids", "validated_requests"),
    ("duplicate-candidate", "refused", "GateError", "duplicate_candidate", "validated_requests"),
    ("invalid-requested-version", "refused", "GateError", "invalid_requested_version", "validated_requests"),
    ("missing-operation", "refused", "GateError", "missing_operation", "validated_requests"),
    (
        "unsupported-requested-operation",
        "refused",
        "GateError",
        "unsupported_requested_operation",
        "validated_requests",
    ),
    ("unsupported-requested-claim", "refused", "GateError", "unsupported_requested_claim", "validated_requests"),
    ("unknown-candidate", "refused", "GateError", "unknown_candidate", "validated_requests"),
    ("invalid-source-version", "refused", "GateError", "invalid_source_version", "validated_requests"),
]

ALL_GATE_ERRORS = {
    "invalid_case",
    "invalid_candidate_ids",
    "duplicate_candidate",
    "invalid_requested_version",
    "missing_operation",
    "unsupported_requested_operation",
    "unsupported_requested_claim",
    "unknown_candidate",
    "invalid_source_version",
}
ALL_DIRECTIVE_ERRORS = {
    "malformed_directive",
    "unsupported_operation",
    "unsupported_claim_key",
    "unknown_directive_value",
    "duplicate_directive",
}


@pytest.fixture(scope="module")
def lumen_run() -> drivers.GateRun:
    return drivers.run_gate(LUMEN / "manifest.json", LUMEN / "cases.json", LUMEN_SCHEMA)


def _by_id(run: drivers.GateRun) -> dict:
    """``{case_id: result}`` of the first row with each case id (a repeated id is refused on its own)."""
    results: dict = {}
    for case_id, result in zip(run.results["case_id"], run.results["result"]):
        if case_id:
            results.setdefault(case_id, result)
    return results


# ----------------------------------------------------------------------------- the second schema end to end


def test_lumen_case_table_covers_every_status_and_every_error_reason():
    statuses = {status for _, status, _, _, _ in LUMEN_EXPECTED}
    reasons = {(error, reason) for _, _, error, reason, _ in LUMEN_EXPECTED}
    assert statuses == {"ready", "conflict", "not_in_docs", "refused"}
    assert {r for e, r in reasons if e == "GateError"} == ALL_GATE_ERRORS
    assert {r for e, r in reasons if e == "DirectiveError"} == ALL_DIRECTIVE_ERRORS


@pytest.mark.parametrize(
    "position", range(len(LUMEN_EXPECTED)), ids=[f"{n}-{e[3]}" for n, e in enumerate(LUMEN_EXPECTED)]
)
def test_lumen_case_decision(lumen_run, position):
    case_id, status, error, reason, decided_at = LUMEN_EXPECTED[position]
    row = lumen_run.results.iloc[position]
    assert (row["case_id"], row["status"], row["error"], row["reason"], row["decided_at"]) == (
        case_id,
        status,
        error,
        reason,
        decided_at,
    )
    result = row["result"]
    assert (result["status"], result["reason"], result["decided_at"]) == (status, reason, decided_at)
    if status == "refused":
        assert result == {
            "status": "refused",
            "error": error,
            "reason": reason,
            "answer_request": None,
            "decided_at": decided_at,
        }


def test_lumen_results_equal_the_reference_field_for_field(lumen_run):
    sources = {r["source_id"]: r for r in lumen_run.verified_sources.to_dict("records")}
    rows = json.loads((LUMEN / "cases.json").read_text())
    for position, (row, result) in enumerate(zip(rows, lumen_run.results["result"])):
        if LUMEN_EXPECTED[position][3] == "invalid_case" and isinstance(row, dict):
            continue  # case_id problems are table-level; the one-case reference does not see them
        assert result == decide_case(row, sources, lumen_run.schema)


def test_lumen_ready_results_name_their_operation_and_agreed_value(lumen_run):
    results = _by_id(lumen_run)
    put = results["put-newer-version-excluded"]
    assert (put["operation"], put["agreed_value"]) == ("put_object", "deny")
    assert put["eligible_source_ids"] == ["lumen-faq", "lumen-guide"]
    assert put["excluded_wrong_version_ids"] == ["lumen-next"]
    delete = results["delete-single-source-ready"]
    assert (delete["operation"], delete["claim_key"], delete["agreed_value"]) == ("delete_object", "versioned", "keep")
    user = json.loads(delete["answer_request"]["messages"][1]["content"])
    assert user["operation"] == "delete_object"
    assert [c["quote"] for c in user["source_claims"]] == ["%lumen delete_object versioned=keep"]


def test_lumen_claims_slice_back_to_their_quotes(lumen_run):
    texts = dict(zip(lumen_run.verified_sources["source_id"], lumen_run.verified_sources["text"]))
    claims = [c for r in lumen_run.results["result"] for c in r.get("claims", [])]
    assert len(claims) >= 8
    for claim in claims:
        assert texts[claim["source_id"]][claim["start"] : claim["end"]] == claim["quote"]
        assert claim["quote"].startswith("%lumen ")


def test_a_missing_claim_of_another_operation_is_missing_not_agreement(lumen_run):
    result = _by_id(lumen_run)["put-partial-missing-claim"]
    assert result["missing_claim_source_ids"] == ["lumen-retention"]
    assert [(c["source_id"], c["operation"], c["value"]) for c in result["claims"]] == [
        ("lumen-guide", "put_object", "deny")
    ]


def test_the_case_row_operation_is_echoed_in_the_output_document(lumen_run):
    entries = case_entries(lumen_run)
    assert entries[0]["operation"] == "put_object"
    missing = next(e for e in entries if e["case_id"] == "missing-operation")
    assert "operation" not in missing


def test_the_gate_command_takes_a_schema_path(tmp_path, capsys):
    output = tmp_path / "lumen.json"
    code, _, err = cli(
        capsys,
        "gate",
        "--schema",
        str(LUMEN_SCHEMA),
        "--manifest",
        str(LUMEN / "manifest.json"),
        "--cases",
        str(LUMEN / "cases.json"),
        "--output",
        str(output),
        "--quiet",
    )
    assert code == 0, err
    document = json.loads(output.read_text())
    assert document["grammar"] == "%lumen <operation> <key>=<value>"
    got = [(e["case_id"], e["result"]["status"], e["result"]["reason"]) for e in document["cases"]]
    assert got == [(c, s, r) for c, s, _, r, _ in LUMEN_EXPECTED]


# ------------------------------------------------------------------- the prefix decides what is directive-like


def test_directive_like_lines_follow_the_schema_prefix():
    lumen = load_schema(LUMEN_SCHEMA)
    quill_line = "@quill create_copy existing_path=refuse"
    assert parse_directives(quill_line + "\n", lumen) == []  # prose under Lumen
    with pytest.raises(DirectiveError) as info:
        parse_directives("  % of requests\n", lumen)  # first non-space character is the prefix's first
    assert info.value.reason == "malformed_directive"
    with pytest.raises(DirectiveError):
        parse_directives("see %lumen put_object overwrite=deny\n", lumen)  # contains the prefix
    assert parse_directives("40% faster, mail ops@lumen.invalid\n", lumen) == []
    (claim,) = parse_directives("%lumen put_object overwrite=deny", lumen)
    assert (claim["operation"], claim["claim_key"], claim["value"]) == ("put_object", "overwrite", "deny")


def test_a_key_declared_for_another_operation_is_unsupported_claim_key():
    lumen = load_schema(LUMEN_SCHEMA)
    with pytest.raises(DirectiveError) as info:
        parse_directives("%lumen put_object versioned=keep\n", lumen)
    assert info.value.reason == "unsupported_claim_key"


def test_the_same_key_under_two_operations_is_not_a_duplicate(tmp_path):
    schema = tmp_path / "s.toml"
    schema.write_text('prefix = "!doc"\n[operations.read]\nmode = ["a", "b"]\n[operations.write]\nmode = ["a", "b"]\n')
    claims = parse_directives("!doc read mode=a\n!doc write mode=b\n", load_schema(schema))
    assert [(c["operation"], c["value"]) for c in claims] == [("read", "a"), ("write", "b")]


# ----------------------------------------------------------------------------- operations on the case row


def test_the_operation_defaults_to_the_single_operation_of_the_schema(tmp_path):
    cases = tmp_path / "c.json"
    row = {"case_id": "c", "candidate_ids": ["quill-guide"], "requested_version": "1.0", "claim_key": "existing_path"}
    cases.write_text(json.dumps([row, {**row, "case_id": "explicit", "operation": "create_copy"}]))
    results = drivers.run_gate(FIXTURES / "manifest.json", cases).results["result"].tolist()
    assert results[0] == results[1]
    assert results[0]["operation"] == "create_copy"


@pytest.mark.parametrize("operation", ["copy_object", "", "PUT_OBJECT", 5, ["put_object"]], ids=repr)
def test_an_undeclared_operation_is_unsupported_requested_operation(tmp_path, operation):
    cases = tmp_path / "c.json"
    row = {"case_id": "c", "candidate_ids": ["lumen-guide"], "requested_version": "4.1", "claim_key": "overwrite"}
    cases.write_text(json.dumps([{**row, "operation": operation}]))
    (result,) = drivers.run_gate(LUMEN / "manifest.json", cases, LUMEN_SCHEMA).results["result"]
    assert (result["error"], result["reason"]) == ("GateError", "unsupported_requested_operation")


def test_a_schema_with_several_operations_requires_the_operation(tmp_path):
    cases = tmp_path / "c.json"
    row = {"case_id": "c", "candidate_ids": ["lumen-guide"], "requested_version": "4.1", "claim_key": "overwrite"}
    cases.write_text(json.dumps([row, {**row, "case_id": "null-op", "operation": None}]))
    results = drivers.run_gate(LUMEN / "manifest.json", cases, LUMEN_SCHEMA).results["reason"].tolist()
    assert results == ["missing_operation", "missing_operation"]


def test_missing_operation_comes_after_the_version_check_and_before_the_key_check(tmp_path):
    cases = tmp_path / "c.json"
    rows = [
        {"case_id": "v", "candidate_ids": ["lumen-guide"], "requested_version": "4", "claim_key": "nope"},
        {"case_id": "k", "candidate_ids": ["lumen-ghost"], "requested_version": "4.1", "claim_key": "nope"},
    ]
    cases.write_text(json.dumps(rows))
    reasons = drivers.run_gate(LUMEN / "manifest.json", cases, LUMEN_SCHEMA).results["reason"].tolist()
    assert reasons == ["invalid_requested_version", "missing_operation"]


# ----------------------------------------------------------------------------- schema refusals


BAD_SCHEMAS = {
    "no-prefix": '[operations.create_copy]\nexisting_path = ["refuse"]\n',
    "empty-prefix": 'prefix = ""\n[operations.create_copy]\nexisting_path = ["refuse"]\n',
    "prefix-not-a-string": 'prefix = 7\n[operations.create_copy]\nexisting_path = ["refuse"]\n',
    "prefix-with-space": 'prefix = "@ quill"\n[operations.create_copy]\nexisting_path = ["refuse"]\n',
    "empty-enumeration": 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = []\n',
    "enumeration-not-a-list": 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = "refuse"\n',
    "repeated-value": 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse", "refuse"]\n',
    "no-operations": 'prefix = "@quill"\n',
    "operation-without-keys": 'prefix = "@quill"\n[operations.create_copy]\n',
    "operation-name-upper": 'prefix = "@quill"\n[operations.CreateCopy]\nexisting_path = ["refuse"]\n',
    "operation-name-dash": 'prefix = "@quill"\n[operations.create-copy]\nexisting_path = ["refuse"]\n',
    "operation-name-newline": 'prefix = "@quill"\n[operations."create_copy\\n"]\nexisting_path = ["refuse"]\n',
    "key-name-leading-digit": 'prefix = "@quill"\n[operations.create_copy]\n2path = ["refuse"]\n',
    "key-name-leading-underscore": 'prefix = "@quill"\n[operations.create_copy]\n_path = ["refuse"]\n',
    "typed-unknown-type": 'prefix = "@quill"\n[operations.c]\nk = { type = "float" }\n',
    "typed-pattern-on-bool": 'prefix = "@quill"\n[operations.c]\nk = { type = "bool", pattern = "x" }\n',
    "typed-bad-pattern": 'prefix = "@quill"\n[operations.c]\nk = { type = "string", pattern = "(" }\n',
    "typed-unknown-key": 'prefix = "@quill"\n[operations.c]\nk = { type = "string", default = "x" }\n',
    "context-not-bool": 'prefix = "@quill"\n[operations.c]\nk = ["a"]\n[directives]\ncontext = "yes"\n',
    "value-outside": 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["re-fuse"]\n',
    "value-newline": 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse\\n"]\n',
    "value-not-a-string": 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = [1]\n',
    "unparseable-toml": 'prefix = "@quill\n[operations.create_copy\n',
    "not-utf8": b'prefix = "\xff"\n',
}


@pytest.mark.parametrize("name", sorted(BAD_SCHEMAS))
def test_an_invalid_schema_is_refused_as_invalid_schema(tmp_path, name):
    schema = tmp_path / "schema.toml"
    content = BAD_SCHEMAS[name]
    schema.write_bytes(content if isinstance(content, bytes) else content.encode())
    with pytest.raises(IngestionError) as info:
        load_schema(schema)
    assert info.value.reason == "invalid_schema"
    assert "\n" not in info.value.one_line()


def test_a_missing_schema_file_is_invalid_schema(tmp_path):
    with pytest.raises(IngestionError) as info:
        load_schema(tmp_path / "absent.toml")
    assert info.value.reason == "invalid_schema"


def test_an_invalid_schema_is_refused_before_any_case_runs(tmp_path, monkeypatch):
    schema = tmp_path / "schema.toml"
    schema.write_text(BAD_SCHEMAS["empty-enumeration"])

    def must_not_run(*args, **kwargs):
        raise AssertionError("a case was checked although the schema is invalid")

    monkeypatch.setattr(gate_stages, "check_request", must_not_run)
    with pytest.raises(IngestionError) as info:
        drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json", schema)
    assert info.value.reason == "invalid_schema"


@pytest.mark.parametrize("name", ["no-prefix", "empty-enumeration", "operation-name-upper", "unparseable-toml"])
def test_the_gate_command_refuses_an_invalid_schema_with_one_line_and_exit_3(tmp_path, capsys, name):
    schema = tmp_path / "schema.toml"
    schema.write_text(BAD_SCHEMAS[name])
    output = tmp_path / "out.json"
    code, out, err = cli(
        capsys,
        "gate",
        "--schema",
        str(schema),
        "--manifest",
        str(FIXTURES / "manifest.json"),
        "--cases",
        str(FIXTURES / "cases.json"),
        "--output",
        str(output),
    )
    assert code == 3
    assert err.startswith("error: IngestionError: invalid_schema: ")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert out == ""
    assert not output.exists()


def test_quill_default_schema_is_the_fixture_file():
    schema = load_schema()
    assert schema.prefix == "@quill"
    assert schema.as_dict() == {
        "prefix": "@quill",
        "operations": {"create_copy": {"existing_path": ["refuse", "overwrite"], "close_required": ["yes", "no"]}},
    }
    assert load_schema(Path(FIXTURES / "quill_schema.toml")) == schema
