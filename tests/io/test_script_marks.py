"""A number raised or lowered by markup reads as the number the page shows: ``10<sup>6</sup>`` is ``10^6``.

Rules: docs/documents.md, "Superscripts and subscripts in markup"; the marks are the normalizer's
(docs/audit-rules.md, "Numbers": ``10⁶`` and ``10^6`` are one token, never ``106``).
"""

from __future__ import annotations

import pytest
from claimgate.io.html_text import html_visible_text
from claimgate.io.markdown_text import markdown_visible_text
from claimgate.io.rst_text import rst_visible_text
from claimgate.io.visible_text import script_mark
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import audited_folder


@given(st.text(alphabet="0123456789+-\u2212 a[]", max_size=6))
def test_only_a_number_is_marked_a_superscript_may_carry_a_sign(content: str) -> None:
    digits = content.lstrip("+-\u2212")
    number = bool(digits) and digits.isdigit() and len(content) - len(digits) <= 1
    assert script_mark("sup", content) == ("^" if number else "")
    assert script_mark("sub", content) == ("_" if content and content.isdigit() else "")
    assert script_mark("em", content) == ""


HTML_CASES = [
    ("<p>The limit is 10<sup>6</sup> requests.</p>", "The limit is 10^6 requests.\n"),
    ("<p>Water is H<SUB>2</SUB>O and 2<sup class='x'>-3</sup> is small.</p>", "Water is H_2O and 2^-3 is small.\n"),
    ("<p>The 1<sup>st</sup> item, a note<sup>[1]</sup>, x<sup>n</sup>.</p>", "The 1st item, a note[1], xn.\n"),
    ("<p>Spaced 10<sup> 6 </sup> stays, unclosed 10<sup>6 here</p>", "Spaced 10 6  stays, unclosed 106 here\n"),
]


@pytest.mark.parametrize(("markup", "text"), HTML_CASES)
def test_html_marks_a_raised_or_lowered_number(markup: str, text: str) -> None:
    assert html_visible_text(markup) == text


def test_markdown_marks_inline_and_block_html_and_maps_the_mark_to_no_character() -> None:
    raw = "The limit is 10<sup>6</sup> requests, H<sub>2</sub>O, the 1<sup>st</sup>.\n\n<p>Block 10<sup>9</sup>.</p>\n"
    page = markdown_visible_text(raw)
    assert page.text == "The limit is 10^6 requests, H_2O, the 1st.\nBlock 10^9. \n"
    at = page.text.index("^")
    assert page.starts[at] == page.ends[at] == raw.index("6</sup>")  # the file holds no ``^``
    start, end = page.raw_span(page.text.index("10^6"), page.text.index("10^6") + 4)
    assert raw[start:end] == "10<sup>6"


def test_rst_marks_the_sup_and_sub_roles() -> None:
    raw = "The limit is 10\\ :sup:`6` requests and H\\ :sub:`2`\\ O, the 1\\ :sup:`st` one.\n"
    assert rst_visible_text(raw).text == "The limit is 10^6 requests and H_2O, the 1st one.\n"


def test_a_changed_number_quoted_from_markup_is_refused_and_the_shown_one_found(tmp_path, capsys) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Each client may send 10<sup>6</sup> requests per day to the gateway.\n")
    (docs / "b.rst").write_text("Each client may send 10\\ :sup:`6` requests per day to the gateway.\n")
    (docs / "c.html").write_text("<p>Cooling loops carry H<sub>2</sub>O through the rack.</p>")
    quotes = {"a1": ("a.md", "send 10^6 requests per day"), "a2": ("a.md", "send 10⁶ requests per day"),
              "a3": ("a.md", "send 106 requests per day"), "b1": ("b.rst", "send 10⁶ requests per day"),
              "b3": ("b.rst", "send 106 requests per day"), "c1": ("c.html", "loops carry H₂O through"),
              "c3": ("c.html", "loops carry H2O through")}  # fmt: skip
    got = audited_folder(capsys, tmp_path, docs, quotes)
    assert {c: r["verdict"] for c, r in got.items()} == {
        "a1": "found", "a2": "found", "a3": "not_found", "b1": "found", "b3": "not_found", "c1": "found",
        "c3": "not_found",
    }  # fmt: skip
    assert got["a2"]["spans"][0]["text"] == "send 10<sup>6</sup> requests per day"
    assert got["b1"]["spans"][0]["text"] == "send 10\\ :sup:`6` requests per day"
