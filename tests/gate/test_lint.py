"""The docs lint over frames: every problem (not the first only), conflicts by typed equality, gaps."""

from __future__ import annotations

import pandas as pd
import pytest
from claimgate.gate.lint import CONTRACT_COLUMNS, PROBLEM_COLUMNS, lint_sources
from claimgate.gate.schema import schema_from_dict
from hypothesis import given, settings
from hypothesis import strategies as st

SCHEMA = schema_from_dict(
    {
        "prefix": "@wisp",
        "operations": {
            "client": {"timeout": {"type": "number"}, "retries": {"type": "integer"}, "mode": ["fast", "safe"]}
        },
    }
)


def frame(*pages: tuple[str, str, str]) -> pd.DataFrame:
    """``(source_id, version, text)`` pages as a sources frame (path ``<id>.md``)."""
    rows = [{"source_id": s, "version": v, "path": f"{s}.md", "text": t} for s, v, t in pages]
    return pd.DataFrame(rows, columns=["source_id", "version", "path", "text"]).astype("str")


def test_every_problem_of_every_page_is_listed_with_its_line():
    report = lint_sources(
        frame(
            ("a", "1.0", "# A\n@wisp client timeout=soon\n\n@wisp client mode=slow\n"),
            ("b", "1.0", "<!--  @wisp client mode=fast -->\n"),
        ),
        SCHEMA,
    )
    assert report.problems[["path", "line", "reason"]].values.tolist() == [
        ["a.md", 2, "wrong_value_type"],
        ["a.md", 4, "unknown_directive_value"],
        ["b.md", 1, "malformed_directive"],
    ]
    assert report.exit_status() == 1
    assert list(report.problems.columns) == list(PROBLEM_COLUMNS)


def test_a_same_version_disagreement_is_a_conflict_and_typed_equal_values_are_not():
    report = lint_sources(
        frame(
            ("guide", "1.0", "<!-- @wisp client timeout=5 -->\n@wisp client mode=fast\n"),
            ("ref", "1.0", ".. @wisp client timeout=5.0\n.. @wisp client mode=safe\n"),
            ("new", "2.0", "@wisp client mode=safe\n"),
        ),
        SCHEMA,
    )
    table = {(r["version"], r["claim_key"]): r for r in report.contracts.to_dict("records")}
    assert not table[("1.0", "timeout")]["conflict"]
    assert table[("1.0", "mode")]["conflict"]
    assert [c["value"] for c in table[("1.0", "mode")]["declared_by"]] == ["fast", "safe"]
    assert not table[("2.0", "mode")]["conflict"]  # another version never conflicts
    assert (report.conflicts, report.gaps, report.exit_status()) == (1, 0, 1)
    assert list(report.contracts.columns) == list(CONTRACT_COLUMNS)


def test_a_key_some_pages_of_a_version_are_silent_on_is_a_gap_failing_only_when_strict():
    report = lint_sources(
        frame(("guide", "1.0", "@wisp client retries=3\n"), ("faq", "1.0", "No directives here.\n")),
        SCHEMA,
    )
    (row,) = report.contracts.to_dict("records")
    assert row["gap"] and row["silent"] == ["faq"] and not row["conflict"]
    assert report.exit_status() == 0 and report.exit_status(strict=True) == 1


def test_a_page_with_a_problem_is_not_counted_silent():
    report = lint_sources(
        frame(("guide", "1.0", "@wisp client retries=3\n"), ("bad", "1.0", "@wisp client retries=three\n")),
        SCHEMA,
    )
    assert report.contracts["silent"].tolist() == [[]] and len(report.problems) == 1


def test_clean_docs_exit_zero():
    report = lint_sources(
        frame(("guide", "1.0", "@wisp client mode=fast\n"), ("ref", "1.0", "@wisp client mode=fast\n")), SCHEMA
    )
    assert report.problems.empty and report.exit_status(strict=True) == 0


@pytest.mark.parametrize(
    "pages",
    [
        [("guide", "1.0", "# Guide\nNo directives here.\n")],
        [("a", "1.0", "Mail me@example.org.\n"), ("b", "2.0", "Decorate it with @other.client here.\n")],
        [("empty", "1.0", "")],
    ],
    ids=["prose", "at_signs_in_prose", "empty_page"],
)
def test_pages_that_declare_nothing_pass_but_fail_when_strict(pages):
    report = lint_sources(frame(*pages), SCHEMA)
    assert report.declares_nothing and report.pages == len(pages) and report.prefix == "@wisp"
    assert report.exit_status() == 0 and report.exit_status(strict=True) == 1


def test_one_directive_anywhere_is_not_declaring_nothing():
    report = lint_sources(frame(("a", "1.0", "prose\n"), ("b", "1.0", "@wisp client mode=fast\n")), SCHEMA)
    assert not report.declares_nothing and report.pages == 2
    bad = lint_sources(frame(("a", "1.0", "@wisp client mode=slow\n")), SCHEMA)  # a problem is not "nothing"
    assert not bad.declares_nothing and bad.exit_status() == 1


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["fast", "safe", None, "bad"]), min_size=1, max_size=5))
def test_property_lint_counts_every_bad_line_and_conflicts_exactly_when_values_differ(values):
    pages = []
    for n, value in enumerate(values):
        text = "prose\n" if value is None else f"@wisp client mode={'Bad' if value == 'bad' else value}\n"
        pages.append((f"p{n}", "1.0", text))
    report = lint_sources(frame(*pages), SCHEMA)
    assert len(report.problems) == values.count("bad")
    declared = {v for v in values if v in ("fast", "safe")}
    assert report.conflicts == (1 if len(declared) > 1 else 0)
    assert report.gaps == (1 if declared and None in values else 0)
