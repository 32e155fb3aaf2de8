"""The prepared request's wording and the document's execution_mode come from the schema (docs/gate-rules.md,
"Claim schemas"); Quill's schema, and any schema that does not set them, keeps the seed's strings byte for byte.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claimgate.cli.documents import gate_document
from claimgate.errors import IngestionError
from claimgate.execution import drivers
from claimgate.gate.reference import decide_case
from claimgate.gate.schema import load_schema, schema_from_dict

from ..helpers import FIXTURES, pin_sources

SEED_SYSTEM = (
    "Describe only the supplied explicit fictional API contract. "
    "Cite every supplied source ID. Do not invent an unsupported rule."
)
SEED_MODE = "offline-explicit-synthetic-directive-gate"
OWN_SYSTEM = "Answer from the Acme SDK 1.4 pages only. Cite each source id given."


def _schema(folder: Path, extra: str) -> Path:
    path = folder / "schema.toml"
    path.write_text(
        'prefix = "@quill"\n' + extra + '[operations.create_copy]\nexisting_path = ["refuse", "overwrite"]\n'
        f"[answer_request]\nsystem = {json.dumps(OWN_SYSTEM)}\n",
        encoding="utf-8",
    )
    return path


def _ready_run(tmp_path: Path, extra: str = ""):
    manifest, cases = pin_sources(tmp_path, {"a": ("1.0", b"@quill create_copy existing_path=refuse\n")})
    return drivers.run_gate(manifest, cases, _schema(tmp_path, extra))


def test_quill_schema_keeps_the_seeds_system_message_and_execution_mode(fixture_run):
    document = gate_document(fixture_run, fixture_kind="x")
    assert document["execution_mode"] == SEED_MODE
    ready = [e["result"] for e in document["cases"] if e["result"]["status"] == "ready"]
    assert ready and all(r["answer_request"]["messages"][0]["content"] == SEED_SYSTEM for r in ready)
    assert load_schema().system_prompt == SEED_SYSTEM and load_schema().execution_mode == SEED_MODE


def test_schema_system_message_is_the_prepared_requests(tmp_path):
    run = _ready_run(tmp_path)
    request = run.results.loc[0, "result"]["answer_request"]
    assert request["messages"][0] == {"role": "system", "content": OWN_SYSTEM}


def test_schema_execution_mode_is_the_documents(tmp_path):
    run = _ready_run(tmp_path, 'execution_mode = "acme-docs-gate"\n')
    assert gate_document(run, fixture_kind="user-supplied")["execution_mode"] == "acme-docs-gate"


def test_batch_and_reference_agree_with_a_schema_system_message(tmp_path):
    run = _ready_run(tmp_path)
    sources = {r["source_id"]: r for r in run.verified_sources.to_dict("records")}
    expected = decide_case(run.case_rows.loc[0, "request"], sources, run.schema)
    assert run.results.loc[0, "result"] == expected


@pytest.mark.parametrize(
    "document",
    [
        {"answer_request": {"system": ""}},
        {"answer_request": {"system": 3}},
        {"answer_request": {"sytem": "x"}},
        {"answer_request": "x"},
        {"execution_mode": "two words"},
        {"execution_mode": ""},
        {"exection_mode": "x"},
    ],
    ids=["empty", "not-text", "misspelt-key", "not-a-table", "spaces", "empty-mode", "misspelt-top-level"],
)
def test_bad_wording_settings_are_invalid_schema(document):
    base = {"prefix": "@q", "operations": {"op": {"key": ["a"]}}}
    with pytest.raises(IngestionError) as caught:
        schema_from_dict({**base, **document})
    assert caught.value.reason == "invalid_schema"


def test_the_fixture_schemas_declare_the_seeds_wording():
    lumen = load_schema(FIXTURES / "second_schema" / "lumen_schema.toml")
    assert (lumen.system_prompt, lumen.execution_mode) == (SEED_SYSTEM, SEED_MODE)


def test_a_schema_without_wording_does_not_call_real_docs_fictional():
    schema = schema_from_dict({"prefix": "@acme", "operations": {"client": {"retries": ["on", "off"]}}})
    assert schema.system_prompt == (
        "Describe only the supplied explicit API contract. "
        "Cite every supplied source ID. Do not invent an unsupported rule."
    )
    assert schema.execution_mode == "offline-explicit-directive-gate"
    assert "fictional" not in schema.system_prompt and "synthetic" not in schema.execution_mode
