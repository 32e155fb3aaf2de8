"""Version schemes of the claim schema (docs/gate-rules.md, "Versions"): which strings are versions.

Each named scheme accepts its versions and refuses the rest with ``invalid_requested_version``;
a version that is not a string is refused naming its type, whatever table format it came from;
selection stays exact string equality under every scheme.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
from claimgate.errors import IngestionError
from claimgate.execution import drivers
from claimgate.gate.schema import load_schema, schema_from_dict
from claimgate.gate.versions import version_scheme
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import pin_sources

QUILL_OPERATIONS = {"create_copy": {"existing_path": ["refuse", "overwrite"]}}
PAGE = b"@quill create_copy existing_path=refuse\n"


def write_schema(folder: Path, versions: str | None) -> Path:
    """Quill's grammar with ``[versions] pattern = versions`` (no table for ``None``)."""
    text = 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse", "overwrite"]\n'
    if versions is not None:
        text += f"[versions]\npattern = {json.dumps(versions)}\n"
    path = folder / "schema.toml"
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "pattern, accepted, refused",
    [
        (None, ["1.0", "10.24"], ["1.0.0", "1", "v1.0", "1.0\n", " 1.0"]),
        ("major.minor", ["0.1"], ["1.2.3"]),
        ("semver", ["1.2.3", "0.0.1-rc.1", "1.2.3+build.5", "1.2.3-alpha+001"], ["1.2", "01.2.3", "1.2.3.4", "v1.2.3"]),
        ("pep440", ["1.0", "1.0.0", "2.1rc1", "1!2.0.post3.dev4", "1.0+local.7"], ["1.0-rc1", "v1.0", "abc", "1.0 "]),
        (r"20[0-9]{2}-[0-9]{2}", ["2024-06"], ["2024-6", "x2024-06", "2024-06x"]),
    ],
    ids=["default", "major.minor", "semver", "pep440", "regex"],
)
def test_each_scheme_accepts_its_versions_and_refuses_the_rest(pattern, accepted, refused):
    scheme = version_scheme(pattern)
    for version in accepted:
        assert scheme.problem(version) == "", version
    for version in refused:
        assert scheme.problem(version) != "", version


def test_default_scheme_keeps_the_seeds_detail_byte_for_byte():
    assert version_scheme(None).problem("4.1.0") == "'4.1.0' does not match ^[0-9]+\\.[0-9]+$"


def test_pep440_version_not_in_normal_form_names_the_normal_form():
    assert version_scheme("pep440").problem("1.0-RC1") == "'1.0-RC1' is not in PEP 440 normal form; write '1.0rc1'"


@pytest.mark.parametrize(
    "value, detail",
    [
        (1.4, "got float 1.4; write versions as strings"),
        (2, "got int 2; write versions as strings"),
        (True, "got bool True; write versions as strings"),
        (None, "got no version (null or missing); write versions as strings"),
    ],
)
@pytest.mark.parametrize("pattern", [None, "semver", "pep440", r".+"])
def test_a_version_that_is_not_a_string_is_refused_naming_its_type(value, detail, pattern):
    assert version_scheme(pattern).problem(value) == detail


@pytest.mark.parametrize("pattern", ["semvar", "PEP440", "major_minor"])
def test_a_misspelt_scheme_name_is_invalid_schema(pattern):
    with pytest.raises(IngestionError) as caught:
        schema_from_dict({"prefix": "@q", "operations": QUILL_OPERATIONS, "versions": {"pattern": pattern}})
    assert caught.value.reason == "invalid_schema"
    assert "unknown version scheme" in caught.value.detail


@pytest.mark.parametrize(
    "versions", [{"pattern": "([0-9]"}, {"pattern": 3}, {"pattern": ""}, {"scheme": "semver"}, "x"]
)
def test_a_bad_versions_table_is_invalid_schema(versions):
    with pytest.raises(IngestionError) as caught:
        schema_from_dict({"prefix": "@q", "operations": QUILL_OPERATIONS, "versions": versions})
    assert caught.value.reason == "invalid_schema"


@given(st.text(max_size=12))
def test_custom_expression_must_match_the_whole_version(text):
    scheme = version_scheme(r"[0-9]+(\.[0-9]+)*")
    whole = all(part.isascii() and part.isdigit() for part in text.split(".")) and text != ""
    assert (scheme.problem(text) == "") == whole


def _run(tmp_path: Path, pattern: str | None, source_version: str, cases: list, suffix: str = ".json"):
    manifest, cases_path = pin_sources(tmp_path, {"page": (source_version, PAGE)}, cases)
    if suffix != ".json":
        cases_path = write_cases(tmp_path, cases, suffix)
    return drivers.run_gate(manifest, cases_path, write_schema(tmp_path, pattern))


def write_cases(folder: Path, cases: list, suffix: str) -> Path:
    path = folder / f"cases{suffix}"
    if suffix == ".jsonl":
        path.write_text("".join(json.dumps(c) + "\n" for c in cases), encoding="utf-8")
    elif suffix == ".parquet":
        pd.DataFrame(cases).to_parquet(path)
    else:
        raise ValueError(suffix)
    return path


def _case(version: object) -> dict:
    return {"case_id": "c", "candidate_ids": ["page"], "requested_version": version, "claim_key": "existing_path"}


@pytest.mark.parametrize("pattern, version", [("semver", "1.4.0"), ("pep440", "1.4.0rc2"), (None, "1.4")])
def test_a_scheme_version_selects_its_pinned_source(tmp_path, pattern, version):
    run = _run(tmp_path, pattern, version, [_case(version)])
    assert run.results.loc[0, "status"] == "ready"


@pytest.mark.parametrize("pattern", ["pep440", r"[0-9]+(\.[0-9]+)*"])
def test_selection_is_exact_string_equality_so_1_2_is_not_1_2_0(tmp_path, pattern):
    run = _run(tmp_path, pattern, "1.2.0", [_case("1.2")])
    assert (run.results.loc[0, "status"], run.results.loc[0, "reason"]) == ("not_in_docs", "no_eligible_version")


def test_a_source_version_outside_the_scheme_is_invalid_source_version(tmp_path):
    run = _run(tmp_path, "semver", "1.4", [_case("1.4.0")])
    assert run.results.loc[0, "reason"] == "invalid_source_version"


@pytest.mark.parametrize("suffix", [".jsonl", ".parquet"])
def test_a_number_version_from_jsonl_or_parquet_is_refused_naming_float(tmp_path, suffix):
    run = _run(tmp_path, None, "1.4", [_case(1.4)], suffix)
    assert run.results.loc[0, "reason"] == "invalid_requested_version"
    assert run.results.loc[0, "detail"] == "got float 1.4; write versions as strings"


def test_parquet_string_versions_stay_strings(tmp_path):
    run = _run(tmp_path, None, "1.10", [_case("1.10")], ".parquet")
    assert run.results.loc[0, "status"] == "ready"


def test_csv_versions_stay_text_so_1_10_is_not_1_1(tmp_path):
    manifest, _ = pin_sources(tmp_path, {"page": ("1.10", PAGE)})
    table = tmp_path / "cases.csv"
    table.write_text("case_id,candidate_ids,requested_version,claim_key\nc,page,1.10,existing_path\n")
    run = drivers.run_gate(manifest, table)
    assert run.results.loc[0, "status"] == "ready"
    assert run.case_rows.loc[0, "request"]["requested_version"] == "1.10"


def test_quill_schema_is_major_minor():
    assert load_schema().versions == version_scheme(None)
    assert "versions" not in load_schema().as_dict()  # the seed's schema form, byte for byte


# ------------------------------------------------------------------ hostile patterns and versions (issue 22, item 3)

_NESTED = r"([0-9]+\.?)+"  # exponential in Python's backtracking re on a near-miss: 35 digits took over a minute


def test_nested_quantifier_version_pattern_decides_in_well_under_a_second():
    # in a child with a timeout: on a backtracking matcher this would hold the interpreter for hours
    code = (
        "import json, sys, time; from claimgate.gate.schema import schema_from_dict; "
        "schema = schema_from_dict(json.loads(sys.argv[1])); version = '1' * 39 + 'x'; "
        "t = time.perf_counter(); detail = schema.versions.problem(version); print(time.perf_counter() - t); "
        "print(detail != '' and schema.versions.problem('1.2.3') == '')"
    )
    form = {"prefix": "@q", "operations": QUILL_OPERATIONS, "versions": {"pattern": _NESTED}}
    done = subprocess.run([sys.executable, "-c", code, json.dumps(form)], capture_output=True, text=True, timeout=20)
    assert done.returncode == 0, done.stderr
    seconds, decided = done.stdout.split()
    assert float(seconds) < 0.25 and decided == "True"
    assert done.stderr == ""  # RE2 logs nothing


def test_over_long_version_is_refused_with_its_code(tmp_path):
    from claimgate.gate.versions import MAX_VERSION_CHARS

    long_version = "1" * (MAX_VERSION_CHARS + 1)
    run = _run(tmp_path, _NESTED, "1.0", [_case(long_version), {**_case("1" * MAX_VERSION_CHARS), "case_id": "d"}])
    assert run.results.loc[0, "reason"] == "invalid_requested_version"
    assert run.results.loc[0, "detail"] == (
        f"a version of {MAX_VERSION_CHARS + 1} characters ('{'1' * 24}'...) is over the {MAX_VERSION_CHARS} allowed"
    )
    assert run.results.loc[1, "reason"] == "no_eligible_version"  # at the cap: a version, just not pinned
    assert version_scheme("semver").problem("1.0.0-" + "a" * 10**6).startswith("a version of 1000006 characters")


@pytest.mark.parametrize("pattern", [r"([0-9])\.\1", r"(?=1)[0-9.]+", r"(?>[0-9]+)\.[0-9]"])
def test_a_pattern_without_a_linear_time_match_is_invalid_schema(pattern):
    with pytest.raises(IngestionError) as caught:
        schema_from_dict({"prefix": "@q", "operations": QUILL_OPERATIONS, "versions": {"pattern": pattern}})
    assert caught.value.reason == "invalid_schema" and "cannot be matched in linear time" in caught.value.detail


@pytest.mark.parametrize(
    "pattern, accepted, refused",
    [
        (r"^[0-9]+\.[0-9]+\Z", ["1.2"], ["1.2\n", "1.2.3"]),
        (r"v{,1}[0-9]+", ["v1", "12"], ["vv1"]),
        (r"[\]x]+-[0-9]", ["]x-1"], ["x]1"]),
    ],
)
def test_python_spellings_of_a_pattern_are_read_as_python_reads_them(pattern, accepted, refused):
    scheme = version_scheme(pattern)
    assert [v for v in accepted if scheme.problem(v)] == [] and all(scheme.problem(v) for v in refused)


def test_accepts_never_caches_an_over_long_text():
    from claimgate.gate import versions

    scheme = version_scheme(r"[0-9.]+")
    before = versions._accepts.cache_info().currsize
    assert not scheme.accepts("1" * (versions.MAX_VERSION_CHARS + 1)) and scheme.accepts("1.2")
    assert versions._accepts.cache_info().currsize <= before + 1  # only the short one
