"""A MyST directive comment line (``% @…``, the gate's ``myst_comment`` form) is hidden in a rendered
Markdown page, as ``<!-- @… -->`` is (docs/documents.md, "Rendered Markdown and reStructuredText").

Before, such a line was visible text: an honest quote that ran across it was refused, and the directive's
own words could be quoted as if a reader saw them.
"""

from __future__ import annotations

from claimgate.io.markdown_text import markdown_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st

from .rendered_pages import assert_only_markup_between, audit_page

MYST_PAGE = """\
# Pools

The pool keeps ten
% @acme pool.idle value=10
idle connections open until it is closed.

% @acme pool.size value=4
Every pool holds at most four connections.

% of all runs, most finish in a second.
"""


def test_myst_directive_line_inside_a_paragraph_is_hidden_and_reported_as_elided(tmp_path):
    quote = "The pool keeps ten idle connections open until it is closed"
    (row,) = audit_page(tmp_path, "pools.md", MYST_PAGE, [quote])
    assert row["verdict"] == "found"
    (span,) = row["spans"]
    assert_only_markup_between(MYST_PAGE, span, quote)
    assert [(e["kind"], e["text"]) for e in span["elided"]] == [("directive", "% @acme pool.idle value=10")]
    assert (span["start_line"], span["end_line"]) == (3, 5)


def test_myst_directive_words_are_not_visible_text(tmp_path):
    rows = audit_page(tmp_path, "pools.md", MYST_PAGE, ["acme pool.size value=4", "pool.idle value=10 idle"])
    assert [r["verdict"] for r in rows] == ["not_found", "not_found"]
    assert "@acme" not in markdown_visible_text(MYST_PAGE).text


def test_a_percent_line_that_holds_no_directive_stays_visible(tmp_path):
    (row,) = audit_page(tmp_path, "pools.md", MYST_PAGE, ["% of all runs, most finish in a second"])
    assert row["verdict"] == "found"


def test_myst_directive_line_ends_its_paragraph_as_in_myst():
    assert "The pool keeps ten\nidle connections" in markdown_visible_text(MYST_PAGE).text


def test_myst_directive_line_in_a_crlf_file_maps_back_to_its_own_offsets():
    raw = "Keep [ten](x.md) idle\r\n% @acme pool.idle value=10\r\nconnections open.\r\n"
    visible = markdown_visible_text(raw)
    a, b = visible.raw_span(visible.text.index("ten"), visible.text.index("open") + 4)
    assert raw[a:b] == "ten](x.md) idle\r\n% @acme pool.idle value=10\r\nconnections open"
    assert [(raw[s:e], kind) for s, e, kind in visible.hidden if kind == "directive"] == [
        ("% @acme pool.idle value=10", "directive")
    ]


LINE = st.lists(st.sampled_from(["pool", "keeps", "ten", "idle", "open", "`x`", "**all**", "[a](b.md)"]), min_size=1)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(LINE, st.booleans()), min_size=1, max_size=8), st.sampled_from(["\n", "\r\n"]))
def test_property_a_directive_line_reads_as_an_empty_line(lines, newline):
    """Whatever the page, a ``% @…`` line shows exactly as an empty line would: nothing, and a paragraph break."""
    with_directives = newline.join(" ".join(words) + (newline + "% @acme k v=1" if d else "") for words, d in lines)
    emptied = with_directives.replace("% @acme k v=1", "")
    assert markdown_visible_text(with_directives + newline).text == markdown_visible_text(emptied + newline).text
