"""A folder whose every matching file is excluded (``io.documents.document_paths``): the refusal says how
many files matched and which exclude patterns left them all out, not that nothing matched."""

from __future__ import annotations

import json

import pytest
from claimgate.errors import IngestionError
from claimgate.io.documents import document_paths
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import cli


def tree(folder, *names: str):
    for name in names:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("A page.\n", encoding="utf-8")
    return folder


def refused_detail(folder, glob, exclude) -> str:
    with pytest.raises(IngestionError) as refused:
        document_paths(folder, glob, exclude)
    assert refused.value.reason == "invalid_corpus"
    return refused.value.detail


@pytest.mark.parametrize(
    ("names", "glob", "exclude", "count", "named"),
    [
        (["requests/a.rst", "requests/sub/b.rst", "x.md"], "**/*.rst", ["requests/**"], 2, ["requests/**"]),
        (["requests/a.rst"], "**/*.rst", ["requests"], 1, ["requests"]),
        (["a/x.md", "b/y.md"], "**/*.md", ["a/**", "b/*.md", "c/**"], 2, ["a/**", "b/*.md"]),
        (["guide.md", "notes.md"], ["*.md", "guide.md"], ["*.md"], 2, ["*.md"]),
        (["v1/g.md", "v2/g.md", "v2/h.txt"], "v*/*.md", ["v1", "v2/g.md"], 2, ["v1", "v2/g.md"]),
    ],
)
def test_all_matches_excluded_names_the_count_and_the_patterns(tmp_path, names, glob, exclude, count, named):
    folder = tree(tmp_path / "corpus", *names)
    detail = refused_detail(folder, glob, exclude)
    files = "file" if count == 1 else "files"
    globs = ", ".join(repr(g) for g in ([glob] if isinstance(glob, str) else glob))
    expected = f"{count} {files} under {folder} match {globs}, and all were excluded by "
    assert detail.startswith(expected + ", ".join(repr(p) for p in named) + ":"), detail


def test_no_match_at_all_still_says_no_file_matches(tmp_path):
    folder = tree(tmp_path / "corpus", "guide.md")
    assert refused_detail(folder, "**/*.rst", ["requests/**"]).startswith(f"no file under {folder} matches '**/*.rst'")


def test_hidden_files_are_not_counted_as_excluded_matches(tmp_path):
    folder = tree(tmp_path / "corpus", "docs/a.rst", ".cache/b.rst", "docs/.c.rst")
    assert refused_detail(folder, "**/*.rst", ["docs/**"]).startswith(f"1 file under {folder} match")


def test_all_excluded_on_the_command_line_is_one_line_exit_3(tmp_path, capsys):
    folder = tree(tmp_path / "corpus", "requests/user/quickstart.rst", "requests/api.rst")
    citations = tmp_path / "c.jsonl"
    citations.write_text(json.dumps({"citation_id": "c", "doc_id": "x.rst", "quote": "A page."}) + "\n")
    code, _, err = cli(
        capsys, "audit", "--corpus-dir", str(folder), "--glob", "**/*.rst", "--exclude", "requests/**",
        "--citations", str(citations), "--output", str(tmp_path / "o.jsonl"),
    )  # fmt: skip
    assert code == 3 and err.count("\n") == 1
    assert f"invalid_corpus: 2 files under {folder} match '**/*.rst', and all were excluded by 'requests/**'" in err


_NAMES = st.lists(
    st.tuples(st.sampled_from(["a", "b", "c/d"]), st.sampled_from(["x", "y", "z"]), st.sampled_from([".md", ".rst"])),
    min_size=1,
    max_size=8,
    unique=True,
)


@settings(max_examples=60, deadline=None)
@given(_NAMES, st.lists(st.sampled_from(["a/**", "b", "c/**", "**/*.md", "**/x.*"]), max_size=3, unique=True))
def test_property_a_refusal_counts_exactly_the_matches_the_excludes_left_out(tmp_path_factory, names, exclude):
    folder = tree(tmp_path_factory.mktemp("corpus"), *(f"{d}/{n}{e}" for d, n, e in names))
    matched = document_paths(folder, "**/*")
    try:
        kept = document_paths(folder, "**/*", exclude)
    except IngestionError as refused:
        assert refused.reason == "invalid_corpus"
        assert refused.detail.startswith(f"{len(matched)} file{'s' if len(matched) > 1 else ''} under {folder} match")
        return
    assert kept and set(kept) <= set(matched)
