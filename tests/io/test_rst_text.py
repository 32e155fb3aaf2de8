"""Rendered reStructuredText (``io.rst_text``): read as Sphinx shows it, spans slice the file as written."""

from __future__ import annotations

import pytest
from claimgate.io.rst_text import role_display, rst_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st

from .rendered_pages import assert_only_markup_between, audit_page, without_hidden, words

POOL_PAGE = """\
Connection pools
================

Call :meth:`~pool.Pool.close` when the pool is done; a ratio of :data:`0.5` keeps
half the slots warm, and :class:`pool.Pool` reads :ref:`the tuning guide <tuning>`
before it starts [#]_ and stops.

.. @claim pool.idle version=">=1.2"

Idle ``connections`` are closed after
ten minutes, see `the docs <https://example.org/docs>`_ for details.

.. note::

   Limits apply *per* worker process.

.. code-block:: python

   pool = Pool(size=4, timeout=2.5)

.. this comment is not shown

+-------------+----------------------------+
| Option      | Meaning                    |
+=============+============================+
| ``timeout`` | seconds to wait before     |
|             | giving up on a connection  |
+-------------+----------------------------+

.. versionadded:: 2.0
   The :func:`pool.drain` helper waits for every borrower.

A literal block::

    pool.drain(timeout=10)

.. [#] Each worker keeps its own pool.
"""

QUOTES = [
    "Call close() when the pool is done",  # 0 ~ keeps the last component, a method role adds ()
    "a ratio of 0.5 keeps half the slots warm",  # 1 a data role shows its target
    "pool.Pool reads the tuning guide before it starts and stops",  # 2 class role, ref with a title, footnote marker
    "Idle connections are closed after ten minutes, see the docs for details",  # 3 literal, link text
    "Limits apply per worker process",  # 4 a directive's content
    "pool = Pool(size=4, timeout=2.5)",  # 5 a code block
    "seconds to wait before giving up on a connection",  # 6 a grid table cell over two lines
    "The pool.drain() helper waits for every borrower",  # 7 versionadded content, function role
    "pool.drain(timeout=10)",  # 8 a literal block
    "Each worker keeps its own pool",  # 9 a footnote body
    "Call :meth:`~pool.Pool.close` when the pool is done",  # 10 raw markup is not what a reader sees
    "this comment is not shown",  # 11 comments are not visible
]


@pytest.fixture
def rows(tmp_path):
    return audit_page(tmp_path, "pools.rst", POOL_PAGE, QUOTES)


def test_rst_page_quotes_of_the_rendered_text_are_found(rows):
    assert [r["verdict"] for r in rows[:10]] == ["found"] * 10


def test_rst_spans_slice_the_file_as_written_with_only_markup_between(rows):
    for row in rows[:10]:
        (span,) = row["spans"]
        assert_only_markup_between(POOL_PAGE, span, QUOTES[int(row["citation_id"][1:])])


def test_rst_method_role_span_holds_the_role_as_written(rows):
    span = rows[0]["spans"][0]
    assert span["text"] == "Call :meth:`~pool.Pool.close` when the pool is done"
    assert [(e["kind"], e["text"]) for e in span["elided"]] == [("role", ":meth:`~pool.Pool.")]


def test_rst_footnote_marker_and_ref_target_are_reported_as_elided(rows):
    kinds = [(e["kind"], e["text"]) for e in rows[2]["spans"][0]["elided"]]
    assert ("footnote_ref", "[#]_") in kinds and ("role", " <tuning>") in kinds


def test_rst_raw_markup_and_comments_are_not_found(rows):
    assert rows[10]["verdict"] != "found" and rows[11]["verdict"] != "found"


def test_rst_lines_are_one_based_in_the_raw_file(rows):
    span = rows[6]["spans"][0]
    lines = POOL_PAGE.splitlines()
    assert "seconds to wait before" in lines[span["start_line"] - 1]
    assert "giving up on a connection" in lines[span["end_line"] - 1]
    assert span["end_line"] == span["start_line"] + 1


def test_rst_directive_comment_is_hidden_as_a_directive():
    visible = rst_visible_text(POOL_PAGE)
    hidden = [(kind, POOL_PAGE[a:b]) for a, b, kind in visible.hidden]
    assert ("directive", '.. @claim pool.idle version=">=1.2"') in hidden
    assert ("comment", ".. this comment is not shown") in hidden
    assert "@claim" not in visible.text and "tuning>" not in visible.text and "https://" not in visible.text


def test_rst_directive_comment_inside_a_quote_is_reported_as_elided(tmp_path):
    page = "The pool keeps\n\n.. @claim pool.keep\n\nten idle connections open.\n"
    (row,) = audit_page(tmp_path, "keep.rst", page, ["The pool keeps ten idle connections open"])
    assert row["verdict"] == "found"
    assert [(e["kind"], e["text"]) for e in row["spans"][0]["elided"]] == [("directive", ".. @claim pool.keep")]


@pytest.mark.parametrize(
    ("role", "text", "shown"),
    [
        ("meth", "~pool.Pool.close", "close()"),
        ("func", "pool.open", "pool.open()"),
        ("py:func", "~pool.open", "open()"),
        ("func", "make(size)", "make(size)"),
        ("meth", "closing it <pool.Pool.close>", "closing it"),
        ("class", "~pool.Pool", "Pool"),
        ("data", "0.5", "0.5"),
        ("attr", "!pool.size", "pool.size"),
        ("ref", "tuning", "tuning"),
        ("doc", "the guide <guide/index>", "the guide"),
    ],
)
def test_rst_sphinx_roles_read_the_way_sphinx_shows_them(role, text, shown):
    core, suffix = role_display(role, text)
    assert core + suffix == shown


def test_rst_unknown_role_and_directive_print_nothing_and_raise_nothing(capsys):
    visible = rst_visible_text("Text with :unknownrole:`x` here.\n\n.. unknowndirective:: y\n\nAfter it.\n")
    assert "After it." in visible.text
    assert capsys.readouterr() == ("", "")


@pytest.mark.parametrize(
    ("written", "shown"),
    [
        (":variable:`CMAKE_MINIMUM_REQUIRED_VERSION`", "CMAKE_MINIMUM_REQUIRED_VERSION"),
        (":prop_tgt:`FRAMEWORK`", "FRAMEWORK"),
        (":cmake:command:`add_library <add_library>`", "add_library"),
        (":confval:`~pkg.opt.depth`", "depth"),
    ],
)
def test_rst_unknown_role_shows_its_text_as_a_text_role_does_its_name_hidden(written, shown):
    # docs/documents.md, "Rendered Markdown and reStructuredText": a domain's or extension's role is shown
    raw = f"Set {written} before the call.\n"
    visible = rst_visible_text(raw)
    assert visible.text == f"Set {shown} before the call.\n"
    at = visible.text.index(shown)
    start, end = visible.raw_span(at, at + len(shown))
    assert raw[start:end] == shown and any(kind == "role" for _, _, kind in visible.hidden)


def test_rst_include_directive_reads_no_file(tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret words", encoding="utf-8")
    visible = rst_visible_text(f".. include:: {secret}\n\nVisible.\n")
    assert "secret" not in visible.text and "Visible." in visible.text


_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=8)
_MARKUP = st.sampled_from(["{}", "*{}*", "**{}**", "``{}``", "`{} <https://x.org/{}>`_", ":class:`{}`", "{} [#]_"])


@st.composite
def rst_pages(draw):
    """Paragraphs and bullet items whose words are wrapped in random inline markup, and a footnote."""
    blocks, shown = [], []
    for _ in range(draw(st.integers(1, 4))):
        ws = draw(st.lists(_WORDS, min_size=1, max_size=8))
        pieces = [draw(_MARKUP).format(w, w) for w in ws]
        blocks.append(("* " if draw(st.booleans()) else "") + " ".join(pieces))
        shown.append(ws)
    return "\n\n".join(blocks) + "\n\n.. [#] fn\n", shown


@settings(max_examples=100, deadline=None)
@given(rst_pages(), st.data())
def test_rst_property_any_run_of_visible_words_slices_the_raw_file_with_only_markup_between(page, data):
    import re

    raw, shown = page
    visible = rst_visible_text(raw)
    expected = [w for ws in shown for w in ws]
    assert words(visible.text)[: len(expected)] == expected
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\W_]+", visible.text)][: len(expected)]
    i = data.draw(st.integers(0, len(spans) - 1))
    j = data.draw(st.integers(i, len(spans) - 1))
    a, b = visible.raw_span(spans[i][0], spans[j][1])
    assert words(without_hidden(raw, a, b, visible.hidden_within(a, b))) == expected[i : j + 1]


# ----------------------------------------------------------------------------- long lines


@pytest.mark.parametrize("length", [10_000, 10_001, 40_000])
@pytest.mark.parametrize("where", ["paragraph", "url", "literal"])
def test_a_line_longer_than_docutils_limit_does_not_empty_the_page(length, where):
    long = {
        "paragraph": ("word " * (length // 5 + 1))[:length].strip(),
        "url": "See https://example.org/" + "q" * length + " for it.",
        "literal": "::\n\n    " + "x" * length,
    }[where]
    raw = f"Title\n=====\n\nThe signature is appended to the string.\n\n{long}\n\nLast words here.\n"
    text = rst_visible_text(raw).text
    assert "The signature is appended to the string." in text and "Last words here." in text
    assert max(len(line) for line in text.splitlines()) >= length - 8  # the long line itself is read


@settings(max_examples=25, deadline=None)
@given(st.integers(min_value=1, max_value=30_000), st.sampled_from(["y", "ab ", "Zz9 "]))
def test_every_line_length_is_read_whole(length, unit):
    line = (unit * (length // len(unit) + 1))[:length].strip() or "y"
    raw = f"Head line.\n\n{line}\n"
    visible = rst_visible_text(raw)
    assert line in visible.text
    start = visible.text.index(line)
    assert raw[visible.starts[start] : visible.ends[start + len(line) - 1]] == line
