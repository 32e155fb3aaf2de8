"""A rejected quote's diagnosis on a rendered page (Markdown, reStructuredText) slices the file as written.

The audit reads what a reader sees (docs/documents.md); its spans are moved back into the raw file, and so
are the nearest passage and each edit's ``source_span`` of the diagnosis (``io.visible_text.raw_diagnosis``).
"""

from __future__ import annotations

import pytest
from claimgate.api import Audit
from hypothesis import given, settings
from hypothesis import strategies as st

PAGES = {
    "pool.md": (
        "# Pools\n\nA pool keeps **at most** [20 connections](limits.md#pool) open and closes the\n"
        "idle ones after `30` seconds.\n"
    ),
    "pool.rst": (
        "Pools\n=====\n\nA pool keeps *at most* `20 connections <limits.html>`_ open and closes the\n"
        "idle ones after ``30`` seconds.\n"
    ),
}


def _audited(tmp_path, name: str, quote: str) -> tuple[dict, str]:
    (tmp_path / name).write_text(PAGES[name], encoding="utf-8")
    rows = Audit.from_corpus(tmp_path).check([{"citation_id": "c", "doc_id": name, "quote": quote}])
    return rows.iloc[0].to_dict(), PAGES[name]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_changed_number_on_a_rendered_page_is_diagnosed_in_the_file_as_written(tmp_path, name):
    row, raw = _audited(tmp_path, name, "A pool keeps at most 25 connections open and closes the idle ones")
    assert row["verdict"] == "not_found"
    diagnosis = row["diagnosis"]
    assert diagnosis["kind"] == "number_changed"
    nearest = diagnosis["nearest"]
    assert raw[nearest["start"] : nearest["end"]] == nearest["text"]
    assert "20" in nearest["text"] and "connections" in nearest["text"]
    (changed,) = [edit for edit in diagnosis["edits"] if edit["op"] == "replace"]
    start, end = changed["source_span"]
    assert raw[start:end] == "20" == changed["source"]


@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_found_quote_and_a_near_miss_slice_the_same_file(tmp_path, name):
    found, raw = _audited(tmp_path, name, "A pool keeps at most 20 connections open and closes the idle ones")
    (span,) = found["spans"]
    assert raw[span["start"] : span["end"]] == span["text"] and found["diagnosis"] is None


@settings(max_examples=25, deadline=None)
@given(number=st.integers(min_value=21, max_value=999))
def test_any_changed_count_points_at_the_pages_own_digits(tmp_path_factory, number):
    tmp_path = tmp_path_factory.mktemp("page")
    row, raw = _audited(tmp_path, "pool.md", f"A pool keeps at most {number} connections open and closes the idle")
    replaced = [edit for edit in row["diagnosis"]["edits"] if edit["op"] == "replace"]
    assert replaced and all(raw[e["source_span"][0] : e["source_span"][1]] == e["source"] for e in replaced)
