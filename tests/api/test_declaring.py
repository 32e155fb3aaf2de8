"""``Gate.declaring`` and the ``declaring_sources`` node: which pinned pages of a version declare a key."""

from __future__ import annotations

import claimgate.gate.declaring
import pandas as pd
import pytest
from claimgate import Gate
from claimgate.gate import loading
from claimgate.gate.declaring import DECLARING_COLUMNS, declaring_ids, declaring_sources
from claimgate.gate.schema import load_schema
from claimgate.io import pinned_sources
from hamilton import driver

from ..helpers import FIXTURES


@pytest.fixture(scope="module")
def gate() -> Gate:
    return Gate.from_manifest(FIXTURES / "manifest.json")


def test_declaring_is_exact_on_version_and_skips_silent_and_refused_pages(gate):
    # quill-missing-claim is silent on existing_path; quill-malformed and quill-unknown-value are refused pages.
    assert gate.declaring("1.0", "existing_path") == ["quill-conflicting-guide", "quill-guide", "quill-reference"]
    assert gate.declaring("1.0", "close_required") == ["quill-missing-claim", "quill-reference"]
    assert gate.declaring("2.0", "existing_path") == ["quill-new-version"]
    assert gate.declaring("3.0", "existing_path") == [] and gate.declaring("1.00", "existing_path") == []


def test_declaring_with_the_operation_named_is_the_same(gate):
    assert gate.declaring("1.0", "close_required", "create_copy") == gate.declaring("1.0", "close_required")


@pytest.mark.parametrize(
    ("args", "reason"),
    [
        (("1.0", "on_error"), "unsupported_requested_claim"),
        (("1.0", "existing_path", "move"), "unsupported_requested_operation"),
    ],
)
def test_a_question_the_gate_would_refuse_raises_with_its_reason(gate, args, reason):
    with pytest.raises(ValueError, match=f"^{reason}"):
        gate.declaring(*args)


def test_declaring_with_several_operations_needs_one(tmp_path):
    schema = tmp_path / "two.toml"
    schema.write_text(
        'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse"]\n[operations.move]\nto = ["a"]\n'
    )
    frame = pd.DataFrame({"source_id": ["a"], "version": ["1.0"], "text": ["@quill move to=a\n"]})
    loaded = load_schema(schema)
    declared = declaring_sources(frame, loaded)
    assert declaring_ids(declared, loaded, "1.0", "to", "move") == ["a"]
    with pytest.raises(ValueError, match="^missing_operation"):
        declaring_ids(declared, loaded, "1.0", "to")


def test_the_node_answers_what_the_method_answers(gate):
    dr = driver.Builder().with_modules(pinned_sources, loading, claimgate.gate.declaring).build()
    frame = dr.execute(["declaring_sources"], inputs={"manifest_path": str(FIXTURES / "manifest.json")})[
        "declaring_sources"
    ]
    assert list(frame.columns) == list(DECLARING_COLUMNS)
    for version, key in {(v, k) for v, k in zip(frame["version"], frame["claim_key"])}:
        assert sorted(frame.loc[(frame["version"] == version) & (frame["claim_key"] == key), "source_id"]) == (
            gate.declaring(version, key)
        )


def test_a_declaring_set_agrees_with_the_gate_deciding_it(gate):
    # Every page of the set declares the key, so the gate never answers requested_claim_missing for it.
    for version, key in (("1.0", "existing_path"), ("1.0", "close_required"), ("2.0", "existing_path")):
        result = gate.decide(gate.declaring(version, key), version, key)
        assert result["reason"] != "requested_claim_missing"
