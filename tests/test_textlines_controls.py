"""``textlines.visible_controls``: what a picture's label shows of a control character (docs: README, review pages)."""

from __future__ import annotations

import unicodedata

from claimgate.textlines import SHOWN_CATEGORIES, visible_controls
from hypothesis import given
from hypothesis import strategies as st


@given(st.text())
def test_no_shown_character_survives_in_a_title_and_every_other_character_is_kept(text):
    shown = visible_controls(text)
    assert not [ch for ch in shown if unicodedata.category(ch) in SHOWN_CATEGORIES]  # tab and newline too
    kept = [ch for ch in text if unicodedata.category(ch) not in SHOWN_CATEGORIES]
    assert [ch for ch in shown if ch not in "⟨⟩U+0123456789ABCDEF"] == [
        ch for ch in kept if ch not in "⟨⟩U+0123456789ABCDEF"
    ]


def test_a_bidi_override_is_a_tag_and_plain_text_is_unchanged():
    assert visible_controls("evil\u202ecase") == "evil⟨U+202E⟩case"
    assert visible_controls("plain é, ü and 字") == "plain é, ü and 字"
    assert visible_controls("tab\tand\nnewline") == "tab⟨U+0009⟩and⟨U+000A⟩newline"  # a title is one line
