"""Folders of pages as an audit corpus (``io.documents``): ids, extractors, visible HTML text, refusals."""

from __future__ import annotations

import html
import json
import os
import sys

import pytest
from claimgate.errors import IngestionError
from claimgate.io.documents import document_paths, html_visible_text, pdf_text, read_document_folder
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import cli
from .pdfs import tiny_pdf


def write(folder, relative: str, data: bytes | str) -> None:
    path = folder / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))


@pytest.fixture
def pages(tmp_path):
    """A folder with one page of every supported kind, in nested folders."""
    folder = tmp_path / "docs"
    write(folder, "1.4.0/guide.md", "# Guide\n\nCopies are refused when the destination path exists.\n")
    write(folder, "notes.txt", "\ufeffThe cache is flushed on close.\n")
    write(folder, "ref/api.rst", "API\n===\n\nThe buffer holds 64 pages.\n")
    write(
        folder,
        "ref/page.html",
        "<html><head><title>Hidden title</title><style>p { color: red }</style></head><body>"
        "<h1>Limits &amp; quotas</h1><p>At most&nbsp;10 uploads\n   per minute.</p>"
        "<script>var secret = 'never shown';</script><ul><li>first item</li><li>second item</li></ul></body></html>",
    )
    write(folder, "manual.pdf", tiny_pdf([["Retries stop after three attempts."], ["Page two text."]]))
    return folder


def test_doc_ids_are_relative_paths_with_slashes_in_sorted_order(pages):
    frame = read_document_folder(pages)
    assert frame["doc_id"].tolist() == ["1.4.0/guide.md", "manual.pdf", "notes.txt", "ref/api.rst", "ref/page.html"]
    assert list(frame.columns) == ["doc_id", "path", "extractor", "text", "source_map"]
    assert dict(zip(frame["doc_id"], frame["extractor"])) == {
        "1.4.0/guide.md": "markdown",
        "manual.pdf": "pdf",
        "notes.txt": "text",
        "ref/api.rst": "rst",
        "ref/page.html": "html",
    }


def test_text_pages_are_taken_as_written_without_byte_order_mark(pages):
    texts = dict(zip(*read_document_folder(pages)[["doc_id", "text"]].to_dict("list").values()))
    assert texts["notes.txt"] == "The cache is flushed on close.\n"
    assert texts["1.4.0/guide.md"] == "Guide\nCopies are refused when the destination path exists.\n"  # rendered


def test_html_page_gives_visible_text_only(pages):
    texts = dict(zip(*read_document_folder(pages)[["doc_id", "text"]].to_dict("list").values()))
    assert texts["ref/page.html"] == "Limits & quotas\nAt most 10 uploads per minute.\nfirst item\nsecond item\n"


def test_pdf_pages_are_extracted_in_order(pages):
    texts = dict(zip(*read_document_folder(pages)[["doc_id", "text"]].to_dict("list").values()))
    assert texts["manual.pdf"] == "Retries stop after three attempts.\nPage two text.\n"


def test_glob_selects_files(pages):
    assert read_document_folder(pages, "**/*.md")["doc_id"].tolist() == ["1.4.0/guide.md"]
    assert [d for d, _ in document_paths(pages, "*.txt")] == ["notes.txt"]


def test_hidden_files_and_folders_are_skipped(pages):
    write(pages, ".DS_Store", b"\x00\x01binary")
    write(pages, ".git/config", "[core]\n")
    assert ".DS_Store" not in read_document_folder(pages)["doc_id"].tolist()
    assert all(not d.startswith(".") for d in read_document_folder(pages)["doc_id"])


def test_a_file_with_no_extractor_is_skipped_and_counted_not_read(pages):
    write(pages, "img/logo.png", b"\x89PNG\r\n")
    write(pages, "CNAME", b"docs.example.org\n")
    frame = read_document_folder(pages)
    assert "img/logo.png" not in frame["doc_id"].tolist()
    assert frame.attrs["skipped"] == ["CNAME", "img/logo.png"]


def test_a_folder_of_files_with_no_extractor_is_refused_not_an_empty_corpus(tmp_path):
    write(tmp_path, "logo.png", b"\x89PNG\r\n")
    with pytest.raises(IngestionError) as caught:
        read_document_folder(tmp_path)
    assert caught.value.reason == "invalid_corpus" and "has an extractor" in caught.value.detail


def test_non_utf8_page_is_unreadable_naming_it_and_the_byte(pages):
    write(pages, "latin.md", "caf\xe9".encode("latin-1"))
    with pytest.raises(IngestionError) as caught:
        read_document_folder(pages)
    assert (caught.value.reason, caught.value.detail) == ("unreadable_document", "latin.md: not UTF-8 at byte 3")


def test_broken_pdf_is_unreadable_naming_it(pages, capsys):
    write(pages, "broken.pdf", b"%PDF-1.4\nnot really a pdf")
    with pytest.raises(IngestionError) as caught:
        read_document_folder(pages)
    assert caught.value.reason == "unreadable_document"
    assert caught.value.detail.startswith("broken.pdf: not a readable PDF")
    assert capsys.readouterr().err == ""  # pypdf's repair warnings are not printed


def test_pdf_without_the_extra_is_unsupported(monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf now raises ImportError
    with pytest.raises(IngestionError) as caught:
        pdf_text(tiny_pdf([["text"]]), "guide.pdf")
    assert caught.value.reason == "unsupported_document"
    assert "claimgate[pdf]" in caught.value.detail and caught.value.detail.startswith("guide.pdf: ")


def test_too_large_page_is_refused(pages):
    with pytest.raises(IngestionError) as caught:
        read_document_folder(pages, "**/*.md", max_document_bytes=10)
    assert caught.value.reason == "document_too_large"
    assert caught.value.detail.startswith("1.4.0/guide.md: ")


def test_glob_matching_nothing_is_refused_not_an_empty_corpus(pages):
    with pytest.raises(IngestionError) as caught:
        read_document_folder(pages, "**/*.adoc")
    assert caught.value.reason == "invalid_corpus"


def test_missing_folder_is_refused(tmp_path):
    with pytest.raises(IngestionError) as caught:
        read_document_folder(tmp_path / "absent")
    assert caught.value.reason == "invalid_corpus"


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_symlink_leaving_the_folder_is_refused(pages, tmp_path):
    secret = tmp_path / "secret.md"
    secret.write_text("private\n", encoding="utf-8")
    (pages / "leak.md").symlink_to(secret)
    with pytest.raises(IngestionError) as caught:
        read_document_folder(pages)
    assert (caught.value.reason, caught.value.detail.split(" ")[0]) == ("path_outside_root", "leak.md")


# --------------------------------------------------------------------------- visible HTML text


def test_html_entities_are_decoded():
    assert html_visible_text("<p>a &lt;= b &amp;&amp; c &#8805; d &eacute;</p>") == "a <= b && c ≥ d é\n"


def test_html_script_style_template_and_comments_are_dropped():
    markup = "<p>kept</p><script>x()</script><style>.a{}</style><template>t</template><!-- note --><p>too</p>"
    assert html_visible_text(markup) == "kept\ntoo\n"


def test_html_block_elements_and_br_end_lines_inline_elements_do_not():
    markup = (
        "<div>one <b>bold</b> <a href='#'>link</a></div><table><tr><td>cell a</td><td>cell b</td></tr></table>x<br>y"
    )
    assert html_visible_text(markup) == "one bold link\ncell a\ncell b\nx\ny\n"


def test_html_pre_keeps_its_line_breaks():
    assert html_visible_text("<pre>def f():\n    return 1</pre>") == "def f():\nreturn 1\n"


def test_html_without_visible_text_is_empty():
    assert html_visible_text("<html><head><title>only a title</title></head><body>  </body></html>") == ""


@given(
    st.lists(st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "S")), min_size=1), max_size=6)
)
def test_escaped_paragraphs_come_back_one_line_each(paragraphs):
    """Any text escaped into ``<p>`` elements is read back exactly, one paragraph per line."""
    markup = "".join(f"<p>{html.escape(p)}</p>" for p in paragraphs)
    assert html_visible_text(markup) == "".join(f"{p}\n" for p in paragraphs)


# --------------------------------------------------------------------------- the audit command


def test_audit_command_reads_a_folder_and_records_extractors(pages, tmp_path, capsys):
    citations = tmp_path / "citations.jsonl"
    rows = [
        {"citation_id": "md", "doc_id": "1.4.0/guide.md", "quote": "refused when the destination path"},
        {"citation_id": "html", "doc_id": "ref/page.html", "quote": "at most 10 uploads per minute"},
        {"citation_id": "wrong", "doc_id": "notes.txt", "quote": "Retries stop after three attempts"},
        {"citation_id": "script", "doc_id": "ref/page.html", "quote": "var secret never shown"},
    ]
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    output = tmp_path / "out" / "audit.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(pages), "--citations", str(citations), "--output", str(output)
    )
    assert (code, err) == (0, "")
    got = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [(r["citation_id"], r["verdict"]) for r in got] == [
        ("md", "found"),
        ("html", "found"),
        ("wrong", "misattributed"),
        ("script", "not_found"),
    ]
    assert got[1]["extractors"] == {"ref/page.html": "html"}
    assert got[2]["extractors"] == {"notes.txt": "text", "manual.pdf": "pdf"}
    span = got[1]["spans"][0]
    html_text = html_visible_text((pages / "ref/page.html").read_text(encoding="utf-8"))
    assert html_text[span["start"] : span["end"]] == span["text"] == "At most 10 uploads per minute"


def test_audit_command_skips_files_with_no_extractor_and_counts_them(pages, tmp_path, capsys):
    write(pages, "data.xlsx", b"PK\x03\x04")
    write(pages, "Makefile", b"html:\n\tsphinx-build . _build\n")
    citations = tmp_path / "c.jsonl"
    citations.write_text('{"citation_id": "a", "doc_id": "notes.txt", "quote": "the cache is flushed"}\n')
    output = tmp_path / "a.jsonl"
    args = ("audit", "--corpus-dir", str(pages), "--citations", str(citations), "--output", str(output))
    code, _, err = cli(capsys, *args)
    assert code == 0 and err == "skipped 2 file(s) of --corpus-dir with no extractor\n"
    code, _, err = cli(capsys, *args, "--verbose")
    assert code == 0 and err.splitlines() == [
        "skipped 2 file(s) of --corpus-dir with no extractor",
        "  skipped Makefile",
        "  skipped data.xlsx",
    ]


def test_audit_command_refuses_an_unreadable_page_and_writes_nothing(pages, tmp_path, capsys):
    write(pages, "broken.md", b"caf\xe9")
    citations = tmp_path / "c.jsonl"
    citations.write_text('{"citation_id": "a", "doc_id": "notes.txt", "quote": "the cache is flushed"}\n')
    output = tmp_path / "a.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(pages), "--citations", str(citations), "--output", str(output)
    )
    assert code == 3
    assert err.startswith("error: IngestionError: unreadable_document: broken.md: ")
    assert err.count("\n") == 1
    assert not output.exists()


def test_glob_without_corpus_dir_is_a_usage_error(tmp_path, capsys):
    code, _, err = cli(
        capsys, "audit", "--corpus", "c.json", "--glob", "*.md", "--citations", "c.jsonl", "--output", "o.jsonl"
    )
    assert code == 2 and "--glob, --exclude and --html-main-content need --corpus-dir" in err


@pytest.mark.parametrize("inside", ["1.4.0/out.csv", "out.jsonl", "new/sub/out.json"])
def test_audit_output_inside_the_corpus_dir_is_a_usage_error_before_any_work(pages, tmp_path, capsys, inside):
    citations = tmp_path / "c.jsonl"
    citations.write_text('{"citation_id": "a", "doc_id": "notes.txt", "quote": "the cache is flushed"}\n')
    before = sorted(p.relative_to(pages) for p in pages.rglob("*"))
    code, out, err = cli(
        capsys, "audit", "--corpus-dir", str(pages), "--citations", str(citations), "--output", str(pages / inside)
    )
    assert code == 2 and out == ""
    assert "error: cannot write " in err and "it is inside the --corpus-dir folder" in err
    assert sorted(p.relative_to(pages) for p in pages.rglob("*")) == before  # nothing written, no folder made


def test_audit_output_reached_through_a_symlink_into_the_corpus_dir_is_refused(pages, tmp_path, capsys):
    (tmp_path / "link").symlink_to(pages / "ref")
    citations = tmp_path / "c.jsonl"
    citations.write_text('{"citation_id": "a", "doc_id": "notes.txt", "quote": "the cache is flushed"}\n')
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(pages), "--citations", str(citations),
        "--output", str(tmp_path / "link" / "out.jsonl"),
    )  # fmt: skip
    assert code == 2 and "inside the --corpus-dir folder" in err
    assert not (pages / "ref" / "out.jsonl").exists()


def test_audit_output_beside_the_corpus_dir_with_a_shared_name_prefix_is_allowed(pages, tmp_path, capsys):
    citations = tmp_path / "c.jsonl"
    citations.write_text('{"citation_id": "a", "doc_id": "notes.txt", "quote": "the cache is flushed"}\n')
    output = tmp_path / "docs-results" / "out.jsonl"  # "docs-results" starts like "docs" but is not inside it
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(pages), "--citations", str(citations), "--output", str(output)
    )
    assert (code, err) == (0, "")
    assert output.exists()
