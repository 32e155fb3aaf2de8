"""Struck-through text is not what a page says: it is left out of the visible text, hidden as ``deleted``.

Rules: docs/documents.md, "Struck-through text".
"""

from __future__ import annotations

import pytest
from claimgate.io.html_text import html_visible_text
from claimgate.io.markdown_text import markdown_visible_text

from ..helpers import audited_folder


@pytest.mark.parametrize(
    ("raw", "text", "struck"),
    [
        ("The key is ~~not~~ required.\n", "The key is  required.\n", ["~~not~~"]),
        ("Wait <del>30</del> 60 s, <s>old</s> new, <STRIKE>x</STRIKE>.\n", "Wait  60 s,  new, .\n",
         ["<del>30</del>", "<s>old</s>", "<STRIKE>x</STRIKE>"]),
        ("A ~~[link](https://x.org) and `code`~~ gone.\n", "A  gone.\n", ["~~[link](https://x.org) and `code`~~"]),
        ("<p>Block with <del>removed</del> kept text.</p>\n", "Block with kept text. \n", ["<del>removed</del>"]),
    ],
)  # fmt: skip
def test_markdown_hides_struck_text_with_its_markup(raw: str, text: str, struck: list[str]) -> None:
    page = markdown_visible_text(raw)
    assert page.text == text
    assert [raw[a:b] for a, b, kind in page.hidden if kind == "deleted"] == struck


def test_html_leaves_del_s_and_strike_out_and_keeps_ins() -> None:
    markup = "<p>The timeout is <del>30</del> 60 seconds, <s>x</s><strike>y</strike> <ins>new</ins>.</p>"
    assert html_visible_text(markup) == "The timeout is  60 seconds,  new.\n"  # (the normalizer folds the spaces)


def test_a_quote_of_struck_text_as_said_is_refused_and_the_page_as_it_stands_found(tmp_path, capsys) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    page = "The retry key is ~~not~~ required for every upload.\n\nThe timeout is <del>30</del> 60 seconds.\n"
    (docs / "a.md").write_text(page)
    (docs / "b.html").write_text("<p>Uploads are <s>never</s> retried after a failed checksum.</p>")
    quotes = {"a1": ("a.md", "The retry key is required for every upload"),
              "a2": ("a.md", "The retry key is not required for every upload"),
              "a3": ("a.md", "The timeout is 60 seconds"), "a4": ("a.md", "The timeout is 30 60 seconds"),
              "b1": ("b.html", "Uploads are retried after a failed checksum"),
              "b2": ("b.html", "Uploads are never retried after a failed checksum")}  # fmt: skip
    got = audited_folder(capsys, tmp_path, docs, quotes)
    assert {c: r["verdict"] for c, r in got.items()} == {
        "a1": "found", "a2": "not_found", "a3": "found", "a4": "not_found", "b1": "found", "b2": "not_found",
    }  # fmt: skip
    span = got["a1"]["spans"][0]
    assert span["text"] == "The retry key is ~~not~~ required for every upload"
    assert [(e["kind"], e["text"]) for e in span["elided"]] == [("deleted", "~~not~~")]  # the reviewer sees it
