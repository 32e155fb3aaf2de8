"""Backslashes in reStructuredText (``io.rst_text``): docutils unescapes prose only, literal text keeps its
backslashes as written, and neither shifts the span of any later quote on the page."""

from __future__ import annotations

import re

import pytest
from claimgate.io.markdown_text import markdown_visible_text
from claimgate.io.rst_text import rst_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st

from .rendered_pages import assert_only_markup_between, audit_page, without_hidden, words

LATER = "Cookies are returned in a jar which acts like a dict"


def _raw_of(visible, quote: str) -> str:
    at = visible.text.index(quote)
    a, b = visible.raw_span(at, at + len(quote))
    return visible.raw[a:b]


def _each_char_is_itself(visible) -> None:
    """Every visible character but white space is that character in the file, or its backslash escape
    (these pages add no character, as a function role's ``()``, so none may be left unplaced)."""
    for i, char in enumerate(visible.text):
        piece = visible.raw[visible.starts[i] : visible.ends[i]]
        if not char.isspace():
            assert piece == char or piece == "\\" + char, (i, char, piece)


LITERAL_PAGES = {
    "code_block_windows_path": ".. code-block:: bat\n\n    set P=C:\\\\Users\\\\me\\\\app\n\n",
    "literal_block_escaped_newlines": 'A literal block::\n\n    "a\\\\nb\\\\n"\n\n',
    "doctest_block": ">>> print('a\\\\tb\\\\\\\\c')\na\\tb\\\\c\n\n",
    "inline_literal": "Set ``C:\\\\x`` and ``\\n`` and ``\\\\`` first.\n\n",
    "code_directive_single_backslashes": ".. code:: python\n\n   re.compile(r'\\d+\\s\\\\')\n\n",
    "parsed_literal": ".. parsed-literal::\n\n   path C:\\\\temp and \\*star\\*\n\n",
    "sourcecode_in_a_list": "* item\n\n  .. sourcecode:: text\n\n     \\\\server\\share\\\\\n\n",
}


@pytest.mark.parametrize("name", sorted(LITERAL_PAGES))
def test_rst_backslash_in_literal_text_does_not_shift_a_later_quote(name):
    page = LITERAL_PAGES[name] + LATER + " here.\n"
    visible = rst_visible_text(page)
    assert _raw_of(visible, LATER) == LATER
    _each_char_is_itself(visible)


def test_rst_code_block_backslashes_are_shown_and_placed_as_written():
    page = LITERAL_PAGES["code_block_windows_path"] + LATER + " here.\n"
    visible = rst_visible_text(page)
    assert "set P=C:\\\\Users\\\\me\\\\app" in visible.text
    assert _raw_of(visible, "C:\\\\Users\\\\me") == "C:\\\\Users\\\\me"


def test_rst_inline_literal_backslashes_are_placed_in_the_literal():
    page = "Set ``C:\\\\x`` now, then ``a\\b`` later on.\n"
    visible = rst_visible_text(page)
    assert visible.text == "Set C:\\\\x now, then a\\b later on.\n"
    assert _raw_of(visible, "C:\\\\x now") == "C:\\\\x`` now"
    assert _raw_of(visible, "a\\b later on") == "a\\b`` later on"


@pytest.mark.parametrize(
    ("prose", "shown", "quote", "raw"),
    [
        ("An \\*asterisk\\* stays.", "An *asterisk* stays.", "*asterisk* stays", "\\*asterisk\\* stays"),
        ("A \\`tick\\` stays.", "A `tick` stays.", "`tick` stays", "\\`tick\\` stays"),
        ("One back\\\\slash here.", "One back\\slash here.", "back\\slash here", "back\\\\slash here"),
        ("Glued\\ together words.", "Gluedtogether words.", "Gluedtogether words", "Glued\\ together words"),
        ("*emph*\\ s and more.", "emphs and more.", "emphs and more", "emph*\\ s and more"),
    ],
)
def test_rst_escapes_in_prose_map_to_the_escape_as_written(prose, shown, quote, raw):
    page = prose + "\n\n" + LATER + " here.\n"
    visible = rst_visible_text(page)
    assert visible.text.startswith(shown + "\n")
    assert _raw_of(visible, quote) == raw
    assert _raw_of(visible, LATER) == LATER
    _each_char_is_itself(visible)


def test_rst_backslash_in_code_block_quote_audit_span_is_the_quoted_words(tmp_path):
    page = LITERAL_PAGES["code_block_windows_path"] + LATER + " here.\n"
    (row,) = audit_page(tmp_path, "p.rst", page, [LATER])
    assert row["verdict"] == "found"
    assert row["spans"][0]["text"] == LATER
    assert_only_markup_between(page, row["spans"][0], LATER)


def test_markdown_code_span_backslashes_are_placed_as_written():
    page = "Set `C:\\\\x` now, and `a\\*b` too.\n"
    visible = markdown_visible_text(page)
    assert visible.text == "Set C:\\\\x now, and a\\*b too.\n"
    _each_char_is_itself(visible)
    assert _raw_of(visible, "C:\\\\x now") == "C:\\\\x` now"


# --------------------------------------------------------------------------- generated pages

_WORD = st.text(alphabet="defghijklm", min_size=1, max_size=6)
_CODE_PIECE = st.sampled_from(["\\\\", "\\", "\\n", "\\*", "\\`", "C:\\x", "a\\\\b", "x", "="])
_PROSE_MARKUP = st.sampled_from(
    ["{}", "*{}*", "``{}``", "\\*{}", "{}\\*", "``\\\\{}``", "``\\{}\\\\``", "\\\\ {}", "``{}\\``", "{}\\ "]
)


@st.composite
def _rst_pages(draw):
    """Prose paragraphs (words in markup, escapes among them) and literal blocks full of backslashes."""
    blocks, prose = [], []
    for _ in range(draw(st.integers(1, 5))):
        kind = draw(st.sampled_from(["prose", "code-block", "literal", "doctest", "code"]))
        if kind == "prose":
            ws = draw(st.lists(_WORD, min_size=1, max_size=6))
            blocks.append(" ".join(draw(_PROSE_MARKUP).format(w) for w in ws))
            prose.append(ws)
            continue
        line = "".join(draw(st.lists(_CODE_PIECE, min_size=1, max_size=8)))
        if kind == "code-block":
            blocks.append(".. code-block:: text\n\n    " + line)
        elif kind == "code":
            blocks.append(".. code:: text\n\n   " + line)
        elif kind == "literal":
            blocks.append("Block::\n\n    " + line)
        else:
            blocks.append(">>> " + line)
    return "\n\n".join(blocks) + "\n", prose


@settings(max_examples=150, deadline=None)
@given(_rst_pages(), st.data())
def test_rst_property_backslashes_never_misplace_a_character_or_a_later_quote(page, data):
    raw, prose = page
    visible = rst_visible_text(raw)
    _each_char_is_itself(visible)
    if not prose:
        return
    ws = data.draw(st.sampled_from(prose))
    i = data.draw(st.integers(0, len(ws) - 1))
    j = data.draw(st.integers(i, len(ws) - 1))
    # the paragraph's words in the visible text, in order: find this run of them
    pattern = r"[^\w]*".join(re.escape(w) for w in ws[i : j + 1])
    found = [m for m in re.finditer(pattern, visible.text) if words(m.group()) == ws[i : j + 1]]
    assert found, (visible.text, ws)
    a, b = visible.raw_span(found[0].start(), found[0].end())
    kept = without_hidden(raw, a, b, visible.hidden_within(a, b))
    assert words(kept) == ws[i : j + 1], (raw[a:b], ws[i : j + 1])
