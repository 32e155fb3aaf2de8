"""Issue 22, item 7: two ``pin`` runs on one manifest at once lose no entry (``io.manifest_lock``)."""

from __future__ import annotations

import json
import multiprocessing
import sys

import pytest
from claimgate.errors import OutputError
from claimgate.gate.pinning import pinned_manifest
from claimgate.io.manifest_lock import lock_path

PAGES_PER_RUN = 50
TRIALS = 4

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="fork and flock are POSIX")


def _pin_after(barrier, files: list[str], manifest: str) -> None:
    """One ``pin`` run, started with the other at the barrier; exits 0 when it pinned."""
    barrier.wait(timeout=20)
    pinned_manifest(files, "1.0", manifest, source_id="path")


def test_two_concurrent_pins_of_one_manifest_lose_no_entry(tmp_path):
    context = multiprocessing.get_context("fork")
    for trial in range(TRIALS):
        folder = tmp_path / f"trial{trial}"
        runs: list[list[str]] = []
        for run in ("a", "b"):
            (folder / run).mkdir(parents=True)
            files = []
            for page in range(PAGES_PER_RUN):
                file = folder / run / f"page{page}.md"
                file.write_text(f"Page {page} of run {run}.\n", encoding="utf-8")
                files.append(str(file))
            runs.append(files)
        manifest = str(folder / "manifest.json")
        barrier = context.Barrier(len(runs))
        processes = [context.Process(target=_pin_after, args=(barrier, files, manifest)) for files in runs]
        for process in processes:
            process.start()
        for process in processes:
            process.join(timeout=60)
        assert [p.exitcode for p in processes] == [0, 0]
        sources = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))["sources"]
        assert len(sources) == 2 * PAGES_PER_RUN, f"trial {trial}: {len(sources)} entries"
        assert sorted(s["path"] for s in sources) == sorted(f"{r}/page{p}.md" for r in "ab" for p in range(50))
        assert lock_path(manifest).read_bytes() == b""  # hidden, empty, left in place


def test_a_manifest_whose_lock_cannot_be_created_is_an_output_error(tmp_path):
    (tmp_path / "page.md").write_text("A page.\n", encoding="utf-8")
    lock_path(tmp_path / "manifest.json").symlink_to(tmp_path / "elsewhere")  # never followed
    with pytest.raises(OutputError, match="cannot lock the manifest"):
        pinned_manifest([tmp_path / "page.md"], "1.0", tmp_path / "manifest.json")
    assert not (tmp_path / "manifest.json").exists() and not (tmp_path / "elsewhere").exists()
