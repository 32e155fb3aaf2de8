"""The JSON lines joined from the decisions (``gate.result_lines``) are the bytes of the reference path.

The reference is each case's result object from ``gate_result``, wrapped by
``result_object.case_entry`` and written by ``writers.jsonl_line``. ``result_lines`` joins the
same bytes from pieces serialized once per batch; a case holding a value orjson refuses
(a lone surrogate, an integer beyond 64 bits) is written through the reference path.
"""

from __future__ import annotations

import dataclasses
import json

from claimgate.execution import drivers, streaming
from claimgate.gate import result_lines
from claimgate.gate.result_object import case_entry
from claimgate.io.tables import case_table_frame
from claimgate.io.writers import jsonl_line
from claimgate.synthetic.gate_inputs import case_rows, write_sources
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..helpers import FIXTURES

LINE_NODES = ["case_table", "gate_result", "case_outcomes", "result_parts", "result_lines"]


def decided(manifest, rows: list) -> dict:
    """The lines driver's values for ``rows`` (raw case rows) over the pins of ``manifest``."""
    constants, _ = streaming.table_constants(manifest)
    table = case_table_frame(rows)
    return drivers.gate_lines_driver().execute(LINE_NODES, overrides={**constants, "case_rows": table})


def reference_lines(values: dict) -> bytes:
    table, results = values["case_table"], values["gate_result"]
    return b"".join(
        jsonl_line(case_entry(request, case_id, result)) + b"\n"
        for request, case_id, result in zip(table["request"], results["case_id"], results["result"])
    )


def test_fixture_cases_give_the_reference_bytes():
    rows = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    values = decided(FIXTURES / "manifest.json", rows)
    assert values["result_lines"] == reference_lines(values)
    assert values["result_lines"].count(b"\n") == len(rows)


def test_case_outcomes_are_the_gate_results_without_result_objects():
    rows = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    values = decided(FIXTURES / "manifest.json", rows)
    expected = values["gate_result"].drop(columns=["result"])
    assert list(values["case_outcomes"].columns) == list(result_lines.OUTCOME_COLUMNS)
    assert values["case_outcomes"].equals(expected)


def test_generated_table_with_bad_rows_gives_the_reference_bytes(tmp_path):
    manifest = write_sources(tmp_path / "docs", n_sources=60, seed=3, mean_bytes=1200)
    for shape_rows in (case_rows(manifest, 2000, seed=3, bad_rate=0.2),):
        values = decided(manifest, shape_rows)
        assert {"ready", "conflict", "not_in_docs", "refused"} <= set(values["case_outcomes"]["status"])
        assert values["result_lines"] == reference_lines(values)


# Raw values a case row may hold: anything JSON can, including what orjson refuses.
_strings = st.text(alphabet=st.characters(codec=None, categories=None), max_size=6) | st.sampled_from(
    ["\ud800", "a\udfffb", "\u2028", '"\\', "v1.0", "1.0", "2.0"]
)
_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | _strings,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_strings, inner, max_size=3),
    max_leaves=6,
)


@st.composite
def hostile_rows(draw, source_ids: list[str]) -> list:
    rows = []
    for number in range(draw(st.integers(min_value=1, max_value=8))):
        if draw(st.booleans()):
            row: object = {
                "case_id": draw(st.sampled_from([f"c{number}", "\ud800", "c0", None])),
                "candidate_ids": draw(st.lists(st.sampled_from([*source_ids, "\udc00", "nope"]), max_size=4) | _values),
                "requested_version": draw(st.sampled_from(["1.0", "2.0", "3.1", "9.9"]) | _values),
                "claim_key": draw(st.sampled_from(["existing_path", "close_required"]) | _values),
            }
            if draw(st.booleans()):
                row["operation"] = draw(st.sampled_from(["create_copy"]) | _values)
            if draw(st.booleans()):
                row[draw(_strings)] = draw(_values)
        else:
            row = draw(_values)
        rows.append(row)
    return rows


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_hostile_rows_give_the_reference_bytes(tmp_path_factory, data):
    folder = tmp_path_factory.getbasetemp() / "hostile"
    manifest = folder / "docs" / "manifest.json"
    if not manifest.exists():
        write_sources(folder / "docs", n_sources=12, seed=9, mean_bytes=600)
    ids = [e["source_id"] for e in json.loads(manifest.read_text(encoding="utf-8"))["sources"]]
    rows = data.draw(hostile_rows(ids))
    values = decided(manifest, rows)
    assert values["result_lines"] == reference_lines(values)


def test_a_claim_orjson_refuses_is_written_through_the_reference_path():
    rows = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    values = decided(FIXTURES / "manifest.json", rows)
    parts = values["result_parts"]
    assert parts.claim_records, "the fixtures cite claims"
    records = [{**record, "quote": record["quote"] + "\ud800"} for record in parts.claim_records]
    spoiled = dataclasses.replace(parts, claim_records=records)
    lines = result_lines.result_lines(values["case_table"], values["case_outcomes"], spoiled)
    expected = b"".join(
        jsonl_line(case_entry(request, case_id, spoiled.result_object(*outcome))) + b"\n"
        for request, case_id, outcome in zip(
            values["case_table"]["request"],
            values["case_outcomes"]["case_id"],
            values["case_outcomes"][["position", "status", "error", "reason", "decided_at"]].itertuples(
                index=False, name=None
            ),
        )
    )
    assert b"\\ud800" in lines
    assert lines == expected


def test_the_lines_module_adds_exactly_its_three_nodes_to_the_gate_driver():
    # ``result_parts`` is a gate node read by both writers; ``parsed_claim_records`` is its optional
    # input in the gate driver (built per batch) and this module's node (built once per table).
    gate = drivers.gate_driver().graph.nodes
    lines = drivers.gate_lines_driver().graph.nodes
    functions = {name for name, node in lines.items() if not node.user_defined}
    added = {name for name in functions if name not in gate or gate[name].user_defined}
    assert added == {"parsed_claim_records", "case_outcomes", "result_lines"}
    assert gate["parsed_claim_records"].user_defined and not lines["parsed_claim_records"].user_defined
    assert set(gate) <= set(lines)
