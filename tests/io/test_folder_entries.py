"""Issue 22, item 10: an entry of a ``--corpus-dir`` folder that is not a page is refused, never skipped.

A dangling link, a FIFO, a socket or a device left out without a word would make a citation of that
page read as ``fabricated``. Each is refused in one line (``not_a_regular_file``, exit 3 on the command
line, ``IngestionError`` from the API), naming the entry.
"""

from __future__ import annotations

import json
import os
import socket
import stat

import pytest
from claimgate.api import Audit
from claimgate.errors import IngestionError
from claimgate.io.documents import read_document_folder

from ..helpers import cli


def _dangling_link(folder, name):
    (folder / name).symlink_to(folder / "gone.md")


def _link_loop(folder, name):
    (folder / name).symlink_to(folder / name)


def _fifo(folder, name):
    os.mkfifo(folder / name)


def _socket(folder, name):
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    cwd = os.getcwd()
    os.chdir(folder)  # a relative name: socket paths are limited to about 100 bytes
    try:
        server.bind(name)
    finally:
        os.chdir(cwd)
    server.close()  # the entry stays


def _device(folder, name):
    if os.geteuid() != 0:
        pytest.skip("making a device node needs root")
    try:
        os.mknod(folder / name, stat.S_IFCHR | 0o600, os.makedev(1, 3))  # the null device
    except PermissionError:
        pytest.skip("this container does not allow device nodes (no CAP_MKNOD)")


def _link_to_fifo(folder, name):
    os.mkfifo(folder / ".pipe")
    (folder / name).symlink_to(folder / ".pipe")


KINDS = {
    "dangling link": (_dangling_link, "a symbolic link to nothing"),
    "link loop": (_link_loop, "a symbolic link loop"),
    "FIFO": (_fifo, "a FIFO (named pipe)"),
    "socket": (_socket, "a socket"),
    "device": (_device, "a device"),
    "link to a FIFO": (_link_to_fifo, "a FIFO (named pipe)"),
}


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "pages"
    folder.mkdir()
    (folder / "guide.md").write_text("The guide.\n", encoding="utf-8")
    (folder / "sub").mkdir()  # a folder is walked, never refused
    (folder / "sub" / "more.md").write_text("More.\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("kind", list(KINDS))
def test_folder_entries_that_are_not_pages_are_refused_not_silently_left_out(corpus, kind):
    make, described = KINDS[kind]
    make(corpus / "sub", "missing.md")
    with pytest.raises(IngestionError) as refused:
        read_document_folder(corpus)
    assert refused.value.reason == "not_a_regular_file"
    assert refused.value.detail == f"sub/missing.md is {described}, not a page"
    with pytest.raises(IngestionError, match="not_a_regular_file"):
        Audit.from_corpus(corpus)


def test_folder_entries_that_are_not_pages_are_refused_in_one_escaped_line_exit_3(corpus, tmp_path, capsys):
    _fifo(corpus, "page\x1b[2J.md")
    _dangling_link(corpus, "a-link.md")
    citations = tmp_path / "citations.json"
    citations.write_text(json.dumps([{"citation_id": "c", "doc_id": "guide.md", "quote": "The guide."}]))
    output = tmp_path / "audit.json"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(corpus), "--citations", str(citations), "--output", str(output)
    )
    assert code == 3
    # The first refused entry in doc_id order; the line is escaped by the error printer.
    assert err == "error: IngestionError: not_a_regular_file: a-link.md is a symbolic link to nothing, not a page\n"
    assert not output.exists()
    (corpus / "a-link.md").unlink()
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(corpus), "--citations", str(citations), "--output", str(output)
    )
    assert code == 3 and "page\\x1b[2J.md is a FIFO (named pipe), not a page" in err and "\x1b" not in err


def test_hidden_entries_and_entries_outside_the_glob_are_still_skipped(corpus):
    _fifo(corpus, ".hidden.md")
    _dangling_link(corpus, "other.txt")
    frame = read_document_folder(corpus, "**/*.md")
    assert list(frame["doc_id"]) == ["guide.md", "sub/more.md"]
