"""Hostile HTML (``io.documents.html_visible_text``): crafted pages parse in time linear in their size."""

from __future__ import annotations

import json
import time

import pytest
from claimgate.errors import IngestionError
from claimgate.io.documents import MAX_HTML_DEPTH, html_visible_text, read_document_folder

from ..helpers import cli

#: Crafted pages of ``n`` repetitions, each a shape that is slow for some parser or tree builder.
CRAFTED = {
    "open_anchor_tags": lambda n: "<a " * n,  # 138 s for 40,000 through html.parser
    "unclosed_tags": lambda n: "<p><b>x</b>" * n,
    "unclosed_table_cells": lambda n: "<table>" + "<tr><td>x" * n,
    "deep_nesting_refused": lambda n: "<div><span>" * n,
    "comment_flood": lambda n: "<!-- note -->" * n + "<p>end</p>",
    "entity_flood": lambda n: "&amp;&#8805;&eacute;&nbsp;&#99999999;&bogus;" * n,
    "attribute_flood": lambda n: "<p " + " ".join(f"a{i}=x" for i in range(n)) + ">t</p>",  # lxml trees: quadratic
    "stray_end_tags_at_the_depth_bound": lambda n: "<span>" * (MAX_HTML_DEPTH - 10) + "</x>" * (n // 8),
    "less_than_flood": lambda n: "a <" * n,
}
N = 20_000


def best_seconds(page: str, runs: int = 3) -> float:
    best = float("inf")
    for _ in range(runs):
        start = time.perf_counter()
        try:
            html_visible_text(page)
        except IngestionError as exc:  # refused at the depth bound, as soon as it is reached
            assert exc.reason == "document_too_deep"
        best = min(best, time.perf_counter() - start)
    return best


@pytest.mark.parametrize("kind", sorted(CRAFTED))
def test_quadratic_html_parsing_is_linear_in_page_size(kind):
    """Four times the page takes about four times as long (a quadratic parser: sixteen), and little at all."""
    small, large = CRAFTED[kind](N), CRAFTED[kind](4 * N)
    small_seconds, large_seconds = best_seconds(small), best_seconds(large)
    # Linear is 4x; allow 8x for a shared machine, over a floor of 20 ms against timer noise.
    assert large_seconds < 8 * max(small_seconds, 0.02), (kind, small_seconds, large_seconds)
    assert large_seconds < 2.0, (kind, len(large), large_seconds)


def test_ordinary_page_text_is_unchanged_by_the_parser():
    """A page in the shape of a generated docs page reads as the html.parser walk read it (lines, entities, pre)."""
    page = (
        '<?xml version="1.0" encoding="UTF-8"?><!DOCTYPE html><html lang="en"><head><meta charset="latin-1">'
        "<title>Pools</title><script>var x = '<p>no</p>';</script></head><body>"
        '<nav><ul><li><a href="a.html">Intro</a></li><li><a href="b.html">Pools</a></li></ul></nav>'
        "<main><h1 id='p'>Pools &amp; limits<a class='anchor' href='#p'>¶</a></h1>"
        "<p>A pool holds <code>max_size</code>\n   connections; see <em>limits</em>.<br>Caf&eacute; &mdash; ok</p>"
        "<pre><code>pool = Pool(\n    max_size=4)\n</code></pre><!-- generated -->"
        "<table><thead><tr><th>name</th><th>default</th></tr></thead><tr><td>max_size</td><td>10</td></tr></table>"
        "<p>unclosed paragraph<p>and another<div>block</div>tail text</main></body></html>"
    )
    assert html_visible_text(page) == (
        "Intro\nPools\nPools & limits¶\nA pool holds max_size connections; see limits.\nCafé — ok\n"
        "pool = Pool(\nmax_size=4)\nname\ndefault\nmax_size\n10\nunclosed paragraph\nand another\nblock\n"
        "tail text\n"
    )


def test_html_split_text_collapses_white_space_as_one_run():
    """Text libxml2 hands over in several pieces (around character references) collapses as one text node."""
    assert html_visible_text("<p>a \n&amp;\n b &lt;  \n c</p>") == "a & b < c\n"


def test_html_nested_deeper_than_the_bound_is_refused_naming_the_page(tmp_path):
    (tmp_path / "deep.html").write_text("<span>" * (MAX_HTML_DEPTH + 1) + "x", encoding="utf-8")
    with pytest.raises(IngestionError) as caught:
        read_document_folder(tmp_path)
    assert (caught.value.reason, caught.value.detail) == (
        "document_too_deep",
        f"deep.html: HTML nested deeper than {MAX_HTML_DEPTH} elements",
    )


def test_recursion_in_deeply_nested_html_is_read(capsys, tmp_path):
    """1,000 nested inline elements overflowed the recursive walk (a traceback, exit 1); now the page is read."""
    folder = tmp_path / "docs"
    folder.mkdir()
    page = "<p>before</p>" + "<span>" * 1000 + "the deepest words here" + "</span>" * 1000 + "<p>after</p>"
    (folder / "deep.html").write_text(page, encoding="utf-8")
    assert html_visible_text(page) == "before\nthe deepest words here\nafter\n"
    citations = tmp_path / "citations.jsonl"
    citations.write_text(json.dumps({"citation_id": "a", "doc_id": "deep.html", "quote": "the deepest words here"}))
    output = tmp_path / "out.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(folder), "--citations", str(citations), "--output", str(output)
    )
    assert (code, err) == (0, "")
    assert json.loads(output.read_text(encoding="utf-8"))["verdict"] == "found"
