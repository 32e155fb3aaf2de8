"""``claimgate audit --cache``: a cache path that would clobber or feed the run is refused before any work."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from tests.helpers import FIXTURES, cli

CORPUS, CITATIONS = FIXTURES / "audit" / "corpus.json", FIXTURES / "audit" / "citations.jsonl"


@pytest.fixture
def no_index_build(monkeypatch) -> None:
    """Fail the test if the audit gets as far as indexing the corpus (the refusal must come first)."""

    def refuse(documents):
        raise AssertionError("the corpus was indexed before --cache was checked")

    monkeypatch.setattr("claimgate.audit.stages.build_corpus_index", refuse)


def _refused(capsys, *args: str) -> str:
    code, out, err = cli(capsys, "audit", "--citations", str(CITATIONS), "--quiet", *args)
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert code == 2 and len(errors) == 1, err
    return errors[0]


def test_cache_that_is_the_output_is_refused_before_any_work(tmp_path, capsys, no_index_build) -> None:
    same = tmp_path / "same.jsonl"
    line = _refused(capsys, "--corpus", str(CORPUS), "--output", str(same), "--cache", str(same))
    assert "--cache" in line and "--output" in line
    assert not same.exists()  # neither a folder nor a result was made


def test_cache_that_resolves_to_the_output_is_refused(tmp_path, capsys, no_index_build) -> None:
    (tmp_path / "sub").mkdir()
    other_spelling = tmp_path / "sub" / ".." / "same.jsonl"
    line = _refused(capsys, "--corpus", str(CORPUS), "--output", str(tmp_path / "same.jsonl"),
                    "--cache", str(other_spelling))  # fmt: skip
    assert "--output" in line
    assert not (tmp_path / "same.jsonl").exists()


@pytest.mark.parametrize("which", ["--corpus", "--citations"])
def test_cache_that_is_an_input_file_is_refused(tmp_path, capsys, no_index_build, which) -> None:
    corpus, citations = tmp_path / "corpus.json", tmp_path / "citations.jsonl"
    shutil.copy(CORPUS, corpus)
    shutil.copy(CITATIONS, citations)
    cache = corpus if which == "--corpus" else citations
    code, _, err = cli(capsys, "audit", "--corpus", str(corpus), "--citations", str(citations),
                       "--output", str(tmp_path / "out.jsonl"), "--cache", str(cache), "--quiet")  # fmt: skip
    assert code == 2 and f"it is the {which} input" in err
    assert corpus.read_bytes() == CORPUS.read_bytes() and citations.read_bytes() == CITATIONS.read_bytes()


@pytest.mark.parametrize("inside", ["cache", ".", "sub/cache"])
def test_cache_inside_the_corpus_folder_is_refused(tmp_path, capsys, no_index_build, inside) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Copies are refused when the path exists.\n", encoding="utf-8")
    line = _refused(capsys, "--corpus-dir", str(docs), "--output", str(tmp_path / "out.jsonl"),
                    "--cache", str(docs / inside))  # fmt: skip
    assert "inside the --corpus-dir folder" in line
    assert sorted(p.name for p in docs.iterdir()) == ["a.md"]  # nothing written where the next run reads


def test_empty_cache_path_is_refused_not_the_current_folder(tmp_path, capsys, monkeypatch, no_index_build) -> None:
    monkeypatch.chdir(tmp_path)
    line = _refused(capsys, "--corpus", str(CORPUS), "--output", "out.jsonl", "--cache", "")
    assert "--cache" in line and "empty" in line
    assert list(tmp_path.iterdir()) == []


def test_cache_beside_the_corpus_folder_is_accepted(tmp_path, capsys) -> None:
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("Copies are refused when the path exists.\n", encoding="utf-8")
    args = ("audit", "--corpus-dir", str(docs), "--citations", str(CITATIONS), "--cache", str(tmp_path / "docs-cache"))
    for run in ("cold", "warm"):  # the second run reads the same folder: no cache file got into it
        code, _, err = cli(capsys, *args, "--output", str(tmp_path / f"{run}.jsonl"), "--quiet")
        assert code == 0, err
    assert (tmp_path / "cold.jsonl").read_bytes() == (tmp_path / "warm.jsonl").read_bytes()
    assert len(list(Path(tmp_path / "docs-cache").glob("corpus-index-*.bin"))) == 1


def test_cache_that_is_an_existing_plain_file_is_refused_before_any_work(tmp_path, capsys, no_index_build) -> None:
    plain = tmp_path / "plainfile"
    plain.write_text("not a folder\n", encoding="utf-8")
    line = _refused(capsys, "--corpus", str(CORPUS), "--output", str(tmp_path / "o.jsonl"), "--cache", str(plain))
    assert "--cache" in line and "is a file, not a folder" in line
    assert plain.read_text(encoding="utf-8") == "not a folder\n"


@pytest.mark.skipif(not hasattr(os, "geteuid"), reason="POSIX modes")
def test_world_writable_cache_folder_is_refused_before_any_work(tmp_path, capsys, no_index_build) -> None:
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    line = _refused(capsys, "--corpus", str(CORPUS), "--output", str(tmp_path / "o.jsonl"), "--cache", str(shared))
    assert line.startswith("error: --cache: the folder") and "writable by group or others (mode 0777)" in line
    assert list(shared.iterdir()) == [] and not (tmp_path / "o.jsonl").exists()
