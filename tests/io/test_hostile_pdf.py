"""Hostile PDFs (``io.pdf_text``): refused in one line, exit 3, never a traceback or a long run."""

from __future__ import annotations

import json
import time

import pytest
from claimgate.errors import IngestionError
from claimgate.io import pdf_text as pdf_reader
from claimgate.io.documents import MAX_PDF_PAGE_CHARS, MAX_PDF_PAGES, pdf_text, read_document_folder

from ..api.pdfs import raw_pdf, tiny_pdf
from ..helpers import cli

pytest.importorskip("pypdf")

CATALOG = "<< /Type /Catalog /Pages 2 0 R >>"
PAGE = "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>"
FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>"


def one_page_pdf(content: str) -> bytes:
    """A PDF of one page whose content stream is ``content``."""
    stream = f"<< /Length {len(content)} >>\nstream\n{content}\nendstream"
    return raw_pdf([CATALOG, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", PAGE, stream, FONT])


def audit_folder(capsys, tmp_path, folder) -> tuple[int, str, str]:
    citations = tmp_path / "citations.jsonl"
    citations.write_text(json.dumps({"citation_id": "a", "doc_id": "x", "quote": "hello there"}) + "\n")
    output = tmp_path / "out.jsonl"
    code, out, err = cli(
        capsys, "audit", "--corpus-dir", str(folder), "--citations", str(citations), "--output", str(output)
    )
    assert not output.exists()  # nothing partial
    return code, out, err


def test_recursion_in_a_deeply_nested_pdf_is_refused_in_one_line(capsys, tmp_path):
    """500 nested arrays in a content stream made pypdf recurse past the limit: a traceback and exit 1."""
    folder = tmp_path / "docs"
    folder.mkdir()
    content = "BT /F1 12 Tf 72 720 Td (hello there) Tj ET " + "[" * 500 + "]" * 500 + " pop"
    (folder / "deep.pdf").write_bytes(one_page_pdf(content))
    with pytest.raises(IngestionError) as caught:
        read_document_folder(folder)
    assert (caught.value.reason, caught.value.detail) == (
        "document_too_deep",
        "deep.pdf: the PDF nests objects too deeply to read",
    )
    code, _, err = audit_folder(capsys, tmp_path, folder)
    assert code == 3
    assert err == "error: IngestionError: document_too_deep: deep.pdf: the PDF nests objects too deeply to read\n"


def pdf_listing_page_times(listings: int) -> bytes:
    """A PDF of one page whose page tree lists that page ``listings`` times (about 6 bytes a listing)."""
    kids = " ".join(["3 0 R"] * listings)
    stream = "<< /Length 31 >>\nstream\nBT /F1 12 Tf (hello there) Tj ET\nendstream"
    return raw_pdf([CATALOG, f"<< /Type /Pages /Kids [{kids}] /Count {listings} >>", PAGE, stream, FONT])


def test_a_pdf_listing_one_page_100000_times_is_refused_at_once(capsys, tmp_path):
    """600 KB that took 48 s and 2.2 GB (every listing flattened and extracted) is refused before either."""
    folder = tmp_path / "docs"
    folder.mkdir()
    raw = pdf_listing_page_times(100_000)
    assert len(raw) > 600_000
    (folder / "bomb.pdf").write_bytes(raw)
    started = time.perf_counter()
    with pytest.raises(IngestionError) as caught:
        read_document_folder(folder)
    assert time.perf_counter() - started < 5
    detail = f"bomb.pdf: the PDF lists more than {MAX_PDF_PAGES} pages"
    assert (caught.value.reason, caught.value.detail) == ("document_too_large", detail)
    code, _, err = audit_folder(capsys, tmp_path, folder)
    assert (code, err) == (3, f"error: IngestionError: document_too_large: {detail}\n")


def test_a_page_tree_listing_a_node_many_times_is_refused_before_pypdf_flattens_it():
    """1,000 listings of a node of 1,000 listings: 12 KB that pypdf would flatten into a million pages."""
    kids = " ".join(["6 0 R"] * 1000)
    inner = " ".join(["3 0 R"] * 1000)
    stream = "<< /Length 22 >>\nstream\nBT /F1 12 Tf (a) Tj ET\nendstream"
    raw = raw_pdf(
        [CATALOG, f"<< /Type /Pages /Kids [{kids}] /Count 1000000 >>", PAGE, stream, FONT,
         f"<< /Type /Pages /Parent 2 0 R /Kids [{inner}] /Count 1000 >>"]
    )  # fmt: skip
    started = time.perf_counter()
    with pytest.raises(IngestionError) as caught:
        pdf_text(raw, "fan.pdf")
    assert time.perf_counter() - started < 2
    assert caught.value.reason == "document_too_large"


def test_a_page_within_the_bound_listed_a_few_times_is_read_each_time():
    assert pdf_text(pdf_listing_page_times(3), "three.pdf") == "hello there\n" * 3


def form_drawn_times(times: int, text: str) -> bytes:
    """One page drawing a form XObject that shows ``text`` ``times`` times: a small file, much text."""
    page = (
        "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R "
        "/Resources << /Font << /F1 5 0 R >> /XObject << /X 6 0 R >> >> >>"
    )
    content = " ".join(["/X Do"] * times)
    shown = f"BT /F1 12 Tf ({text}) Tj ET"
    form = (
        f"<< /Length {len(shown)} /Type /XObject /Subtype /Form /BBox [0 0 1 1] "
        f"/Resources << /Font << /F1 5 0 R >> >> >>\nstream\n{shown}\nendstream"
    )
    return raw_pdf(
        [CATALOG, "<< /Type /Pages /Kids [3 0 R] /Count 1 >>", page,
         f"<< /Length {len(content)} >>\nstream\n{content}\nendstream", FONT, form]
    )  # fmt: skip


def test_a_pdf_page_giving_more_text_than_the_bound_is_refused_while_it_is_read():
    """27 KB drawing a 2,000-character form 4,000 times: 8 million characters from one page."""
    started = time.perf_counter()
    with pytest.raises(IngestionError) as caught:
        pdf_text(form_drawn_times(4000, "A" * 2000), "forms.pdf")
    assert time.perf_counter() - started < 5
    assert (caught.value.reason, caught.value.detail) == (
        "document_too_large",
        f"forms.pdf: page 1 of the PDF gives more than {MAX_PDF_PAGE_CHARS} characters of text",
    )


def test_a_pdf_giving_more_text_than_the_whole_file_bound_is_refused(monkeypatch):
    monkeypatch.setattr(pdf_reader, "MAX_PDF_TEXT_CHARS", 25)
    assert pdf_text(tiny_pdf([["ten chars."], ["ten chars."]]), "ok.pdf") == "ten chars.\nten chars.\n"
    with pytest.raises(IngestionError) as caught:
        pdf_text(tiny_pdf([["ten chars."], ["ten chars."], ["ten chars."]]), "long.pdf")
    assert caught.value.detail == "long.pdf: the PDF gives more than 25 characters of text"
