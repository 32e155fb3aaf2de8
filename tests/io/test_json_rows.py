"""Rows of a JSON Lines table read through orjson are exactly what ``json.loads`` reads, or the same refusal.

``json_text.loads_json_row`` takes orjson's fast path only where the two parsers agree;
everything else (long digit runs, ``NaN``, ``1e400``, escaped lone surrogates,
malformed rows) goes to the standard parser (docs/gate-rules.md, "Case tables").
"""

from __future__ import annotations

import json
import math
import struct

import pytest
from claimgate.io.json_text import loads_json, loads_json_row
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import FIXTURES, cli


def same_value(a: object, b: object) -> bool:
    """Equal values of the same types all the way down (floats bit for bit, key order too)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b) or (math.isnan(a) and math.isnan(b))
    if isinstance(a, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    return a == b


def outcome(parse, text: str) -> tuple:
    try:
        return ("value", parse(text))
    except json.JSONDecodeError as exc:
        return ("refused", exc.msg, exc.pos)


def has_repeated_key(text: str) -> bool:
    def pairs_hook(pairs):
        keys = [key for key, _ in pairs]
        if len(set(keys)) != len(keys):
            raise KeyError("repeated")
        return dict(pairs)

    try:
        json.loads(text, object_pairs_hook=pairs_hook)
    except KeyError:
        return True
    except ValueError:
        return False
    return False


def assert_same(text: str) -> None:
    fast, reference = outcome(loads_json_row, text), outcome(loads_json, text)
    if fast[0] == "refused" and "appears twice" in fast[1]:  # the one refusal json.loads does not make
        assert has_repeated_key(text), text
        return
    assert not (fast[0] == "value" and has_repeated_key(text)), text
    assert fast[0] == reference[0], text
    if fast[0] == "value":
        assert same_value(fast[1], reference[1]), text
    else:
        assert fast == reference, text


_json_values = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(min_value=-(2**80), max_value=2**80)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(_json_values, st.booleans())
def test_random_json_reads_the_same_through_both_parsers(value, ascii_only):
    assert_same(json.dumps(value, ensure_ascii=ascii_only))


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet='{}[]",:0123456789.eE+-tfnrulasNIy \t\\u\u0661\xa0', max_size=24))
def test_json_like_noise_reads_or_is_refused_the_same(text):
    assert_same(text)


@pytest.mark.parametrize(
    "text",
    [
        "123456789012345678901234567890",  # orjson would read a float
        '{"id": 18446744073709551616}',
        "[1e400, -1e400]",
        "[NaN, Infinity, -Infinity]",
        '"\\ud800"',
        '{"a": 1, "a": 2, "b": 3}',
        "[0.1, 5e-324, 2.2250738585072014e-308, 1.7976931348623157e308]",
        '{"a": "\u2028\u2029\x85"}',
        "[1,]",
        '{"a" 1}',
        "\ufeff[1]",
        "[1] [2]",
        '"\x01"',
        "-0",
        "-0.0",
        "1" + "0" * 5000,
    ],
)
def test_rows_where_the_parsers_could_differ_read_as_json_loads_reads_them(text):
    assert_same(text)


def gate(capsys, cases, output) -> tuple[int, str, str]:
    return cli(
        capsys, "gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(cases), "--output", str(output)
    )


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("NaN", "NaN is not JSON"),
        ("-Infinity", "-Infinity is not JSON"),
        ("1e400", "the number 1e400 is too large for a double"),
    ],
)
@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_non_json_numbers_in_a_case_table_are_a_one_line_refusal(tmp_path, capsys, value, message, suffix):
    row = '{"case_id": "a", "candidate_ids": ["quill-a"], "requested_version": ' + value + ', "claim_key": "k"}'
    cases = tmp_path / f"cases{suffix}"
    cases.write_text(row + "\n" if suffix == ".jsonl" else "[\n" + row + "\n]", encoding="utf-8")
    code, _, err = gate(capsys, cases, tmp_path / "o.jsonl")
    line = f"line {1 if suffix == '.jsonl' else 2}"
    assert code == 3 and err.strip() == f"error: IngestionError: invalid_case_table: {cases.name} {line}: {message}"
    assert not (tmp_path / "o.jsonl").exists()


@pytest.mark.parametrize("depth", [150, 990, 5000])
@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_row_nested_too_deeply_is_a_one_line_refusal_not_a_traceback(tmp_path, capsys, depth, suffix):
    row = '{"case_id": "a", "candidate_ids": ' + "[" * depth + "]" * depth + "}"
    cases = tmp_path / f"cases{suffix}"
    cases.write_text(row + "\n" if suffix == ".jsonl" else "[" + row + "]", encoding="utf-8")
    code, _, err = gate(capsys, cases, tmp_path / "o.jsonl")
    assert code == 3 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "invalid_case_table" in err and "nested" in err


def test_a_row_nested_as_deep_as_allowed_is_echoed_the_same_by_jsonl_and_json_outputs(tmp_path, capsys):
    nested = "[" * 99 + '"x"' + "]" * 99  # 99 levels inside the row object: 100 in all
    row = '{"case_id": "a", "candidate_ids": ' + nested + ', "requested_version": "1.0", "claim_key": "k"}'
    cases = tmp_path / "cases.jsonl"
    cases.write_text(row + "\n", encoding="utf-8")
    assert gate(capsys, cases, tmp_path / "o.jsonl")[0] == 0
    assert gate(capsys, cases, tmp_path / "o.json")[0] == 0
    line = json.loads((tmp_path / "o.jsonl").read_text(encoding="utf-8"))
    entry = json.loads((tmp_path / "o.json").read_text(encoding="utf-8"))["cases"][0]
    assert line["candidate_ids"] == json.loads(nested)
    assert list(entry) == list(line) and entry == line


@pytest.mark.parametrize(
    "row",
    [
        '{"case_id": "a", "claim_key": "k", "claim_key": "other"}',
        '{"case_id": "a" , "claim_key" : "k", "claim_key": "k"}',
        '{"case_id": "a", "extra": {"x": 1, "x": 2}}',
        '{"case_id": "a", "candidate_ids": [{"id": 1, "id": 1}]}',
    ],
)
@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_a_row_that_names_a_key_twice_is_a_one_line_refusal_naming_its_line(tmp_path, capsys, row, suffix):
    good = '{"case_id": "ok", "candidate_ids": ["quill-a"], "requested_version": "1.0", "claim_key": "k"}'
    cases = tmp_path / f"cases{suffix}"
    cases.write_text(good + "\n" + row + "\n" if suffix == ".jsonl" else "[\n" + good + ",\n" + row + "\n]", "utf-8")
    code, _, err = gate(capsys, cases, tmp_path / "o.jsonl")
    line = 2 if suffix == ".jsonl" else 3
    assert code == 3 and len(err.strip().splitlines()) == 1
    assert err.startswith(f"error: IngestionError: invalid_case_table: {cases.name} line {line}: key ")
    assert "appears twice in one object" in err


@pytest.mark.parametrize(
    "text",
    [
        '{"url": "https://x.invalid/a:b", "t": "12:00"}',
        '{"a": {"b": 1}, "c": {"b": 2}}',
        '[{"k": 1}, {"k": 2}]',
        '{"a": "\\":\\""}',
    ],
)
def test_colons_in_values_and_the_same_key_in_two_objects_are_not_repeated_keys(text):
    assert loads_json_row(text) == json.loads(text)
