"""PDF spans carry the 1-based page number beside the character offsets (``io.visible_text.PdfPages``)."""

from __future__ import annotations

from claimgate.api import Audit
from claimgate.io.documents import pdf_text, pdf_text_and_pages
from claimgate.io.visible_text import PdfPages, raw_spans

from ..api.pdfs import tiny_pdf

MANUAL = tiny_pdf(
    [
        ["Retries stop after three attempts."],
        ["Timeouts double after every retry."],
        ["Pools close idle connections after", "ten minutes without traffic."],
    ]
)


def test_pdf_page_starts_number_pages_from_one():
    text, pages = pdf_text_and_pages(MANUAL, "manual.pdf")
    assert text == pdf_text(MANUAL, "manual.pdf")
    assert [pages.page_of(text.index(word)) for word in ("Retries", "Timeouts", "Pools", "traffic")] == [1, 2, 3, 3]


def test_an_empty_page_keeps_the_numbers_of_the_pages_after_it():
    pages = PdfPages((0, 10, 10, 25))  # page 2 has no text
    assert [pages.page_of(offset) for offset in (0, 9, 10, 24, 25)] == [1, 1, 3, 3, 4]


def test_pdf_spans_in_audit_rows_carry_page_and_end_page(tmp_path):
    (tmp_path / "manual.pdf").write_bytes(MANUAL)
    audit = Audit.from_corpus(tmp_path)
    rows = audit.check(
        [
            {"citation_id": "one", "doc_id": "manual.pdf", "quote": "Timeouts double after every retry"},
            {"citation_id": "two", "doc_id": "manual.pdf", "quote": "every retry. Pools close idle connections"},
        ]
    ).to_dict("records")
    assert [r["verdict"] for r in rows] == ["found", "found"]
    one, two = rows[0]["spans"][0], rows[1]["spans"][0]
    assert (one["page"], one["end_page"]) == (2, 2)
    assert (two["page"], two["end_page"]) == (2, 3)
    text = audit.documents["manual.pdf"]
    assert text[one["start"] : one["end"]] == one["text"]  # offsets stay in the extracted text


def test_spans_of_documents_without_pages_are_unchanged():
    span = {"doc_id": "a.txt", "start": 0, "end": 4, "start_line": 1, "end_line": 1, "text": "abcd"}
    assert raw_spans([span], {"b.pdf": PdfPages((0,))}) == [span]
