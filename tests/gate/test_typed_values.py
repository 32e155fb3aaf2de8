"""Typed schema values: strict reading, typed equality, the spelling kept beside the typed value."""

from __future__ import annotations

import pytest
from claimgate.errors import DirectiveError, IngestionError
from claimgate.gate.directives import parse_directives
from claimgate.gate.schema import schema_from_dict
from claimgate.gate.values import ValueType, agreement_key
from hypothesis import given
from hypothesis import strategies as st

OPERATIONS = {
    "client": {
        "follow_redirects": {"type": "bool"},
        "timeout": {"type": "number"},
        "max_connections": {"type": "integer"},
        "default_encoding": {"type": "string", "pattern": "[a-z0-9-]+"},
        "tls": {"type": "string"},
        "http2_mode": ["enabled", "disabled"],
    }
}
SCHEMA = schema_from_dict({"prefix": "@acme", "operations": OPERATIONS})


def value_of(line: str):
    (directive,) = parse_directives(line + "\n", SCHEMA, "page")
    return directive["value"], directive.get("typed_value")


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ("@acme client follow_redirects=True", ("True", True)),
        ("@acme client follow_redirects=false", ("false", False)),
        ("@acme client timeout=5", ("5", 5.0)),
        ("@acme client timeout=5.0", ("5.0", 5.0)),
        ("@acme client timeout=-0.25", ("-0.25", -0.25)),
        ("@acme client timeout=1e3", ("1e3", 1000.0)),
        ("@acme client max_connections=100", ("100", 100)),
        ("@acme client default_encoding=utf-8", ("utf-8", "utf-8")),
        ("@acme client tls=TLSv1.2", ("TLSv1.2", "TLSv1.2")),
        ("@acme client tls=None", ("None", "None")),
        ("@acme client http2_mode=enabled", ("enabled", None)),
    ],
)
def test_a_typed_value_keeps_its_spelling_and_carries_its_type(line, expected):
    assert value_of(line) == expected


@pytest.mark.parametrize(
    "line",
    [
        "@acme client follow_redirects=yes",
        "@acme client follow_redirects=TRUE",
        "@acme client timeout=fast",
        "@acme client timeout=inf",
        "@acme client timeout=1e999",
        "@acme client max_connections=5.0",
        "@acme client max_connections=1_000",
        "@acme client default_encoding=UTF-8",
    ],
)
def test_a_value_of_the_wrong_type_is_refused_with_its_own_reason(line):
    with pytest.raises(DirectiveError) as info:
        parse_directives("# page\n" + line + "\n", SCHEMA, "page")
    assert info.value.reason == "wrong_value_type"
    assert "page:2" in info.value.detail


def test_an_enumeration_key_still_refuses_a_non_name_as_malformed():
    with pytest.raises(DirectiveError) as info:
        parse_directives("@acme client http2_mode=Enabled\n", SCHEMA, "page")
    assert info.value.reason == "malformed_directive"


def test_a_value_holding_a_quote_or_angle_bracket_is_malformed():
    for line in ('@acme client tls="x"', "@acme client tls=a>b", "@acme client tls=a=b"):
        with pytest.raises(DirectiveError) as info:
            parse_directives(line + "\n", SCHEMA, "page")
        assert info.value.reason == "malformed_directive"


def test_names_may_hold_digits_after_a_letter():
    schema = schema_from_dict({"prefix": "@acme", "operations": {"http2": {"mode2": ["on1", "off"]}}})
    (directive,) = parse_directives("@acme http2 mode2=on1\n", schema)
    assert directive["value"] == "on1"


@pytest.mark.parametrize(
    ("table", "problem"),
    [
        ({"type": "float"}, "type must be one of"),
        ({"type": "integer", "pattern": "[0-9]+"}, "only for type"),
        ({"type": "string", "pattern": "("}, "not a regular expression"),
        ({}, "type must be one of"),
    ],
)
def test_an_invalid_typed_table_is_an_invalid_schema(table, problem):
    with pytest.raises(IngestionError) as info:
        schema_from_dict({"prefix": "@acme", "operations": {"client": {"k": table}}})
    assert info.value.reason == "invalid_schema" and problem in info.value.detail


def test_the_schema_form_lists_typed_keys_as_tables_and_enumerations_as_lists():
    form = SCHEMA.as_dict()["operations"]["client"]
    assert form["timeout"] == {"type": "number"}
    assert form["default_encoding"] == {"type": "string", "pattern": "[a-z0-9-]+"}
    assert form["http2_mode"] == ["enabled", "disabled"]


def test_agreement_is_typed_equality():
    number, boolean = ValueType("number"), ValueType("bool")
    assert agreement_key(number.read("5")) == agreement_key(number.read("5.0")) == agreement_key(number.read("5e0"))
    assert agreement_key(boolean.read("True")) == agreement_key(boolean.read("true"))
    assert agreement_key(number.read("5")) != agreement_key(number.read("5.5"))
    assert agreement_key(ValueType("string").read("5")) != agreement_key(ValueType("string").read("5.0"))


@given(st.integers(min_value=-(10**12), max_value=10**12))
def test_property_an_integer_spelt_as_number_agrees_with_its_decimal(n):
    number = ValueType("number")
    assert agreement_key(number.read(str(n))) == agreement_key(number.read(f"{n}.0"))
    assert ValueType("integer").read(str(n)) == n


# --- through the gate: the batch path and the one-case path agree on typed equality ---------


def _typed_gate(tmp_path, pages: dict[str, bytes]):
    import hashlib
    import json

    from claimgate.api import Gate

    schema = tmp_path / "acme.toml"
    schema.write_text(
        'prefix = "@acme"\n[operations.client]\ntimeout = { type = "number" }\n'
        'follow_redirects = { type = "bool" }\nhttp2_mode = ["enabled", "disabled"]\n',
        encoding="utf-8",
    )
    entries = []
    for source_id, raw in pages.items():
        (tmp_path / f"{source_id}.md").write_bytes(raw)
        sha = hashlib.sha256(raw).hexdigest()
        url = f"https://docs.invalid/{source_id}"
        entries.append({"source_id": source_id, "version": "1.0", "path": f"{source_id}.md", "url": url, "sha256": sha})
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"sources": entries}), encoding="utf-8")
    return Gate.from_manifest(manifest, schema)


def test_the_gate_agrees_on_five_and_five_point_zero_and_reports_the_typed_value(tmp_path):
    gate = _typed_gate(
        tmp_path,
        {
            "guide": b"# Guide\n<!-- @acme client timeout=5 -->\n",
            "ref": b"Ref\n===\n\n.. @acme client timeout=5.0\n.. @acme client follow_redirects=True\n",
            "other": b"@acme client follow_redirects=false\n",
        },
    )
    row = {"case_id": "t", "candidate_ids": ["guide", "ref"], "requested_version": "1.0", "claim_key": "timeout"}
    one = gate.decide(["guide", "ref"], "1.0", "timeout")
    batch = gate.decide_many([row])["result"][0]
    for result in (one, batch):
        assert result["status"] == "ready" and result["agreed_value"] == 5.0
        assert [(c["value"], c["typed_value"]) for c in result["claims"]] == [("5", 5.0), ("5.0", 5.0)]
        assert '"typed_value": 5.0' in result["answer_request"]["messages"][1]["content"]
    assert one == batch
    conflict = gate.decide(["ref", "other"], "1.0", "follow_redirects")
    assert conflict["status"] == "conflict"


def test_an_enumeration_claim_carries_no_typed_value(tmp_path):
    gate = _typed_gate(tmp_path, {"guide": b"@acme client http2_mode=enabled\n"})
    result = gate.decide(["guide"], "1.0", "http2_mode")
    assert result["agreed_value"] == "enabled" and "typed_value" not in result["claims"][0]


def test_a_batch_mixing_typed_and_enumeration_claims_keeps_each_record_its_own_fields(tmp_path):
    gate = _typed_gate(
        tmp_path,
        {"a": b"@acme client timeout=5\n@acme client http2_mode=enabled\n", "b": b"@acme client timeout=5.0\n"},
    )
    rows = [
        {"case_id": "t", "candidate_ids": ["a", "b"], "requested_version": "1.0", "claim_key": "timeout"},
        {"case_id": "m", "candidate_ids": ["a"], "requested_version": "1.0", "claim_key": "http2_mode"},
    ]
    timeout, mode = gate.decide_many(rows)["result"]
    assert [c["typed_value"] for c in timeout["claims"]] == [5.0, 5.0]
    assert "typed_value" not in mode["claims"][0] and mode["agreed_value"] == "enabled"
    assert timeout == gate.decide(["a", "b"], "1.0", "timeout") and mode == gate.decide(["a"], "1.0", "http2_mode")
