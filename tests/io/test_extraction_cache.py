"""Extracted text cached with the index (``io.extraction_cache``): warm runs parse no page again."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import numpy as np
import pytest
from claimgate.api import Audit
from claimgate.io import documents, extraction_cache
from claimgate.io.documents import read_document_folder
from claimgate.io.visible_text import PdfPages
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..api.pdfs import tiny_pdf

PAGES = {
    "guide.md": "# Guide\n\nUse sensible [limits](config.md) on every pool.\n",
    "ref.rst": "Ref\n===\n\nCall :meth:`~pool.Pool.close` when the pool is done.\n",
    "page.html": "<p>Uploads &amp; downloads are limited per minute.</p>",
    "notes.txt": "Plain notes stay as written.\n",
}


@pytest.fixture
def site(tmp_path):
    folder = tmp_path / "docs"
    folder.mkdir()
    for name, text in PAGES.items():
        (folder / name).write_text(text, encoding="utf-8")
    (folder / "manual.pdf").write_bytes(tiny_pdf([["Retries stop after three attempts."]]))
    return folder


@pytest.fixture
def calls(monkeypatch):
    """Counts each extractor's calls (the parsers a warm run must not need)."""
    counted = {"markdown": 0, "rst": 0, "html": 0, "pdf": 0}

    def counting(name, function):
        def wrapper(*args, **kwargs):
            counted[name] += 1
            return function(*args, **kwargs)

        return wrapper

    monkeypatch.setitem(
        documents.RENDERED_EXTRACTORS, "markdown", counting("markdown", documents.markdown_visible_text)
    )
    monkeypatch.setitem(documents.RENDERED_EXTRACTORS, "rst", counting("rst", documents.rst_visible_text))
    monkeypatch.setattr(documents, "html_visible_text", counting("html", documents.html_visible_text))
    monkeypatch.setattr(documents, "pdf_text_and_pages", counting("pdf", documents.pdf_text_and_pages))
    return counted


def _frame_values(frame):
    maps = [m if m is None or isinstance(m, PdfPages) else (m.text, list(m.starts), list(m.ends), m.hidden)
            for m in frame["source_map"]]  # fmt: skip
    return frame[["doc_id", "extractor", "text"]].values.tolist(), maps


def test_a_warm_read_parses_no_page_and_gives_the_same_texts_and_maps(site, tmp_path, calls):
    cache = tmp_path / "cache"
    cold = read_document_folder(site, cache_dir=cache)
    assert calls == {"markdown": 1, "rst": 1, "html": 1, "pdf": 1}
    warm = read_document_folder(site, cache_dir=cache)
    assert calls == {"markdown": 1, "rst": 1, "html": 1, "pdf": 1}  # nothing parsed again
    assert _frame_values(warm) == _frame_values(cold) == _frame_values(read_document_folder(site))


def test_an_edited_page_is_extracted_again(site, tmp_path, calls):
    cache = tmp_path / "cache"
    read_document_folder(site, cache_dir=cache)
    (site / "guide.md").write_text("# Guide\n\nUse *strict* limits on every pool.\n", encoding="utf-8")
    frame = read_document_folder(site, cache_dir=cache)
    assert calls["markdown"] == 2 and calls["rst"] == 1
    assert "Use strict limits on every pool." in dict(zip(frame["doc_id"], frame["text"]))["guide.md"]


def test_a_new_extractor_version_is_another_key(site, tmp_path, calls, monkeypatch):
    cache = tmp_path / "cache"
    read_document_folder(site, cache_dir=cache)
    monkeypatch.setitem(extraction_cache.EXTRACTOR_VERSIONS, "rst", ("rst-test-next", "docutils"))
    read_document_folder(site, cache_dir=cache)
    assert calls["rst"] == 2 and calls["markdown"] == 1


def test_a_damaged_entry_is_extracted_again_and_rewritten(site, tmp_path, calls):
    cache = tmp_path / "cache"
    read_document_folder(site, cache_dir=cache)
    raw = (site / "ref.rst").read_bytes()
    key = extraction_cache.entry_key(raw, "rst")
    (cache / "extracted" / f"{key}.npy").write_bytes(b"\x93NUMPY broken")
    frame = read_document_folder(site, cache_dir=cache)
    assert calls["rst"] == 2
    assert "Call close() when the pool is done." in dict(zip(frame["doc_id"], frame["text"]))["ref.rst"]
    assert np.load(cache / "extracted" / f"{key}.npy", allow_pickle=False).shape[0] == 2


def test_an_entry_is_plain_json_and_npy_never_pickle(site, tmp_path):
    cache = tmp_path / "cache"
    read_document_folder(site, cache_dir=cache)
    entries = sorted(p.suffix for p in (cache / "extracted").iterdir())
    assert entries == [".json"] * 4 + [".npy"] * 2  # html, pdf, markdown, rst; maps for the rendered two
    for path in (cache / "extracted").glob("*.json"):
        assert json.loads(path.read_text(encoding="utf-8"))["key"] == path.stem


def test_an_entry_under_another_key_is_not_taken(site, tmp_path, calls):
    cache = tmp_path / "cache"
    read_document_folder(site, cache_dir=cache)
    folder = cache / "extracted"
    md_key = extraction_cache.entry_key((site / "guide.md").read_bytes(), "markdown")
    html_key = extraction_cache.entry_key((site / "page.html").read_bytes(), "html")
    (folder / f"{html_key}.json").write_bytes((folder / f"{md_key}.json").read_bytes())  # a planted entry
    frame = read_document_folder(site, cache_dir=cache)
    assert calls["html"] == 2
    assert dict(zip(frame["doc_id"], frame["text"]))["page.html"] == "Uploads & downloads are limited per minute.\n"


def test_audit_from_corpus_with_a_cache_reads_pages_once(site, tmp_path, calls):
    cache = tmp_path / "cache"
    quote = [{"citation_id": "c", "doc_id": "guide.md", "quote": "sensible limits on every pool"}]
    first = Audit.from_corpus(site, cache=cache).check(quote)
    second = Audit.from_corpus(site, cache=cache).check(quote)
    assert calls["markdown"] == 1
    assert first["spans"].tolist() == second["spans"].tolist()
    assert second.loc[0, "spans"][0]["text"] == "sensible [limits](config.md) on every pool"


# ------------------------------------------------------------------ HTML pages: a warm run extracts nothing


_HTML_PARTS = st.sampled_from(
    ["<p>", "</p>", "<div>", "</div>", "<br>", "<script>var a = '<p>x</p>';</script>", "<style>p{}</style>",
     "<nav>Home | Next</nav>", "<main>", "</main>", "<h1>", "</h1>", "&amp;", "&lt;", "&#x41;", "&nbsp;", "<!-- c -->",
     "<pre>  kept\n  lines</pre>", "<a href='x'>", "</a>", "<li>", "<table><tr><td>a</td><td>b</td></tr></table>",
     "not ", "don't ", "rate [4] rose", "well-\nknown", "é", "人", "\n", " ", "word"]
)  # fmt: skip


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    pages=st.lists(st.lists(_HTML_PARTS, max_size=25).map("".join), min_size=1, max_size=4), main_content=st.booleans()
)
def test_cached_html_extraction_equals_a_fresh_one_and_a_warm_read_extracts_nothing(pages, main_content, calls):
    with tempfile.TemporaryDirectory() as tmp:
        folder, cache = Path(tmp) / "site", Path(tmp) / "cache"
        folder.mkdir()
        for i, page in enumerate(pages):
            (folder / f"p{i}.html").write_text(page, encoding="utf-8")
        fresh = read_document_folder(folder, html_main_content=main_content)
        read_document_folder(folder, cache_dir=cache, html_main_content=main_content)
        extracted = calls["html"]
        warm = read_document_folder(folder, cache_dir=cache, html_main_content=main_content)
        assert calls["html"] == extracted  # nothing extracted again
        assert _frame_values(warm) == _frame_values(fresh)


def test_a_warm_read_of_many_html_pages_extracts_none_and_the_main_content_mode_has_its_own_entries(tmp_path, calls):
    site = tmp_path / "site"
    site.mkdir()
    for i in range(30):
        (site / f"page{i:02d}.html").write_text(
            f"<nav>Menu</nav><main><h1>Page {i}</h1><p>Text of page {i} &amp; more.</p></main>", encoding="utf-8"
        )
    cache = tmp_path / "cache"
    full = read_document_folder(site, cache_dir=cache)
    main = read_document_folder(site, cache_dir=cache, html_main_content=True)
    assert calls["html"] == 60  # each mode extracted once
    assert _frame_values(read_document_folder(site, cache_dir=cache)) == _frame_values(full)
    assert _frame_values(read_document_folder(site, cache_dir=cache, html_main_content=True)) == _frame_values(main)
    assert calls["html"] == 60  # the warm reads of both modes extracted nothing
    assert "Menu" in full["text"][0] and "Menu" not in main["text"][0]


def test_a_refreshed_folder_audit_extracts_only_the_edited_page(site, tmp_path, calls):
    cache = tmp_path / "cache"
    audit = Audit.from_corpus(site, cache=cache)
    (site / "page.html").write_text("<p>Uploads are limited per hour now.</p>", encoding="utf-8")
    assert audit.refresh()["changed"] == ["page.html"]
    assert calls == {"markdown": 1, "rst": 1, "html": 2, "pdf": 1}
    quote = [{"citation_id": "c", "doc_id": "page.html", "quote": "uploads are limited per hour"}]
    assert audit.check(quote)["gate_verdict"][0] == "found"


def test_entries_are_private_and_a_left_over_temporary_is_never_read(site, tmp_path, calls):
    cache = tmp_path / "cache"
    cold = read_document_folder(site, cache_dir=cache)
    folder = cache / "extracted"
    assert {oct(p.stat().st_mode & 0o777) for p in folder.iterdir()} == {"0o600"}
    assert oct(folder.stat().st_mode & 0o777) == oct(cache.stat().st_mode & 0o777) == "0o700"
    key = extraction_cache.entry_key((site / "page.html").read_bytes(), "html")
    planted = json.dumps({"key": key, "text": "planted"})
    (folder / f".{key}.json.abc123.tmp").write_text(planted, encoding="utf-8")
    warm = read_document_folder(site, cache_dir=cache)  # a killed run's temporary is not an entry
    assert _frame_values(warm) == _frame_values(cold)
    assert calls["html"] == 1
