"""MyST roles in Markdown pages (``io.markdown_text`` with ``io.sphinx_roles``): read as Sphinx shows them,
exactly as the reStructuredText page's roles are, spans slicing the file as written."""

from __future__ import annotations

import re

import pytest
from claimgate.io.markdown_text import markdown_visible_text
from claimgate.io.rst_text import rst_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st

from .rendered_pages import assert_only_markup_between, audit_page, without_hidden, words


@pytest.mark.parametrize(
    ("role", "text", "shown", "hidden"),
    [
        ("func", "format_filename", "format_filename()", ["{func}`"]),
        ("ref", "virtualenv-heading", "virtualenv-heading", ["{ref}`"]),
        ("class", "~pkg.Mod", "Mod", ["{class}`~pkg."]),
        ("meth", "~pool.Pool.close", "close()", ["{meth}`~pool.Pool."]),
        ("py:func", "make(size)", "make(size)", ["{py:func}`"]),
        ("ref", "the tuning guide <tuning>", "the tuning guide", ["{ref}`", " <tuning>"]),
        ("attr", "!pool.size", "pool.size", ["{attr}`!"]),
        ("doc", "guide/index", "guide/index", ["{doc}`"]),
    ],
)
def test_myst_role_shows_what_sphinx_shows_and_hides_the_rest(role, text, shown, hidden):
    raw = f"Call {{{role}}}`{text}` now.\n"
    visible = markdown_visible_text(raw)
    assert visible.text == f"Call {shown} now.\n"
    assert [raw[a:b] for a, b, kind in visible.hidden if kind == "role"] == hidden


@pytest.mark.parametrize(
    ("role", "text"),
    [("func", "format_filename"), ("class", "~pkg.Mod"), ("ref", "a title <t>"), ("meth", "~a.B.c"), ("data", "5")],
)
def test_myst_role_reads_as_the_same_role_in_restructuredtext(role, text):
    md = markdown_visible_text(f"See {{{role}}}`{text}` here.\n").text
    rst = rst_visible_text(f"See :{role}:`{text}` here.\n").text
    assert md == rst


def test_myst_roles_of_the_trial_are_found_with_spans_in_the_file(tmp_path):
    page = (
        "Flask builds names with {func}`format_filename`; see {ref}`virtualenv-heading`\n"
        "for setup, and {class}`~pkg.Mod` for the module.\n"
    )
    quotes = [
        "Flask builds names with format_filename(); see virtualenv-heading for setup",
        "and Mod for the module",
    ]
    rows = audit_page(tmp_path, "roles.md", page, quotes)
    assert [r["verdict"] for r in rows] == ["found", "found"]
    for row, quote in zip(rows, quotes):
        assert_only_markup_between(page, row["spans"][0], quote)
    assert [(e["kind"], e["text"]) for e in rows[1]["spans"][0]["elided"]] == [("role", "{class}`~pkg.")]


def test_myst_role_raw_markup_is_not_what_a_reader_sees(tmp_path):
    (row,) = audit_page(tmp_path, "r.md", "Use {func}`format_filename` here.\n", ["Use {func}`format_filename` here"])
    assert row["verdict"] != "found"


def test_braces_before_inline_code_that_are_no_role_name_stay_visible():
    visible = markdown_visible_text("A set {1, 2} and `code` and {x y}`z`.\n")
    assert visible.text == "A set {1, 2} and code and {x y}z.\n"


# --------------------------------------------------------------------------- generated pages

_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_ROLE = st.sampled_from(["{}", "{{func}}`{}`", "{{class}}`~x.{}`", "{{ref}}`{} <t>`", "{{doc}}`{}`", "**{}**"])


@settings(max_examples=100, deadline=None)
@given(st.lists(st.lists(_WORDS, min_size=1, max_size=8), min_size=1, max_size=3), st.data())
def test_myst_property_any_run_of_visible_words_slices_the_raw_file_with_only_markup_between(paragraphs, data):
    raw = "\n\n".join(" ".join(data.draw(_ROLE).format(w) for w in ws) for ws in paragraphs) + "\n"
    visible = markdown_visible_text(raw)
    expected = [w for ws in paragraphs for w in ws]
    assert words(visible.text) == expected
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\W_]+", visible.text)]
    i = data.draw(st.integers(0, len(spans) - 1))
    j = data.draw(st.integers(i, len(spans) - 1))
    a, b = visible.raw_span(spans[i][0], spans[j][1])
    assert words(without_hidden(raw, a, b, visible.hidden_within(a, b))) == expected[i : j + 1]
