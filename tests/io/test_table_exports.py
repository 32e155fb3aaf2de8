"""Tables as other tools write them: JSON Lines with raw line separators, spreadsheet CSV exports."""

from __future__ import annotations

import json

import pytest
from claimgate.errors import IngestionError
from claimgate.io.tables import _jsonl_lines, header_problem, read_case_rows, read_citation_rows
from hypothesis import given
from hypothesis import strategies as st

HEADER = "case_id,candidate_ids,requested_version,claim_key"


def refusal(path) -> IngestionError:
    with pytest.raises(IngestionError) as caught:
        read_case_rows(path)
    assert "\n" not in caught.value.one_line()
    return caught.value


# ----------------------------------------------------------------------------- JSON Lines


@pytest.mark.parametrize("separator", ["\u2028", "\u2029", "\u0085"])  # raw in json.dumps(ensure_ascii=False)
def test_a_raw_unicode_line_separator_inside_a_jsonl_string_is_one_row(tmp_path, separator):
    row = {"citation_id": f"c{separator}1", "doc_id": "d", "quote": f"one{separator}two three four"}
    path = tmp_path / "c.jsonl"
    path.write_text(json.dumps(row, ensure_ascii=False) + "\n" + json.dumps({"citation_id": "c2"}) + "\n")
    assert read_citation_rows(path) == [row, {"citation_id": "c2"}]


@given(st.lists(st.text() | st.text(alphabet="a \u2028\u2029\u0085\x1c\r\n"), max_size=5))
def test_any_strings_written_by_json_dumps_read_back_as_the_same_rows(values):
    rows = [{"case_id": value} for value in values]
    text = "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows)
    assert [json.loads(line) for _, line in _jsonl_lines(text) if line.strip()] == rows


def test_crlf_jsonl_reads_and_names_physical_lines(tmp_path):
    path = tmp_path / "c.jsonl"
    path.write_bytes(b'{"case_id": "a"}\r\n\r\n{"case_id": "b"}\r\n{broken\r\n')
    assert refusal(path).detail.startswith("c.jsonl line 4: ")
    path.write_bytes(b'{"case_id": "a"}\r\n\r\n{"case_id": "b"}\r\n')
    assert read_case_rows(path) == [{"case_id": "a"}, {"case_id": "b"}]


# ----------------------------------------------------------------------------- CSV exports


@pytest.mark.parametrize("tail", ["   \n", "\t\n", " ", "\n\n  \n"])
def test_whitespace_only_lines_are_skipped_like_empty_ones(tmp_path, tail):
    path = tmp_path / "c.csv"
    path.write_text(f"{HEADER}\na,quill-guide,1.0,existing_path\n{tail}")
    assert [row["case_id"] for row in read_case_rows(path)] == ["a"]


def test_a_whitespace_only_line_inside_a_quoted_cell_is_kept(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(f'{HEADER}\n"a\n   \nb",quill-guide,1.0,existing_path\n')
    assert read_case_rows(path)[0]["case_id"] == "a\n   \nb"


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_a_bad_quote_is_reported_on_its_physical_line(tmp_path, newline):
    lines = [HEADER, "a,quill-guide,1.0,existing_path", "b,quill-guide,1.0,existing_path", 'c,"quill"x,1.0,k']
    path = tmp_path / "c.csv"
    path.write_bytes(newline.join(lines).encode() + newline.encode())
    assert refusal(path).detail.startswith("c.csv line 4: ")


def test_a_bad_quote_in_the_header_is_line_one_not_zero(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text('case_id,"candidate_ids"x,requested_version,claim_key\n')
    assert refusal(path).detail.startswith("c.csv line 1: ")


def test_a_bad_quote_after_a_multi_line_cell_names_the_line_it_is_on(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text(f'{HEADER}\n"a\nb\nc",quill-guide,1.0,existing_path\nd,"x"y,1.0,k\n')
    assert refusal(path).detail.startswith("c.csv line 5: ")


def test_a_header_after_blank_lines_is_named_on_its_own_line(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("\n  \nid,candidates\n")
    assert refusal(path).detail.startswith("c.csv line 3: header lacks case_id, candidate_ids")


@pytest.mark.parametrize("delimiter, name", [(";", "';'"), ("\t", "tab")])
def test_a_semicolon_or_tab_export_names_the_delimiter(tmp_path, delimiter, name):
    path = tmp_path / "c.csv"
    path.write_text(HEADER.replace(",", delimiter) + "\n" + delimiter.join(["a", "g", "1.0", "k"]) + "\n")
    detail = refusal(path).detail
    assert detail.startswith("c.csv line 1: header lacks case_id, candidate_ids, requested_version, claim_key; ")
    assert f"found header: [{HEADER.replace(',', delimiter)!r}]" in detail
    assert f"the file looks {name}-separated; export it with ',' as the delimiter" in detail


@pytest.mark.parametrize("found", ["Case_ID", " case_id", "case_id "])
def test_a_header_name_differing_in_case_or_spaces_is_shown_with_the_expected_name(tmp_path, found):
    path = tmp_path / "c.csv"
    path.write_text(HEADER.replace("case_id", found, 1) + "\n")
    detail = refusal(path).detail
    assert f"found header: {[found, 'candidate_ids', 'requested_version', 'claim_key']!r}" in detail
    assert f"column names are exact: {found!r} should be 'case_id'" in detail


def test_an_empty_csv_says_it_has_no_header(tmp_path):
    path = tmp_path / "c.csv"
    path.write_text("  \n")
    assert refusal(path).detail.endswith("found header: [] (the file has no header line)")


def test_a_citation_csv_names_its_own_required_columns():
    assert header_problem(["citation_id;doc_id;quote"], ("citation_id", "doc_id", "quote")).startswith(
        "header lacks citation_id, doc_id, quote; found header: ['citation_id;doc_id;quote']; the file looks ';'"
    )
    assert header_problem(["citation_id", "doc_id", "quote"], ("citation_id", "doc_id", "quote")) is None


@given(
    st.lists(st.sampled_from(["a,g,1.0,k", "", "   ", "\t", '"x\ny",g,1.0,k']), max_size=8),
    st.sampled_from(["\n", "\r\n"]),
)
def test_a_broken_row_is_named_on_its_physical_line_whatever_comes_before(tmp_path_factory, lines, newline):
    body = [HEADER, *lines, "short,row"]
    physical = sum(line.count("\n") + 1 for line in body)  # a quoted cell spanning two lines counts two
    path = tmp_path_factory.mktemp("csv") / "c.csv"
    path.write_bytes("\n".join(body).replace("\n", newline).encode())
    assert refusal(path).detail == f"c.csv line {physical}: wrong number of fields"
