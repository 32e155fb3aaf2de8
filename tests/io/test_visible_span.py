"""``VisibleText.visible_span``: raw characters back to the visible characters they show (``io.visible_text``)."""

from __future__ import annotations

from claimgate.io.markdown_text import markdown_visible_text
from claimgate.io.rst_text import rst_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st

PAGE = "Keep it [sensible](t.md): the *pool* keeps `ten` idle[^1] connections.\n\n[^1]: Per worker.\n"


def test_visible_span_of_a_raw_span_gives_back_the_visible_words():
    visible = markdown_visible_text(PAGE)
    start = visible.text.index("sensible")
    end = visible.text.index("connections") + len("connections")
    assert visible.visible_span(*visible.raw_span(start, end)) == (start, end)


def test_visible_span_of_markup_only_is_empty_where_the_next_visible_character_is():
    visible = markdown_visible_text(PAGE)
    target = PAGE.index("(t.md)")
    at = visible.text.index(":")
    assert visible.visible_span(target, target + len("(t.md)")) == (at, at)


def test_visible_span_past_the_end_is_the_text_length():
    visible = rst_visible_text("Call :meth:`~pool.Pool.close` now.\n")
    assert visible.visible_span(len(visible.raw) + 5, len(visible.raw) + 9) == (len(visible.text),) * 2


WORDS = st.sampled_from(["pool", "*keeps*", "`ten`", "[idle](x.md)", "**open**", "<em>until</em>", "closed"])


@settings(max_examples=60, deadline=None)
@given(st.lists(WORDS, min_size=3, max_size=10), st.data())
def test_property_visible_span_inverts_raw_span_on_word_boundaries(words, data):
    visible = markdown_visible_text(" ".join(words) + "\n")
    bounds = [i for i, c in enumerate(visible.text) if c.isalpha() and (i == 0 or not visible.text[i - 1].isalpha())]
    start = data.draw(st.sampled_from(bounds))
    end = visible.text.index(" ", start) if " " in visible.text[start:] else len(visible.text.rstrip("\n"))
    assert visible.visible_span(*visible.raw_span(start, end)) == (start, end)
