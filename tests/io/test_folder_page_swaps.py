"""Issue 22, item 2: a ``--corpus-dir`` page swapped after the listing is refused, never read or waited on.

The folder is listed (links checked) before any page is read; a page swapped in between for a symbolic
link leading outside was read from outside the folder, and one swapped for a FIFO blocked the run for
ever. Pages are now opened as pinned sources are: resolved and checked, opened following no link and
without blocking, checked once open.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
from claimgate.errors import IngestionError
from claimgate.io import documents
from claimgate.io.files import open_regular_beneath

from ..helpers import ROOT, cli

SECRET = "The secret text outside the folder.\n"


@pytest.fixture
def folder(tmp_path):
    pages = tmp_path / "pages"
    (pages / "sub").mkdir(parents=True)
    (pages / "guide.md").write_text("The guide.\n", encoding="utf-8")
    (pages / "sub" / "page.md").write_text("A page.\n", encoding="utf-8")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "page.md").write_text(SECRET, encoding="utf-8")
    return pages


def _swap_after_listing(monkeypatch, swap) -> None:
    """List the folder as the reader does, then ``swap()`` before any page is opened."""
    listed = documents.document_paths

    def listing_then_swap(*args, **kwargs):
        paths = listed(*args, **kwargs)
        swap()
        return paths

    monkeypatch.setattr(documents, "document_paths", listing_then_swap)


def test_a_page_swapped_after_listing_for_a_link_outside_is_refused_not_read(folder, monkeypatch, capsys, tmp_path):
    page = folder / "sub" / "page.md"

    def swap():
        page.unlink()
        page.symlink_to(tmp_path / "outside" / "page.md")

    _swap_after_listing(monkeypatch, swap)
    with pytest.raises(IngestionError) as refused:
        documents.read_document_folder(folder)
    assert refused.value.reason == "path_outside_root" and "sub/page.md" in refused.value.detail

    # The command line: one line, exit 3, nothing of the outside text anywhere.
    page.unlink()
    page.write_text("A page.\n", encoding="utf-8")
    citations = tmp_path / "citations.json"
    citations.write_text(json.dumps([{"citation_id": "c", "doc_id": "sub/page.md", "quote": "The secret text"}]))
    output = tmp_path / "audit.json"
    code, out, err = cli(
        capsys, "audit", "--corpus-dir", str(folder), "--citations", str(citations), "--output", str(output)
    )
    assert code == 3 and err.count("\n") == 1
    assert err.startswith("error: IngestionError: path_outside_root: sub/page.md")
    assert "secret" not in out + err and not output.exists()


def test_a_folder_of_a_page_swapped_after_listing_for_a_link_outside_is_refused(folder, monkeypatch, tmp_path):
    def swap():
        os.rename(folder / "sub", tmp_path / "sub-moved")
        (folder / "sub").symlink_to(tmp_path / "outside")

    _swap_after_listing(monkeypatch, swap)
    with pytest.raises(IngestionError) as refused:
        documents.read_document_folder(folder)
    assert refused.value.reason == "path_outside_root"


def test_opening_below_a_folder_follows_no_link_even_inside_it(folder):
    (folder / "inner").symlink_to(folder / "sub")  # a link swapped in after the path was resolved
    with pytest.raises(OSError):
        open_regular_beneath(os.path.realpath(folder), os.path.join("inner", "page.md"))
    (folder / "page-link.md").symlink_to(folder / "guide.md")
    with pytest.raises(OSError):
        open_regular_beneath(os.path.realpath(folder), "page-link.md")
    fd, info = open_regular_beneath(os.path.realpath(folder), os.path.join("sub", "page.md"))
    os.close(fd)
    assert info.st_size == len("A page.\n")


def test_a_page_swapped_after_listing_for_a_fifo_is_refused_without_hanging(folder):
    script = textwrap.dedent(
        f"""
        import os, sys
        from claimgate.errors import IngestionError
        from claimgate.io import documents

        listed = documents.document_paths
        def listing_then_swap(*args, **kwargs):
            paths = listed(*args, **kwargs)
            page = {str(folder / "sub" / "page.md")!r}
            os.unlink(page)
            os.mkfifo(page)  # nobody ever writes to it: opening it blocking would wait for ever
            return paths
        documents.document_paths = listing_then_swap
        try:
            documents.read_document_folder({str(folder)!r})
        except IngestionError as exc:
            print(exc.one_line())
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT / "dataflow")},
    )
    assert done.stdout == "IngestionError: not_a_regular_file: sub/page.md is a FIFO (named pipe), not a page\n"
