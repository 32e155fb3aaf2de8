"""Awkward real inputs: FIFOs, one file under two ids, Windows paths, NFC/NFD names, size limits.

Each is refused with a stable reason and a message that names the cause, without hanging.
"""

from __future__ import annotations

import json
import os
import signal
import unicodedata
from pathlib import Path

import pytest
from claimgate.errors import IngestionError
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.gate.schema import load_schema
from claimgate.io.corpus_file import read_corpus
from claimgate.io.files import NotRegularFileError, TooLargeError, open_regular, read_regular_bytes
from claimgate.io.sources import read_manifest
from claimgate.io.tables import read_case_rows, read_citation_rows

from ..helpers import pin_sources

DIRECTIVE = b"@quill create_copy existing_path=refuse\n"


@pytest.fixture
def no_hang():
    """Fail a test that blocks for more than 10 seconds instead of hanging the suite."""

    def timeout(signum, frame):
        raise AssertionError("blocked: the read did not return")

    previous = signal.signal(signal.SIGALRM, timeout)
    signal.alarm(10)
    yield
    signal.alarm(0)
    signal.signal(signal.SIGALRM, previous)


def refusal(call, *args, **kwargs) -> IngestionError:
    with pytest.raises(IngestionError) as caught:
        call(*args, **kwargs)
    assert "\n" not in caught.value.one_line()
    return caught.value


# ----------------------------------------------------------------------------- FIFOs never block


def test_open_regular_returns_at_once_on_a_fifo_and_refuses_it(tmp_path, no_hang):
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError, match="FIFO"):
        open_regular(fifo)


def test_a_source_swapped_for_a_fifo_is_missing_source_without_hanging(tmp_path, no_hang):
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    source = tmp_path / "sources" / "page.md"
    source.unlink()
    os.mkfifo(source)
    error = refusal(drivers.run_gate, manifest, cases)
    assert error.reason == "missing_source" and "FIFO" in error.detail


@pytest.mark.parametrize("name", ["cases.json", "cases.jsonl", "cases.csv", "cases.parquet"])
def test_a_case_table_that_is_a_fifo_is_refused_without_hanging(tmp_path, no_hang, name):
    os.mkfifo(tmp_path / name)
    error = refusal(read_case_rows, tmp_path / name)
    assert error.reason == "invalid_case_table" and "not a regular file" in error.detail


def test_citations_corpus_manifest_and_schema_that_are_fifos_are_refused_without_hanging(tmp_path, no_hang):
    for name in ("c.jsonl", "corpus.json", "manifest.json", "schema.toml"):
        os.mkfifo(tmp_path / name)
    assert refusal(read_citation_rows, tmp_path / "c.jsonl").reason == "invalid_citation_table"
    assert refusal(read_corpus, tmp_path / "corpus.json").reason == "invalid_corpus"
    assert refusal(read_manifest, tmp_path / "manifest.json").reason == "invalid_manifest"
    assert refusal(load_schema, tmp_path / "schema.toml").reason == "invalid_schema"


def test_reading_stops_one_byte_past_the_limit(tmp_path):
    path = tmp_path / "big"
    path.write_bytes(b"x" * 100)
    assert read_regular_bytes(path, 100)[0] == b"x" * 100
    with pytest.raises(TooLargeError):
        read_regular_bytes(path, 99)


# ----------------------------------------------------------------------------- one file, one source


def _two_entries(tmp_path: Path, second_path: str) -> Path:
    manifest, _ = pin_sources(tmp_path, {"a": ("1.0", DIRECTIVE), "b": ("1.0", DIRECTIVE)})
    document = json.loads(manifest.read_text())
    document["sources"][1]["path"] = second_path
    manifest.write_text(json.dumps(document))
    return manifest


@pytest.mark.parametrize("spelling", ["sources/a.md", "sources/./a.md", "./sources/a.md", "sources//a.md"])
def test_two_ids_naming_the_same_path_are_duplicate_source_path(tmp_path, spelling):
    manifest = _two_entries(tmp_path, spelling)
    error = refusal(drivers.run_gate, manifest, tmp_path / "cases.json")
    assert error.reason == "duplicate_source_path"
    # Both source ids are named (the earlier first), and both spellings when they differ.
    if spelling == "sources/a.md":
        assert error.detail == "source ids a and b both pin sources/a.md"
    else:
        assert error.detail == f"source ids a and b pin one file: sources/a.md and {spelling}"


@pytest.mark.parametrize("link", ["symlink", "hardlink"])
def test_two_ids_reaching_one_file_through_a_link_are_duplicate_source_path(tmp_path, link):
    manifest = _two_entries(tmp_path, "sources/alias.md")
    alias, target = tmp_path / "sources" / "alias.md", tmp_path / "sources" / "a.md"
    alias.unlink(missing_ok=True)
    alias.symlink_to(target) if link == "symlink" else os.link(target, alias)
    error = refusal(drivers.run_gate, manifest, tmp_path / "cases.json")
    assert error.reason == "duplicate_source_path"


def test_two_files_with_the_same_bytes_are_still_two_sources(tmp_path):
    manifest, cases = pin_sources(tmp_path, {"a": ("1.0", DIRECTIVE), "b": ("1.0", DIRECTIVE)})
    result = drivers.run_gate(manifest, cases).results.iloc[0]
    assert (result["status"], result["reason"]) == ("ready", "eligible_directives_agree")


# ----------------------------------------------------------------------------- Windows paths, NFC/NFD names


@pytest.mark.parametrize(
    "path", ["C:\\docs\\x.md", "C:/docs/x.md", "c:x.md", "\\\\server\\share\\x.md", "//server/x.md"]
)
def test_windows_absolute_paths_are_path_outside_root(tmp_path, path):
    manifest = _two_entries(tmp_path, path)
    error = refusal(drivers.run_gate, manifest, tmp_path / "cases.json")
    assert error.reason == "path_outside_root" and repr(path) in error.detail


def test_a_backslash_in_a_relative_path_is_named(tmp_path):
    manifest = _two_entries(tmp_path, "sources\\b.md")
    error = refusal(drivers.run_gate, manifest, tmp_path / "cases.json")
    assert error.reason == "invalid_manifest"
    assert error.detail == "b: 'sources\\\\b.md' contains a backslash; separate folders with '/'"


@pytest.mark.parametrize("written, on_disk", [("NFC", "NFD"), ("NFD", "NFC")])
def test_a_missing_file_whose_other_normalization_exists_is_named(tmp_path, written, on_disk):
    name = "café-ünïcode.md"
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    (tmp_path / "sources" / "page.md").rename(tmp_path / "sources" / unicodedata.normalize(on_disk, name))
    document = json.loads(manifest.read_text())
    document["sources"][0]["path"] = "sources/" + unicodedata.normalize(written, name)
    manifest.write_text(json.dumps(document, ensure_ascii=False), encoding="utf-8")
    error = refusal(drivers.run_gate, manifest, cases)
    assert error.reason == "missing_source"
    twin = "sources/" + unicodedata.normalize(on_disk, name)
    assert f"{twin!r} exists, spelled in another Unicode normalization" in error.detail


def test_a_plainly_missing_file_has_no_twin_hint(tmp_path):
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", DIRECTIVE)})
    (tmp_path / "sources" / "page.md").unlink()
    assert refusal(drivers.run_gate, manifest, cases).detail == "page: sources/page.md"


# ----------------------------------------------------------------------------- size limits


def test_a_corpus_document_over_the_limit_is_document_too_large(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"small": "a b c d", "big": "é" * 600}, ensure_ascii=False), encoding="utf-8")
    error = refusal(read_corpus, corpus, max_document_bytes=1199)
    assert (error.reason, error.detail) == ("document_too_large", "document 'big': more than 1199 bytes")
    assert read_corpus(corpus, max_document_bytes=1200)["big"] == "é" * 600  # counted in UTF-8 bytes


def test_a_corpus_file_over_the_limit_is_corpus_too_large(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"a": "x" * 100}))
    size = corpus.stat().st_size
    assert refusal(read_corpus, corpus, max_corpus_bytes=size - 1).reason == "corpus_too_large"
    assert read_corpus(corpus, max_corpus_bytes=size)["a"] == "x" * 100


def test_the_audit_passes_both_limits_to_the_corpus(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps({"a": "one two three four five"}))
    citations = tmp_path / "c.jsonl"
    citations.write_text("")
    assert (
        refusal(
            drivers.run_audit, citations, drivers.CorpusFile(corpus), settings=RunSettings(max_source_bytes=10)
        ).reason
        == "document_too_large"
    )
    assert (
        refusal(
            drivers.run_audit, citations, drivers.CorpusFile(corpus), settings=RunSettings(max_corpus_bytes=10)
        ).reason
        == "corpus_too_large"
    )


def test_a_manifests_sources_together_over_the_corpus_limit_are_corpus_too_large(tmp_path):
    manifest, cases = pin_sources(tmp_path, {"a": ("1.0", DIRECTIVE), "b": ("1.0", DIRECTIVE + b"\n")})
    error = refusal(drivers.run_gate, manifest, cases, settings=RunSettings(max_corpus_bytes=2 * len(DIRECTIVE)))
    assert error.reason == "corpus_too_large" and error.detail.startswith("b: ")
    drivers.run_gate(manifest, cases, settings=RunSettings(max_corpus_bytes=2 * len(DIRECTIVE) + 1))


def test_a_unix_socket_is_named_as_a_socket_not_as_a_missing_device(tmp_path):
    import socket

    from claimgate.io.files import NotRegularFileError, open_regular, open_regular_beneath

    path = tmp_path / "s.sock"
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(path))
        with pytest.raises(NotRegularFileError, match=r"s\.sock is a socket"):
            open_regular(path)
        with pytest.raises(NotRegularFileError, match=r"s\.sock is a socket"):
            open_regular_beneath(tmp_path, "s.sock")
    finally:
        server.close()


@pytest.mark.parametrize(
    "text, place",
    [
        ('{"a": "abc', "Unterminated string starting at: line 1 column 7"),
        ('{"a": "x",\n "b": }', "Expecting value: line 2 column 7"),
    ],
)
def test_a_corpus_or_manifest_that_is_not_json_names_the_place_as_json_does(tmp_path, text, place):
    bad = tmp_path / "bad.json"
    bad.write_text(text, encoding="utf-8")
    with pytest.raises(IngestionError) as corpus:
        read_corpus(bad)
    with pytest.raises(IngestionError) as manifest:
        read_manifest(bad)
    assert str(corpus.value).endswith(f"bad.json: {place}") and str(manifest.value).endswith(f"not JSON: {place}")
