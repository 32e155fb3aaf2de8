"""A ``--glob`` pathlib cannot use (absolute, or malformed) is refused like one matching nothing.

``invalid_corpus`` in one line, exit 3 on the command line, ``IngestionError`` from the API; never
a traceback. The rule is in ``claimgate.io.documents.document_paths`` (docs/audit-rules.md).
"""

from __future__ import annotations

import json

import pytest
from claimgate.api import Audit
from claimgate.errors import IngestionError
from claimgate.io.documents import document_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import cli


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corp"
    folder.mkdir()
    (folder / "guide.md").write_text("The guide.\n", encoding="utf-8")
    return folder


@pytest.mark.parametrize("pattern", ["/etc/*", "/", "//*.md", "/tmp/**/*.md"])
def test_an_absolute_glob_is_refused_as_invalid_corpus_not_a_crash(corpus, pattern):
    with pytest.raises(IngestionError) as refused:
        document_paths(corpus, pattern)
    assert refused.value.reason == "invalid_corpus"
    assert refused.value.detail.startswith(f"no file under {corpus} matches {pattern!r}")
    with pytest.raises(IngestionError, match="invalid_corpus"):
        Audit.from_corpus(corpus, glob=pattern)


@pytest.mark.parametrize("pattern", ["/etc/*", "../*", "/"])
def test_an_absolute_glob_on_the_command_line_is_one_line_exit_3(corpus, tmp_path, capsys, pattern):
    citations = tmp_path / "c.jsonl"
    citations.write_text(json.dumps({"citation_id": "c", "doc_id": "guide.md", "quote": "The guide."}) + "\n")
    output = tmp_path / "out" / "g.jsonl"
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(corpus), "--glob", pattern, "--citations", str(citations),
        "--output", str(output),
    )  # fmt: skip
    assert code == 3
    assert err.startswith(f"error: IngestionError: invalid_corpus: no file under {corpus} matches {pattern!r}")
    assert err.count("\n") == 1 and "Traceback" not in err
    assert not output.exists()


@settings(max_examples=40, deadline=None)
@given(st.text(alphabet="/*?.ab[]!", min_size=1, max_size=8).map(lambda tail: "/" + tail))
def test_every_absolute_pattern_is_refused_with_invalid_corpus(tmp_path_factory, pattern):
    folder = tmp_path_factory.mktemp("corp")
    (folder / "guide.md").write_text("The guide.\n", encoding="utf-8")
    with pytest.raises(IngestionError) as refused:
        document_paths(folder, pattern)
    assert refused.value.reason == "invalid_corpus"
