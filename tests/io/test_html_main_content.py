"""HTML main-content mode (``io.html_text``): navigation chrome is not evidence when asked."""

from __future__ import annotations

import json

from claimgate.api import Audit
from claimgate.io.documents import read_document_folder
from claimgate.io.html_text import html_visible_text

from ..helpers import cli

# A page shaped like a generated book's: a banner with a search hint, a sidebar, ARIA navigation, an
# article with its own header and footer, an aside inside the article, and the site footer.
BOOK_PAGE = """<!DOCTYPE html><html><head><title>Pools</title></head><body>
<header class="menu-bar"><h1 class="menu-title">The Pool Book</h1>
  <div id="help">Press S or / to search in the book</div></header>
<nav class="sidebar"><ol><li><a href="intro.html">Introduction</a></li><li>Pools</li></ol></nav>
<div role="navigation" class="nav-wrapper"><a rel="prev" href="intro.html">Previous chapter</a></div>
<div class="search-box" role="search">Search results appear here</div>
<main><article>
  <header><h1>Connection pools</h1></header>
  <p>The pool keeps ten idle connections open.</p>
  <aside>Tip: read the tuning chapter first.</aside>
  <footer>Last edited by the pool team</footer>
</article></main>
<footer role="contentinfo">Copyright 2026 the pool authors</footer>
</body></html>"""


def test_main_content_mode_drops_nav_aside_page_header_footer_and_aria_navigation():
    text = html_visible_text(BOOK_PAGE, main_content=True)
    assert text == "Connection pools\nThe pool keeps ten idle connections open.\nLast edited by the pool team\n"


def test_default_mode_still_reads_every_visible_element():
    text = html_visible_text(BOOK_PAGE)
    for shown in ("Press S or / to search", "Introduction", "Previous chapter", "Tip: read the tuning", "Copyright"):
        assert shown in text


def test_an_articles_own_header_and_footer_stay_in_main_content_mode():
    page = "<body><section><header><h2>Limits</h2></header><p>At most ten.</p><footer>See also.</footer></section>"
    assert html_visible_text(page, main_content=True) == "Limits\nAt most ten.\nSee also.\n"


def test_aria_roles_are_read_case_insensitively_and_among_several():
    page = '<body><div role="Region NAVIGATION">skip me</div><p>keep me</p><span role="banner">top</span></body>'
    assert html_visible_text(page, main_content=True) == "keep me\n"


def test_chrome_nested_deep_is_dropped_without_recursion():
    page = "<body>" + "<div>" * 900 + "<nav>menu</nav><p>deep content</p>" + "</div>" * 900 + "</body>"
    assert html_visible_text(page, main_content=True) == "deep content\n"


def test_navigation_chrome_is_not_evidence_in_main_content_mode(tmp_path, capsys):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "pools.html").write_text(BOOK_PAGE, encoding="utf-8")
    citations = tmp_path / "c.jsonl"
    rows = [
        {"citation_id": "chrome", "doc_id": "pools.html", "quote": "Press S or / to search in the book"},
        {"citation_id": "content", "doc_id": "pools.html", "quote": "The pool keeps ten idle connections open"},
    ]
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    verdicts = {}
    for flag in ((), ("--html-main-content",)):
        output = tmp_path / f"out{len(flag)}.jsonl"
        args = ("audit", "--corpus-dir", str(tmp_path / "docs"), *flag, "--citations", str(citations))
        code, _, _ = cli(capsys, *args, "--output", str(output), "--quiet")
        assert code == 0
        verdicts[flag] = [json.loads(line)["verdict"] for line in output.read_text(encoding="utf-8").splitlines()]
    assert verdicts[()] == ["found", "found"]
    assert verdicts[("--html-main-content",)] == ["not_found", "found"]


def test_main_content_mode_through_the_api_and_the_folder_reader(tmp_path):
    (tmp_path / "pools.html").write_text(BOOK_PAGE, encoding="utf-8")
    frame = read_document_folder(tmp_path, html_main_content=True)
    assert "Press S" not in frame.loc[0, "text"]
    audit = Audit.from_corpus(tmp_path, html_main_content=True)
    assert "Copyright" not in audit.documents["pools.html"]


def test_main_content_mode_has_its_own_cache_entries(tmp_path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "pools.html").write_text(BOOK_PAGE, encoding="utf-8")
    cache = tmp_path / "cache"
    full = read_document_folder(tmp_path / "docs", cache_dir=cache).loc[0, "text"]
    main = read_document_folder(tmp_path / "docs", cache_dir=cache, html_main_content=True).loc[0, "text"]
    assert "Press S" in full and "Press S" not in main
    assert read_document_folder(tmp_path / "docs", cache_dir=cache).loc[0, "text"] == full
