"""Case tables in, results out (docs/gate-rules.md): every input and output format, whole-table refusals, bad rows.

A table that cannot be parsed is refused whole (``invalid_case_table``, naming the line where
there is one). A single bad row is refused on its own as a ``GateError`` and the batch goes on.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from claimgate.cli import main as run_pipeline
from claimgate.errors import IngestionError
from claimgate.execution import drivers
from claimgate.io.writers import jsonl_line
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import FIXTURES, cli

MANIFEST = FIXTURES / "manifest.json"
ROWS = json.loads((FIXTURES / "cases.json").read_text()) + [
    {"case_id": "no-candidates", "candidate_ids": [], "requested_version": "1.0", "claim_key": "existing_path"},
    {
        "case_id": "explicit-operation",
        "candidate_ids": ["quill-reference"],
        "requested_version": "1.0",
        "claim_key": "close_required",
        "operation": "create_copy",
    },
]
FIELDS = ["case_id", "candidate_ids", "requested_version", "claim_key", "operation"]


def write_table(path: Path, rows: list[dict]) -> Path:
    """Write ``rows`` (all objects) as a case table in the format of ``path``'s extension."""
    suffix = path.suffix
    if suffix == ".json":
        path.write_text(json.dumps(rows, indent=1), encoding="utf-8")
    elif suffix == ".jsonl":
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    elif suffix == ".csv":
        with path.open("w", newline="", encoding="utf-8") as handle:
            writer = csv.DictWriter(handle, fieldnames=FIELDS)
            writer.writeheader()
            for row in rows:
                writer.writerow(
                    {**row, "candidate_ids": ";".join(row["candidate_ids"]), "operation": row.get("operation", "")}
                )
    elif suffix == ".parquet":
        columns = {f: [r.get(f) for r in rows] for f in FIELDS}
        schema = pa.schema([(f, pa.list_(pa.string()) if f == "candidate_ids" else pa.string()) for f in FIELDS])
        pq.write_table(pa.table(columns, schema=schema), path)
    return path


def run(path: Path) -> drivers.GateRun:
    return drivers.run_gate(MANIFEST, path)


def refusal(path: Path) -> IngestionError:
    with pytest.raises(IngestionError) as info:
        run(path)
    assert info.value.reason == "invalid_case_table"
    return info.value


# ----------------------------------------------------------------------------- every input format, same results


@pytest.fixture(scope="module")
def json_results(tmp_path_factory) -> list:
    return run(write_table(tmp_path_factory.mktemp("json") / "cases.json", ROWS)).results["result"].tolist()


@pytest.mark.parametrize("suffix", [".jsonl", ".csv", ".parquet"])
def test_every_case_table_format_gives_the_same_results(tmp_path, json_results, suffix):
    results = run(write_table(tmp_path / f"cases{suffix}", ROWS))
    assert results.results["case_id"].tolist() == [r["case_id"] for r in ROWS]
    assert results.results["result"].tolist() == json_results


def test_the_fixture_table_results_do_not_depend_on_the_json_formatting(tmp_path, json_results):
    assert run(FIXTURES / "cases.json").results["result"].tolist() == json_results[:8]


def test_csv_candidate_ids_are_split_on_semicolons_and_an_empty_cell_is_an_empty_list(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        "case_id,candidate_ids,requested_version,claim_key\n"
        "two,quill-guide;quill-reference,1.0,existing_path\n"
        "none,,1.0,existing_path\n"
        "blank-id,quill-guide;,1.0,existing_path\n",
        encoding="utf-8",
    )
    rows = run(path).results.set_index("case_id")
    assert rows.loc["two", "result"]["eligible_source_ids"] == ["quill-guide", "quill-reference"]
    assert rows.loc["none", "reason"] == "no_eligible_version"
    assert rows.loc["blank-id", "reason"] == "invalid_candidate_ids"


def test_csv_space_after_a_semicolon_is_not_part_of_the_next_id(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        "case_id,candidate_ids,requested_version,claim_key\n"
        "spaced,quill-guide; quill-reference ,1.0,existing_path\n"
        "blank-between,quill-guide; ;quill-reference,1.0,existing_path\n",
        encoding="utf-8",
    )
    rows = run(path).results.set_index("case_id")
    assert rows.loc["spaced", "status"] == "ready"
    assert rows.loc["spaced", "result"]["candidate_ids"] == ["quill-guide", "quill-reference"]
    assert rows.loc["blank-between", "reason"] == "invalid_candidate_ids"  # an empty id stays refused


def test_a_csv_with_a_bom_and_crlf_line_endings_reads_like_any_other(tmp_path, json_results):
    plain = write_table(tmp_path / "plain.csv", ROWS)
    fancy = tmp_path / "fancy.csv"
    fancy.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes().replace(b"\r\n", b"\n").replace(b"\n", b"\r\n"))
    assert run(fancy).results["result"].tolist() == json_results


def test_jsonl_blank_lines_are_skipped(tmp_path, json_results):
    path = tmp_path / "c.jsonl"
    path.write_text("\n" + "\n\n".join(json.dumps(r) for r in ROWS) + "\n\n", encoding="utf-8")
    assert run(path).results["result"].tolist() == json_results


# ----------------------------------------------------------------------------- every output format


@pytest.fixture(scope="module")
def outputs(tmp_path_factory):
    """The fixture table plus bad rows, written once in every output format through the command line."""
    folder = tmp_path_factory.mktemp("outputs")
    rows = [*ROWS, "not an object", {"case_id": "bad-version", "candidate_ids": [], "requested_version": 1}]
    cases = folder / "cases.json"
    cases.write_text(json.dumps(rows), encoding="utf-8")
    for suffix in (".json", ".jsonl", ".parquet"):
        args = ["gate", "--manifest", str(MANIFEST), "--cases", str(cases), "--output", str(folder / f"r{suffix}")]
        assert run_pipeline.main([*args, "--quiet"]) == 0
    return folder, rows


def test_json_output_is_the_gate_document_with_one_entry_per_case_in_order(outputs):
    folder, rows = outputs
    document = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    assert list(document) == [
        "execution_mode",
        "model_called",
        "fixture_kind",
        "grammar",
        "schema",
        "cases",
        "refusal_details",
        "policy",
        "limit",
    ]
    assert "changed_source" not in document  # only the default run has it
    assert [e["case_id"] for e in document["cases"]] == [r["case_id"] if isinstance(r, dict) else None for r in rows]
    bad = document["cases"][-2]
    assert bad == {
        "case_id": None,
        "candidate_ids": None,
        "requested_version": None,
        "claim_key": None,
        "result": {
            "status": "refused",
            "error": "GateError",
            "reason": "invalid_case",
            "answer_request": None,
            "decided_at": "validated_requests",
        },
    }


def test_jsonl_output_streams_one_case_entry_per_line_in_case_table_order(outputs):
    folder, rows = outputs
    document = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    raw = (folder / "r.jsonl").read_bytes()
    assert raw.endswith(b"\n")
    lines = raw.decode("utf-8").split("\n")[:-1]
    assert len(lines) == len(rows)
    entries = [json.loads(line) for line in lines]
    assert entries == document["cases"]
    for entry, row in zip(entries, rows):
        keys = ["case_id", "candidate_ids", "requested_version", "claim_key"]
        if isinstance(row, dict) and "operation" in row:
            keys.append("operation")
        assert list(entry) == [*keys, "result"]


def test_parquet_output_holds_every_case_in_order_with_its_result_in_columns(outputs):
    folder, rows = outputs
    document = json.loads((folder / "r.json").read_text(encoding="utf-8"))
    table = pq.read_table(folder / "r.parquet").to_pylist()
    assert len(table) == len(rows)
    for record, entry in zip(table, document["cases"]):
        echoed = {key: value for key, value in entry.items() if key != "result"}
        assert json.loads(record["request_json"]) == echoed
        assert record["claims"] == entry["result"].get("claims")
        assert record["answer_request"] == entry["result"]["answer_request"]
        assert record["case_id"] == entry["case_id"]
        assert (record["status"], record["reason"], record["decided_at"]) == (
            entry["result"]["status"],
            entry["result"]["reason"],
            entry["result"]["decided_at"],
        )
        assert record["error"] == entry["result"].get("error", "")


# ----------------------------------------------------------------------------- whole-table refusals


def test_broken_json_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "c.json"
    path.write_text('[\n  {"case_id": "a"},\n  {"case_id": \n]\n', encoding="utf-8")
    assert refusal(path).detail.startswith("c.json line 4: ")


def test_broken_jsonl_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text('{"case_id": "a"}\n\n{"case_id": "b"\n', encoding="utf-8")
    assert refusal(path).detail.startswith("c.jsonl line 3: ")


@pytest.mark.parametrize("document", ['{"cases": []}', '"rows"', "42", "null"])
def test_a_json_case_table_that_is_not_a_list_is_refused(tmp_path, document):
    path = tmp_path / "c.json"
    path.write_text(document, encoding="utf-8")
    refusal(path)


def test_a_csv_without_the_required_header_is_refused(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("case_id,candidates,requested_version,claim_key\na,quill-guide,1.0,existing_path\n")
    assert "candidate_ids" in refusal(path).detail


@pytest.mark.parametrize(
    "line", ["a,quill-guide,1.0", "a,quill-guide,1.0,existing_path,extra,more"], ids=["short", "long"]
)
def test_a_csv_row_with_the_wrong_number_of_fields_is_refused_naming_the_line(tmp_path, line):
    path = tmp_path / "c.csv"
    path.write_text(f"case_id,candidate_ids,requested_version,claim_key\nok,,1.0,existing_path\n{line}\n")
    assert refusal(path).detail.startswith("c.csv line 3: ")


def test_a_csv_line_number_counts_physical_lines_after_a_multi_line_cell(tmp_path):
    path = tmp_path / "c.csv"
    header = "case_id,candidate_ids,requested_version,claim_key\n"
    path.write_text(header + '"spans\nthree\nlines",,1.0,existing_path\nshort,quill-guide\n')
    assert refusal(path).detail.startswith("c.csv line 5: ")


@pytest.mark.parametrize("name", ["c.txt", "c.xlsx", "cases"])
def test_an_unknown_case_table_format_is_refused(tmp_path, name):
    path = tmp_path / name
    path.write_text("[]")
    refusal(path)


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv"])
def test_a_case_table_that_is_not_utf8_is_refused(tmp_path, suffix):
    path = tmp_path / f"c{suffix}"
    path.write_bytes(b'[{"case_id": "caf\xe9"}]')
    refusal(path)


def test_a_broken_parquet_file_is_refused(tmp_path):
    path = tmp_path / "c.parquet"
    path.write_bytes(b"PAR1 this is not parquet")
    refusal(path)


@pytest.mark.parametrize("suffix", [".json", ".jsonl", ".csv", ".parquet"])
def test_a_missing_case_table_is_refused(tmp_path, suffix):
    refusal(tmp_path / f"absent{suffix}")


# ----------------------------------------------------------------------------- single bad rows


GOOD = {"candidate_ids": ["quill-guide"], "requested_version": "1.0", "claim_key": "existing_path"}
BAD_ROWS = [
    ("not-an-object-string", "a string", "invalid_case"),
    ("not-an-object-list", ["quill-guide"], "invalid_case"),
    ("not-an-object-null", None, "invalid_case"),
    ("not-an-object-number", 3, "invalid_case"),
    ("no-case-id", dict(GOOD), "invalid_case"),
    ("empty-case-id", {"case_id": "", **GOOD}, "invalid_case"),
    ("numeric-case-id", {"case_id": 12, **GOOD}, "invalid_case"),
    ("null-case-id", {"case_id": None, **GOOD}, "invalid_case"),
    ("candidates-string", {"case_id": "w1", **GOOD, "candidate_ids": "quill-guide"}, "invalid_candidate_ids"),
    ("candidates-object", {"case_id": "w2", **GOOD, "candidate_ids": {"quill-guide": 1}}, "invalid_candidate_ids"),
    ("version-number", {"case_id": "w3", **GOOD, "requested_version": 1.0}, "invalid_requested_version"),
    ("version-list", {"case_id": "w4", **GOOD, "requested_version": ["1.0"]}, "invalid_requested_version"),
    ("key-number", {"case_id": "w5", **GOOD, "claim_key": 1}, "unsupported_requested_claim"),
    ("key-list", {"case_id": "w6", **GOOD, "claim_key": ["existing_path"]}, "unsupported_requested_claim"),
    ("operation-number", {"case_id": "w7", **GOOD, "operation": 1}, "unsupported_requested_operation"),
]


@pytest.fixture(scope="module")
def bad_row_run(tmp_path_factory):
    """Each bad row between two good ones, plus a repeated case id, in one table."""
    rows: list = []
    for n, (_, bad, _) in enumerate(BAD_ROWS):
        rows += [{"case_id": f"good-{n}", **GOOD}, bad]
    rows += [{"case_id": "good-0", **GOOD, "claim_key": "close_required"}]  # repeats good-0
    path = tmp_path_factory.mktemp("bad-rows") / "cases.json"
    path.write_text(json.dumps(rows), encoding="utf-8")
    return run(path), rows


@pytest.mark.parametrize("n", range(len(BAD_ROWS)), ids=[name for name, _, _ in BAD_ROWS])
def test_a_bad_row_is_refused_on_its_own_as_a_gate_error(bad_row_run, n):
    result, rows = bad_row_run
    name, _, reason = BAD_ROWS[n]
    refused = result.results.iloc[2 * n + 1]
    assert refused["result"] == {
        "status": "refused",
        "error": "GateError",
        "reason": reason,
        "answer_request": None,
        "decided_at": "validated_requests",
    }
    assert refused["position"] == 2 * n + 1


def test_the_batch_goes_on_around_bad_rows(bad_row_run):
    result, rows = bad_row_run
    assert len(result.results) == len(rows)
    goods = result.results.iloc[0 : 2 * len(BAD_ROWS) : 2]
    assert set(goods["status"]) == {"ready"}
    assert goods["case_id"].tolist() == [f"good-{n}" for n in range(len(BAD_ROWS))]


def test_a_repeated_case_id_refuses_the_later_row_only(bad_row_run):
    result, _ = bad_row_run
    first, last = result.results.iloc[0], result.results.iloc[-1]
    assert (first["case_id"], first["status"]) == ("good-0", "ready")
    assert (last["case_id"], last["reason"], last["error"]) == ("good-0", "invalid_case", "GateError")
    assert "repeats" in last["detail"]


def test_a_jsonl_line_that_is_valid_json_but_not_an_object_is_a_bad_row_not_a_bad_table(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps({"case_id": "a", **GOOD}) + '\n[1, 2]\n"text"\n', encoding="utf-8")
    assert run(path).results["reason"].tolist() == ["eligible_directives_agree", "invalid_case", "invalid_case"]


def test_a_csv_repeated_case_id_is_a_bad_row(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(
        "case_id,candidate_ids,requested_version,claim_key\n"
        "a,quill-guide,1.0,existing_path\n"
        "a,quill-guide,1.0,existing_path\n"
        ",quill-guide,1.0,existing_path\n"
    )
    assert run(path).results["reason"].tolist() == ["eligible_directives_agree", "invalid_case", "invalid_case"]


def test_an_empty_case_table_is_a_completed_run_with_no_cases(tmp_path, capsys):
    for suffix, content in (
        (".json", "[]"),
        (".jsonl", ""),
        (".csv", "case_id,candidate_ids,requested_version,claim_key\n"),
    ):
        path = tmp_path / f"empty{suffix}"
        path.write_text(content)
        assert run(path).results.empty
    output = tmp_path / "out.jsonl"
    args = ["gate", "--manifest", str(MANIFEST), "--cases", str(tmp_path / "empty.json"), "--output", str(output)]
    assert cli(capsys, *args)[0] == 0
    assert output.read_bytes() == b""


_json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-(2**63), max_value=2**63 - 1) | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(_json_values)
def test_jsonl_lines_are_the_standard_librarys_compact_json(value):
    expected = json.dumps(value, ensure_ascii=False, separators=(",", ":")).encode("utf-8", "backslashreplace")
    assert jsonl_line(value) == expected
