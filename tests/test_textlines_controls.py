"""``textlines.visible_controls``: what a picture's label shows of a control character (docs: README, review pages)."""

from __future__ import annotations

import unicodedata

from claimgate.textlines import SHOWN_CATEGORIES, visible_controls
from hypothesis import given
from hypothesis import strategies as st


@given(st.text())
def test_no_shown_character_but_tab_and_newline_survives_and_every_other_character_is_kept(text):
    shown = visible_controls(text)
    assert not [ch for ch in shown if unicodedata.category(ch) in SHOWN_CATEGORIES and ch not in "\t\n"]
    kept = [ch for ch in text if unicodedata.category(ch) not in SHOWN_CATEGORIES or ch in "\t\n"]
    assert [ch for ch in shown if ch not in "⟨⟩U+0123456789ABCDEF"] == [
        ch for ch in kept if ch not in "⟨⟩U+0123456789ABCDEF"
    ]


def test_a_bidi_override_is_a_tag_and_plain_text_is_unchanged():
    assert visible_controls("evil\u202ecase") == "evil⟨U+202E⟩case"
    assert visible_controls("tab\tand\nnewline é") == "tab\tand\nnewline é"
