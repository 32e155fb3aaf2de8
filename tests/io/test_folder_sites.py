"""Folders of real sites (``io.documents``): files with no extractor skipped and counted, patterns repeatable."""

from __future__ import annotations

import json
import os

import pytest
from claimgate.errors import IngestionError
from claimgate.io.documents import document_paths, read_document_folder

from ..helpers import cli


@pytest.fixture
def site(tmp_path):
    """A docs folder as a real project ships it: pages beside build files, images and a build output."""
    folder = tmp_path / "docs"
    files = {
        "index.md": "# Home\n\nThe pool keeps ten idle connections open.\n",
        "guide/tuning.rst": "Tuning\n======\n\nCall :meth:`~pool.Pool.close` when the pool is done.\n",
        "guide/notes.txt": "Plain notes stay as written.\n",
        "CNAME": "docs.example.org\n",
        "Makefile": "html:\n\tsphinx-build . _build\n",
        "conf.py": "project = 'pool'\n",
        "img/logo.png": "\x89PNG",
        "_build/html/index.html": "<p>The pool keeps ten idle connections open.</p>",
    }
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return folder


def test_files_with_no_extractor_are_skipped_and_listed(site):
    frame = read_document_folder(site)
    assert frame["doc_id"].tolist() == ["_build/html/index.html", "guide/notes.txt", "guide/tuning.rst", "index.md"]
    assert frame.attrs["skipped"] == ["CNAME", "Makefile", "conf.py", "img/logo.png"]


def test_glob_is_repeatable_for_mixed_markdown_and_rst(site):
    frame = read_document_folder(site, ["**/*.md", "**/*.rst"])
    assert frame["doc_id"].tolist() == ["guide/tuning.rst", "index.md"]
    assert frame.attrs["skipped"] == []


def test_exclude_leaves_a_build_folder_out(site):
    assert [d for d, _ in document_paths(site, "**/*", ["_build/**", "*.py"])] == [
        "CNAME", "Makefile", "guide/notes.txt", "guide/tuning.rst", "img/logo.png", "index.md",
    ]  # fmt: skip


def test_a_file_matched_by_two_globs_is_one_document(site):
    assert [d for d, _ in document_paths(site, ["**/*.md", "*.md"])] == ["index.md"]


def test_excluding_every_page_is_refused_not_an_empty_corpus(site):
    with pytest.raises(IngestionError) as caught:
        read_document_folder(site, "**/*.md", exclude="**/*.md")
    assert caught.value.reason == "invalid_corpus"


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this system")
def test_a_special_file_with_no_extractor_is_still_refused_not_skipped(site):
    os.mkfifo(site / "events")  # no extension: a regular file so named would be skipped
    with pytest.raises(IngestionError) as caught:
        read_document_folder(site)
    assert caught.value.reason == "not_a_regular_file" and caught.value.detail.startswith("events ")


def test_an_unreadable_page_still_refuses_the_run(site):
    (site / "broken.rst").write_bytes(b"caf\xe9\n")
    with pytest.raises(IngestionError) as caught:
        read_document_folder(site)
    assert caught.value.reason == "unreadable_document" and caught.value.detail.startswith("broken.rst: ")


def test_audit_command_takes_repeated_glob_and_exclude_and_names_skipped_files_with_verbose(site, tmp_path, capsys):
    citations = tmp_path / "c.jsonl"
    rows = [
        {"citation_id": "md", "doc_id": "index.md", "quote": "The pool keeps ten idle connections open"},
        {"citation_id": "rst", "doc_id": "guide/tuning.rst", "quote": "Call close() when the pool is done"},
    ]
    citations.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    output = tmp_path / "out.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(site), "--glob", "**/*", "--glob", "*.md", "--exclude", "_build/**",
        "--exclude", "img/**", "--verbose", "--citations", str(citations), "--output", str(output),
    )  # fmt: skip
    assert code == 0
    assert err.splitlines() == [
        "skipped 3 file(s) of --corpus-dir with no extractor",
        "  skipped CNAME",
        "  skipped Makefile",
        "  skipped conf.py",
    ]
    got = [json.loads(line) for line in output.read_text(encoding="utf-8").splitlines()]
    assert [(r["verdict"], r["matched_doc_ids"]) for r in got] == [
        ("found", ["index.md"]),
        ("found", ["guide/tuning.rst"]),
    ]
    assert got[1]["extractors"] == {"guide/tuning.rst": "rst"}
    assert got[1]["spans"][0]["text"] == "Call :meth:`~pool.Pool.close` when the pool is done"


def test_exclude_without_corpus_dir_is_a_usage_error(tmp_path, capsys):
    code, _, err = cli(
        capsys, "audit", "--corpus", "c.json", "--exclude", "x", "--citations", "c.jsonl", "--output", "o.jsonl"
    )
    assert code == 2 and "--glob, --exclude and --html-main-content need --corpus-dir" in err
