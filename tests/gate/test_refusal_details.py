"""Refusal details stay small whatever the input: a huge enumeration or id is named, never copied (issue 22, 13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claimgate.errors import MAX_DETAIL_CHARS, DirectiveError, bounded_detail
from claimgate.execution import drivers
from claimgate.gate.directives import ENUMERATION_CHARS, allowed_values, parse_directives
from claimgate.gate.schema import schema_from_dict

from ..helpers import pin_sources

VALUES = ["value_" + "".join(chr(97 + int(d)) for d in f"{i:04d}") for i in range(2000)]  # value_aaaa, ...
PAGE = b"@quill create_copy existing_path=rename\n"


def _schema_file(folder: Path, values: list[str]) -> Path:
    path = folder / "schema.toml"
    path.write_text(f'prefix = "@quill"\n[operations.create_copy]\nexisting_path = {json.dumps(values)}\n')
    return path


def test_a_2000_value_enumeration_gives_a_detail_under_the_cap(tmp_path):
    schema = schema_from_dict({"prefix": "@quill", "operations": {"create_copy": {"existing_path": VALUES}}})
    with pytest.raises(DirectiveError) as caught:
        parse_directives(PAGE.decode(), schema, "page")
    detail = caught.value.detail
    assert len(detail) < 2 * ENUMERATION_CHARS and len(detail) <= MAX_DETAIL_CHARS
    assert detail.startswith("page:1: create_copy.existing_path=rename not in the 2000 allowed values ('value_aaaa', ")
    assert detail.endswith(", ...)")
    # a whole run of many cases over that source: every refusal's detail is as small
    cases = [{"case_id": f"c{i}", "candidate_ids": ["page"], "requested_version": "1.0", "claim_key": "existing_path"}
             for i in range(200)]  # fmt: skip
    manifest, cases_path = pin_sources(tmp_path, {"page": ("1.0", PAGE)}, cases)
    run = drivers.run_gate(manifest, cases_path, _schema_file(tmp_path, VALUES))
    assert set(run.results["reason"]) == {"unknown_directive_value"}
    assert run.results["detail"].str.len().max() < 2 * ENUMERATION_CHARS


def test_a_short_enumeration_is_listed_as_before():
    assert allowed_values(("refuse", "overwrite")) == "['refuse', 'overwrite']"
    assert allowed_values(tuple(VALUES[:12])) == str(VALUES[:12])  # 192 characters: still in full


def test_every_refusal_detail_is_capped(tmp_path):
    huge_id = "x" * 2**20
    cases = [{"case_id": "c", "candidate_ids": [huge_id], "requested_version": "1.0", "claim_key": "existing_path"}]
    manifest, cases_path = pin_sources(tmp_path, {"page": ("1.0", b"@quill create_copy existing_path=refuse\n")}, cases)
    run = drivers.run_gate(manifest, cases_path)
    assert run.results.loc[0, "reason"] == "unknown_candidate"
    detail = run.results.loc[0, "detail"]
    assert len(detail) == MAX_DETAIL_CHARS and detail.endswith(
        f"... ({len(repr(huge_id) + ' is not in the manifest')} characters)"
    )
    assert bounded_detail("short") == "short" and DirectiveError("r", "y" * 5000).detail == bounded_detail("y" * 5000)
