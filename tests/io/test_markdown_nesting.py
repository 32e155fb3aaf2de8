"""Deeply nested Markdown (``io.markdown_text``): read whole up to ``MAX_MARKDOWN_NESTING`` block levels,
refused as ``document_too_deep`` from there, never read in part."""

from __future__ import annotations

import pytest
from claimgate.errors import IngestionError
from claimgate.io.documents import read_document_folder
from claimgate.io.markdown_text import MAX_MARKDOWN_NESTING, markdown_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st

from .rendered_pages import audit_page, words

TAIL = "\nHonest sentence for the audit that is here.\n"


def bullets(depth: int) -> str:
    return "".join("  " * i + "- item\n" for i in range(depth))


def ordered(depth: int) -> str:
    return "".join("   " * i + "1. step\n" for i in range(depth))


def quotes(depth: int) -> str:
    return "> " * depth + "quoted words\n"


def mixed(depth: int) -> str:
    """A block quote holding a list item holding a block quote…, ``depth`` containers in all."""
    prefix, lines = "", []
    for i in range(depth):
        prefix += "> " if i % 2 == 0 else "- "
        lines.append(prefix + f"w{i}")
        prefix = prefix.replace("- ", "  ")
    return "\n".join(lines) + "\n"


READ_WHOLE = [
    ("bullets_9", bullets(9)),
    ("bullets_10", bullets(10)),
    ("bullets_40", bullets(40)),
    ("bullets_63", bullets(63)),
    ("ordered_12", ordered(12)),
    ("quotes_25", quotes(25)),
    ("quotes_127", quotes(127)),
    ("mixed_30", mixed(30)),
    ("list_in_quotes", "> " * 15 + "- a\n" + "> " * 15 + "  - b\n" + "> " * 15 + "    - c\n"),
]


@pytest.mark.parametrize(("name", "page"), READ_WHOLE, ids=[n for n, _ in READ_WHOLE])
def test_markdown_nested_within_the_limit_is_read_whole(name, page):
    visible = markdown_visible_text(page + TAIL)
    assert words(visible.text) == [w for w in words(page + TAIL) if w != "1"]  # an enumerator is markup
    assert visible.text.endswith("Honest sentence for the audit that is here.\n")


def test_markdown_ten_lists_deep_keeps_every_item_and_the_paragraph_after():
    visible = markdown_visible_text(bullets(10) + TAIL)
    assert visible.text == "item\n" * 10 + "Honest sentence for the audit that is here.\n"


REFUSED = [
    ("bullets_64", bullets(64)),
    ("bullets_100", bullets(100)),
    ("ordered_70", ordered(70)),
    ("quotes_128", quotes(128)),
    ("quotes_400", quotes(400)),
    ("mixed_90", mixed(90)),
    ("footnote_quotes", "Text[^1].\n\n[^1]: " + "> " * 130 + "deep\n"),
]


@pytest.mark.parametrize(("name", "page"), REFUSED, ids=[n for n, _ in REFUSED])
def test_markdown_nested_past_the_limit_is_refused_document_too_deep(name, page):
    with pytest.raises(IngestionError) as refused:
        markdown_visible_text(page + TAIL)
    assert refused.value.reason == "document_too_deep"
    assert str(MAX_MARKDOWN_NESTING) in refused.value.detail


def test_markdown_too_deep_page_in_a_folder_is_refused_naming_the_document(tmp_path):
    (tmp_path / "ok.md").write_text("Fine page.\n", encoding="utf-8")
    (tmp_path / "deep.md").write_text(bullets(80) + TAIL, encoding="utf-8")
    with pytest.raises(IngestionError) as refused:
        read_document_folder(tmp_path)
    assert refused.value.reason == "document_too_deep" and refused.value.detail.startswith("deep.md: ")


def test_markdown_ten_lists_deep_quote_after_the_lists_is_found(tmp_path):
    (row,) = audit_page(tmp_path, "deep.md", bullets(10) + TAIL, ["Honest sentence for the audit that is here"])
    assert row["verdict"] == "found"
    assert row["spans"][0]["text"] == "Honest sentence for the audit that is here"


# --------------------------------------------------------------------------- generated pages

_WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=6)
_CONTAINER = st.sampled_from(["> ", "- ", "1. ", "* "])


@st.composite
def nested_pages(draw):
    """Lines each opening a random run of containers (quotes, bullets, numbered items) over the previous
    line's, some deep enough to cross the limit, each line ending with words, then a closing paragraph."""
    lines, open_ = [], []
    for _ in range(draw(st.integers(1, 6))):
        opened = draw(st.lists(_CONTAINER, min_size=0, max_size=draw(st.sampled_from([3, 20, 70]))))
        if draw(st.booleans()):
            open_ = []
        # the containers still open continue: a quote by its ``>``, a list item by its content's indent
        prefix = "".join(c if c == "> " else " " * len(c) for c in open_)
        lines.append(prefix + "".join(opened) + " ".join(draw(st.lists(_WORD, min_size=1, max_size=4))))
        open_ = open_ + opened
    return "\n".join(lines) + "\n\n" + " ".join(draw(st.lists(_WORD, min_size=1, max_size=4))) + "\n"


@settings(max_examples=120, deadline=None)
@given(nested_pages())
def test_markdown_property_every_word_of_a_nested_page_is_visible_or_the_page_is_refused(page):
    try:
        visible = markdown_visible_text(page)
    except IngestionError as refused:
        assert refused.reason == "document_too_deep"
        return
    assert sorted(w for w in words(visible.text) if w != "1") == sorted(w for w in words(page) if w != "1")
