"""All-or-nothing outputs: stale temporaries, folders a failed write made, staged pictures, outputs that are inputs."""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

import pytest
from claimgate.errors import OutputError
from claimgate.io import atomic
from claimgate.io.atomic import (
    check_output_not_input,
    check_output_writable,
    check_outputs,
    remove_stale_staging,
    remove_stale_temporaries,
    staged_folder,
    temporary_name_pattern,
    write_atomic,
)

# ----------------------------------------------------------------------------- stale temporaries


def test_a_dead_runs_temporary_of_the_same_output_is_removed(tmp_path):
    stale = tmp_path / ".r.json.k3x_9abc.tmp"
    stale.write_bytes(b"x" * 1000)
    write_atomic(tmp_path / "r.json", lambda handle: handle.write(b"new"))
    assert not stale.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r.json"]


@pytest.mark.parametrize(
    "name",
    [
        ".r.json.k3x_9ab.tmp",  # 7 random characters
        ".r.json.K3X_9ABC.tmp",  # not tempfile's alphabet
        ".r.jsonl.k3x_9abc.tmp",  # another output
        ".q.json.k3x_9abc.tmp",
        "r.json.k3x_9abc.tmp",  # not hidden
        ".r.json.k3x_9abc.tmp.bak",
        ".r.json.tmp",
    ],
)
def test_files_that_are_not_this_outputs_temporaries_are_never_removed(tmp_path, name):
    other = tmp_path / name
    other.write_text("keep")
    write_atomic(tmp_path / "r.json", lambda handle: handle.write(b"new"))
    assert other.read_text() == "keep"


def test_a_live_runs_temporary_is_not_removed(tmp_path):
    live = tmp_path / ".r.json.abcd1234.tmp"
    live.write_text("being written")
    with open(live, "rb") as held:
        fcntl.flock(held.fileno(), fcntl.LOCK_EX)  # what a writer in another process holds
        write_atomic(tmp_path / "r.json", lambda handle: handle.write(b"new"))
        assert live.read_text() == "being written"
    assert remove_stale_temporaries(tmp_path / "r.json") == [live]


def test_a_symlink_or_folder_with_a_temporary_name_is_left_alone(tmp_path):
    target = tmp_path / "precious"
    target.write_text("keep")
    (tmp_path / ".r.json.abcd1234.tmp").symlink_to(target)
    (tmp_path / ".r.json.efgh5678.tmp").mkdir()
    assert remove_stale_temporaries(tmp_path / "r.json") == []
    assert target.read_text() == "keep" and (tmp_path / ".r.json.efgh5678.tmp").is_dir()


def test_the_temporary_name_pattern_matches_what_write_atomic_creates(tmp_path):
    seen = []

    def write(handle):
        seen.extend(p.name for p in tmp_path.iterdir())
        handle.write(b"x")

    write_atomic(tmp_path / "a.b.json", write)
    assert len(seen) == 1 and temporary_name_pattern("a.b.json").match(seen[0])


# ----------------------------------------------------------------------------- folders a failed write made


def test_a_failed_write_removes_the_folders_it_created(tmp_path):
    def fail(handle):
        raise OSError(28, "No space left on device")

    with pytest.raises(OutputError, match="No space left"):
        write_atomic(tmp_path / "new" / "deeper" / "r.json", fail)
    assert list(tmp_path.iterdir()) == []


def test_a_failed_write_keeps_folders_that_were_there(tmp_path):
    (tmp_path / "existing").mkdir()

    def fail(handle):
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        write_atomic(tmp_path / "existing" / "made" / "r.json", fail)
    assert [p.name for p in tmp_path.iterdir()] == ["existing"]
    assert list((tmp_path / "existing").iterdir()) == []


# ----------------------------------------------------------------------------- staged pictures


def test_staged_files_appear_only_on_commit(tmp_path):
    with staged_folder(tmp_path / "out") as stage:
        (stage.folder / "cases").mkdir()
        (stage.folder / "cases" / "a.dot").write_text("a")
        (stage.folder / "dag.dot").write_text("dag")
        assert not (tmp_path / "out" / "dag.dot").exists()
        stage.commit()
    assert (tmp_path / "out" / "dag.dot").read_text() == "dag"
    assert sorted(p.name for p in (tmp_path / "out").rglob("*")) == ["a.dot", "cases", "dag.dot"]


def test_an_uncommitted_stage_leaves_nothing_not_even_its_folder(tmp_path):
    with pytest.raises(RuntimeError):
        with staged_folder(tmp_path / "out") as stage:
            (stage.folder / "dag.dot").write_text("dag")
            raise RuntimeError("disk full while drawing")
    assert list(tmp_path.iterdir()) == []


def test_a_dead_runs_staging_folder_is_removed_but_a_live_one_is_not(tmp_path):
    with staged_folder(tmp_path) as live:
        dead = tmp_path / ".claimgate-staging.abcd1234.tmp"
        dead.mkdir()
        (dead / ".lock").write_text("")
        (dead / "half.dot").write_text("half")
        assert remove_stale_staging(tmp_path) == [dead]
        assert live.folder.is_dir()


# ----------------------------------------------------------------------------- outputs that are inputs


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink", "hardlink", "symlinked_folder"])
def test_an_output_that_is_an_input_is_refused_however_it_is_spelled(tmp_path, spelling):
    cases = tmp_path / "cases.json"
    cases.write_text("[]")
    output = {
        "same": lambda: cases,
        "dotted": lambda: tmp_path / "." / "x" / ".." / "cases.json",
        "symlink": lambda: (tmp_path / "link.json").symlink_to(cases) or tmp_path / "link.json",
        "hardlink": lambda: os.link(cases, tmp_path / "hard.json") or tmp_path / "hard.json",
        "symlinked_folder": lambda: (tmp_path / "alias").symlink_to(tmp_path) or tmp_path / "alias" / "cases.json",
    }[spelling]()
    if spelling == "dotted":
        (tmp_path / "x").mkdir()
    with pytest.raises(OutputError, match=r"it is the --cases input"):
        check_output_not_input(output, {"--manifest": tmp_path / "m.json", "--cases": cases})
    assert cases.read_text() == "[]"


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink_to_missing", "hardlink"])
def test_two_outputs_that_are_one_file_are_refused_before_any_work(tmp_path, spelling):
    ledger = tmp_path / "L.jsonl"
    if spelling == "hardlink":
        ledger.write_text("kept\n")
    other = {
        "same": lambda: ledger,
        "dotted": lambda: tmp_path / "." / "L.jsonl",
        "symlink_to_missing": lambda: (tmp_path / "link.jsonl").symlink_to(ledger) or tmp_path / "link.jsonl",
        "hardlink": lambda: os.link(ledger, tmp_path / "hard.jsonl") or tmp_path / "hard.jsonl",
    }[spelling]()
    with pytest.raises(OutputError, match=r"it is another output \(.*L\.jsonl\); refusing to overwrite it"):
        check_outputs([ledger, tmp_path / "report.html", other], {"--cases": tmp_path / "cases.json"})
    assert not (tmp_path / "report.html").exists()
    assert spelling != "hardlink" or ledger.read_text() == "kept\n"


def test_distinct_outputs_pass(tmp_path):
    check_outputs([tmp_path / "a.jsonl", tmp_path / "b.jsonl", tmp_path / "sub" / "a.jsonl"], {})


def test_a_different_file_is_not_an_input(tmp_path):
    (tmp_path / "cases.json").write_text("[]")
    check_output_not_input(tmp_path / "r.json", {"--cases": tmp_path / "cases.json", "--schema": None})


def test_an_output_under_a_file_is_refused_before_any_work(tmp_path):
    (tmp_path / "file").write_text("x")
    with pytest.raises(OutputError, match="is not a folder"):
        check_output_writable(tmp_path / "file" / "deeper" / "r.json")
    assert not Path(tmp_path / "file").is_dir()


def test_an_output_that_is_a_folder_is_refused_before_any_work(tmp_path):
    with pytest.raises(OutputError, match="is a folder"):
        check_output_writable(tmp_path)


@pytest.mark.skipif(os.geteuid() == 0, reason="root may write anywhere")
def test_an_output_folder_without_write_permission_is_refused(tmp_path):
    locked = tmp_path / "locked"
    locked.mkdir(mode=0o500)
    with pytest.raises(OutputError, match="not writable"):
        check_output_writable(locked / "new" / "r.json")


def test_a_file_system_without_flock_still_gets_its_output(tmp_path, monkeypatch):
    def no_locks(fd, operation):
        raise OSError(errno.EOPNOTSUPP, "Operation not supported")

    monkeypatch.setattr(atomic.fcntl, "flock", no_locks)
    stale = tmp_path / ".r.json.abcd1234.tmp"
    stale.write_text("cannot tell whether it is stale")
    write_atomic(tmp_path / "r.json", lambda handle: handle.write(b"new"))
    assert (tmp_path / "r.json").read_bytes() == b"new"
    assert stale.exists()  # without locks nothing can be proven dead: left alone
