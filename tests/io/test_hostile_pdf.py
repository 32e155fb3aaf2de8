"""Hostile PDFs (``io.documents.pdf_text``): refused in one line, exit 3, never a traceback or a long run."""

from __future__ import annotations

import json

import pytest
from claimgate.errors import IngestionError
from claimgate.io.documents import read_document_folder

from ..api.pdfs import raw_pdf
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
