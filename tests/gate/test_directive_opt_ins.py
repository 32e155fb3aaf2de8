"""Directive opt-ins of the schema (docs/gate-rules.md, "Directive opt-ins"): ``scope = "prefix"`` and
``skip_fenced_code = true``. The default stays the seed's rule; a line holding the prefix that an opt-in keeps
from being read is listed as ignored, never silently used.
"""

from __future__ import annotations

import dataclasses

import pytest
from claimgate.cli.documents import gate_document
from claimgate.errors import DirectiveError, IngestionError
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.gate.directives import _candidate_lines, ignored_lines_of, parse_directives
from claimgate.gate.schema import load_schema, schema_from_dict
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import pin_sources

QUILL = load_schema()
PREFIX_SCOPE = dataclasses.replace(QUILL, directive_scope="prefix")
SKIP_FENCES = dataclasses.replace(QUILL, skip_fenced_code=True)
BOTH = dataclasses.replace(QUILL, directive_scope="prefix", skip_fenced_code=True)

DIRECTIVE = "@quill create_copy existing_path=refuse"
PAGE_WITH_CODE = f"""# Copying
{DIRECTIVE}

```python
@app.get("/items")
@quill create_copy existing_path=overwrite
```

Write to help@quill.dev or ping @maintainers.
"""

# Under both opt-ins: the fenced directive, and the prose line mentioning the prefix mid-line.
IGNORED_IN_PAGE_WITH_CODE = [
    {"source_id": "page", "line": 6, "rule": "skip_fenced_code", "quote": "@quill create_copy existing_path=overwrite"},
    {"source_id": "page", "line": 9, "rule": "scope_prefix", "quote": "Write to help@quill.dev or ping @maintainers."},
]


def values(text, schema):
    return [(d["claim_key"], d["value"], d["start_line"]) for d in parse_directives(text, schema, "page")]


@pytest.mark.parametrize(
    "line", ['@app.get("/items")', "Write to help@quill.dev", "@maintainers please look", "the @quill directive"]
)
def test_seed_rule_still_refuses_at_lines_by_default(line):
    with pytest.raises(DirectiveError) as caught:
        parse_directives(f"{DIRECTIVE}\n{line}\n", QUILL, "page")
    assert caught.value.reason == "malformed_directive"


@pytest.mark.parametrize("line", ['@app.get("/items")', "Write to help@quill.dev", "ping @maintainers"])
def test_prefix_scope_reads_only_lines_starting_with_the_prefix_token(line):
    assert values(f"{DIRECTIVE}\n{line}\n", PREFIX_SCOPE) == [("existing_path", "refuse", 1)]


@pytest.mark.parametrize("line", ["  @quill create_copy existing_path=refuse", "@quill  create_copy x=y", "@quill"])
def test_prefix_scope_still_refuses_a_malformed_line_starting_with_the_prefix(line):
    with pytest.raises(DirectiveError) as caught:
        parse_directives(f"{line}\n", PREFIX_SCOPE, "page")
    assert caught.value.reason == "malformed_directive"


def test_prefix_scope_lists_a_mid_line_prefix_as_ignored():
    text = f"{DIRECTIVE}\nNote: @quill create_copy existing_path=overwrite\n"
    assert values(text, PREFIX_SCOPE) == [("existing_path", "refuse", 1)]
    assert ignored_lines_of(text, PREFIX_SCOPE, "page") == [
        {
            "source_id": "page",
            "line": 2,
            "rule": "scope_prefix",
            "quote": "Note: @quill create_copy existing_path=overwrite",
        }
    ]


def test_directive_inside_a_skipped_fence_is_not_read_and_is_listed_as_ignored():
    assert values(PAGE_WITH_CODE, BOTH) == [("existing_path", "refuse", 2)]
    assert ignored_lines_of(PAGE_WITH_CODE, BOTH, "page") == IGNORED_IN_PAGE_WITH_CODE


def test_with_the_seed_scope_a_fenced_decorator_is_listed_as_ignored():
    text = f'{DIRECTIVE}\n```\n@app.get("/items")\n```\n'
    assert values(text, SKIP_FENCES) == [("existing_path", "refuse", 1)]
    assert ignored_lines_of(text, SKIP_FENCES, "p") == [
        {"source_id": "p", "line": 3, "rule": "skip_fenced_code", "quote": '@app.get("/items")'}
    ]


FENCE_PIECES = ["```", "~~~", "````", DIRECTIVE, "@app.get()", "help@quill.dev", "prose", "  @quill x=y", ""]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(FENCE_PIECES), max_size=10), st.sampled_from([PREFIX_SCOPE, SKIP_FENCES, BOTH]))
def test_every_line_holding_the_prefix_is_read_or_listed_never_dropped(lines, schema):
    text = "\n".join(lines)
    seen = {number: rule for number, _, _, rule in _candidate_lines(text, schema)}
    ignored = {entry["line"] for entry in ignored_lines_of(text, schema)}
    assert ignored == {number for number, rule in seen.items() if rule}
    for number, line in enumerate(lines, start=1):
        if "@quill" in line:
            assert number in seen, (number, line)  # read as a directive (rule "") or listed as ignored


def test_fence_skipping_alone_still_refuses_prose_mentions_outside_fences():
    with pytest.raises(DirectiveError):
        parse_directives(PAGE_WITH_CODE, SKIP_FENCES, "page")  # help@quill.dev outside the fence


@pytest.mark.parametrize(
    "fence_open, fence_close",
    [("```", "```"), ("~~~", "~~~"), ("````", "`````"), ("```python", "```"), ("   ```", "```   ")],
)
def test_fence_shapes_that_open_and_close_a_block(fence_open, fence_close):
    text = f"{fence_open}\n@decorator\n{fence_close}\n{DIRECTIVE}\n"
    assert values(text, SKIP_FENCES) == [("existing_path", "refuse", 4)]


def test_a_shorter_or_other_fence_does_not_close_the_block():
    text = f"````\n```\n~~~\n{DIRECTIVE}\n````\n"
    assert values(text, SKIP_FENCES) == []
    assert [e["line"] for e in ignored_lines_of(text, SKIP_FENCES)] == [4]


def test_an_unclosed_fence_runs_to_the_end_of_the_text():
    text = f"{DIRECTIVE}\n```\n@quill create_copy existing_path=overwrite\n"
    assert values(text, SKIP_FENCES) == [("existing_path", "refuse", 1)]
    assert [e["line"] for e in ignored_lines_of(text, SKIP_FENCES)] == [3]


@pytest.mark.parametrize("line", ["    ```", "``` a`b"])
def test_lines_that_are_not_fences_do_not_open_a_block(line):
    with pytest.raises(DirectiveError):
        parse_directives(f"{line}\n@decorator\n", SKIP_FENCES)


def test_without_opt_ins_nothing_is_listed_as_ignored():
    assert ignored_lines_of(PAGE_WITH_CODE, QUILL, "page") == []


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from([DIRECTIVE, "prose", "@quill create_copy close", "Note @quill", ""]), max_size=8))
def test_without_fences_skipping_them_changes_nothing(lines):
    text = "\n".join(lines)
    try:
        expected = parse_directives(text, QUILL)
    except DirectiveError as exc:
        expected = exc.reason
    try:
        got = parse_directives(text, SKIP_FENCES)
    except DirectiveError as exc:
        got = exc.reason
    assert got == expected


@pytest.mark.parametrize("directives", [{"scope": "token"}, {"skip_fenced_code": "yes"}, {"skip_code": True}, "prefix"])
def test_bad_directive_settings_are_invalid_schema(directives):
    with pytest.raises(IngestionError) as caught:
        schema_from_dict({"prefix": "@q", "operations": {"op": {"key": ["a"]}}, "directives": directives})
    assert caught.value.reason == "invalid_schema"


def test_the_run_document_lists_ignored_lines_and_the_case_is_ready(tmp_path):
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", PAGE_WITH_CODE.encode())})
    schema = tmp_path / "schema.toml"
    schema.write_text(
        'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse", "overwrite"]\n'
        '[directives]\nscope = "prefix"\nskip_fenced_code = true\n'
    )
    run = drivers.run_gate(manifest, cases, schema)
    assert run.results.loc[0, "status"] == "ready"
    document = gate_document(run, fixture_kind="user-supplied")
    assert document["ignored_directive_lines"] == IGNORED_IN_PAGE_WITH_CODE
    assert document["schema"]["directives"] == {"scope": "prefix", "skip_fenced_code": True}


def test_ignored_lines_are_a_node_of_the_gate_and_the_same_when_partitioned(tmp_path):
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", PAGE_WITH_CODE.encode()), "b": ("1.0", b"x\n")})
    schema = tmp_path / "schema.toml"
    schema.write_text(
        'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse", "overwrite"]\n'
        '[directives]\nscope = "prefix"\nskip_fenced_code = true\n'
    )
    whole = drivers.run_gate(manifest, cases, schema)
    split = drivers.run_gate(manifest, cases, schema, RunSettings(executor="multiprocessing", partition_rows=1))
    assert whole.ignored_directive_lines.to_dict("records") == IGNORED_IN_PAGE_WITH_CODE
    assert split.ignored_directive_lines.equals(whole.ignored_directive_lines)
    assert dict(whole.ignored_directive_lines.dtypes.astype(str)) == {
        "source_id": "str", "line": "int64", "rule": "str", "quote": "str"
    }  # fmt: skip


def test_seed_schema_documents_have_no_ignored_lines_key(fixture_run):
    assert "ignored_directive_lines" not in gate_document(fixture_run, fixture_kind="x")
