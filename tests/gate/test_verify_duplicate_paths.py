"""``claimgate verify`` reports every problem the gate refuses a manifest for, ``duplicate_source_path`` too.

verify and the gate's reader call the same checks (``io.sources.manifest_entry_problem`` and
``io.sources.SourceReader.read``, docs/gate-rules.md "Manifest and sources"), in the same order:
an entry whose path was edited to another entry's file is ``duplicate_source_path``, not the
``hash_mismatch`` its stale hash would also give.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from claimgate.errors import IngestionError
from claimgate.gate.verifying import verify_manifest
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES, read_manifest, read_source_texts
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import cli

PAGES = {"a.md": b"# A\n", "b.md": b"# B\n", "c.md": b"# C\n"}


def _sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def _folder(root: Path) -> Path:
    (root / "docs").mkdir(parents=True, exist_ok=True)
    for name, raw in PAGES.items():
        (root / "docs" / name).write_bytes(raw)
    return root


def _manifest(root: Path, entries: list[tuple[str, str, str]]) -> Path:
    sources = [{"source_id": i, "version": "1.0", "path": p, "url": "u", "sha256": h} for i, p, h in entries]
    path = root / "manifest.json"
    path.write_text(json.dumps({"sources": sources}), encoding="utf-8")
    return path


def _gate_refusal(manifest: Path) -> IngestionError | None:
    """What the gate's reader refuses the manifest for (``None``: it is accepted)."""
    try:
        loaded = read_manifest(manifest)
        read_source_texts(loaded["root"], loaded["sources"], DEFAULT_MAX_SOURCE_BYTES, None)
    except IngestionError as exc:
        return exc
    return None


def test_verify_reports_a_path_edited_to_an_earlier_entrys_as_duplicate_source_path(tmp_path, capsys):
    root = _folder(tmp_path)
    manifest = _manifest(
        root, [("a", "docs/a.md", _sha(PAGES["a.md"])), ("b", "docs/a.md", _sha(PAGES["b.md"]))]
    )  # entry 2's path hand-edited to entry 1's
    assert _gate_refusal(manifest).reason == "duplicate_source_path"
    report = verify_manifest(manifest)
    assert [p.reason for p in report.problems] == ["duplicate_source_path"]
    assert report.problems[0].detail == _gate_refusal(manifest).detail == "source ids a and b both pin docs/a.md"
    code, _, err = cli(capsys, "verify", "--manifest", str(manifest))
    assert code == 3 and "duplicate_source_path" in err.splitlines()[0] and "hash_mismatch" not in err


@pytest.mark.parametrize("link", ["symlink", "hard link", "other spelling"])
def test_verify_reports_one_file_reached_two_ways_as_duplicate_source_path(tmp_path, link):
    root = _folder(tmp_path)
    if link == "symlink":
        (root / "docs" / "alias.md").symlink_to("a.md")
        second = "docs/alias.md"
    elif link == "hard link":
        os.link(root / "docs" / "a.md", root / "docs" / "alias.md")
        second = "docs/alias.md"
    else:
        second = "docs/./a.md"
    manifest = _manifest(root, [("a", "docs/a.md", _sha(PAGES["a.md"])), ("alias", second, _sha(PAGES["a.md"]))])
    assert [p.reason for p in verify_manifest(manifest).problems] == ["duplicate_source_path"]
    assert _gate_refusal(manifest).reason == "duplicate_source_path"
    assert _gate_refusal(manifest).detail == f"source ids a and alias pin one file: docs/a.md and {second}"


def test_verify_reports_both_a_stale_entry_and_the_entry_sharing_its_file(tmp_path):
    root = _folder(tmp_path)
    manifest = _manifest(root, [("a", "docs/a.md", "0" * 64), ("b", "docs/a.md", _sha(PAGES["a.md"]))])
    assert [p.reason for p in verify_manifest(manifest).problems] == ["hash_mismatch", "duplicate_source_path"]


ENTRY = st.tuples(
    st.sampled_from(["a", "b", "c"]),  # source_id (repeats: duplicate_source_id)
    st.sampled_from(["docs/a.md", "docs/b.md", "docs/c.md", "docs/./b.md", "docs/gone.md", "../x.md"]),
    st.sampled_from(["a.md", "b.md", "c.md", None]),  # whose hash is pinned (None: a malformed hash)
)


@settings(max_examples=60, deadline=None)
@given(st.lists(ENTRY, min_size=1, max_size=5))
def test_verify_reports_the_gates_refusal_and_is_clean_only_when_the_gate_accepts(tmp_path_factory, entries):
    # The gate checks every entry's fields before any file (``read_manifest``), so its refusal may be a
    # later entry's: it is among verify's problems, not always the first.
    root = _folder(tmp_path_factory.mktemp("m"))
    pinned = [(i, p, _sha(PAGES[h]) if h else "A" * 64) for i, p, h in entries]
    manifest = _manifest(root, pinned)
    refused, problems = _gate_refusal(manifest), verify_manifest(manifest).problems
    if refused is None:
        assert problems == []
    else:
        assert (refused.reason, refused.detail) in [(p.reason, p.detail) for p in problems]
