"""Operator faults at the command line: outputs naming inputs, half picture sets, terminals that are not UTF-8."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest
from claimgate import pictures
from claimgate.cli import gate as gate_cli
from claimgate.errors import OutputError

from ..helpers import FIXTURES, ROOT, cli

DEMO = FIXTURES / "audit"


@pytest.fixture
def inputs(tmp_path):
    """A private copy of the fixtures (manifest, sources, cases, schema) and the audit demo."""
    folder = tmp_path / "in"
    shutil.copytree(FIXTURES, folder, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return folder


def snapshot(folder) -> dict:
    return {p: p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


# ----------------------------------------------------------------------------- an output that is an input


@pytest.mark.parametrize("which", ["--manifest", "--cases", "--schema", "source"])
def test_gate_output_naming_an_input_is_refused_and_the_input_kept(capsys, inputs, which):
    given = {
        "--manifest": inputs / "manifest.json",
        "--cases": inputs / "cases.json",
        "--schema": inputs / "quill_schema.toml",
        "source": inputs / "sources" / "quill-guide.md",
    }
    alias = inputs / "alias.json"
    os.link(given[which], alias)  # the same file under another name, with an output extension
    before = snapshot(inputs)
    code, out, err = cli(
        capsys,
        "gate",
        "--manifest",
        str(given["--manifest"]),
        "--cases",
        str(given["--cases"]),
        "--schema",
        str(given["--schema"]),
        "--output",
        str(alias),
    )
    assert code == 2 and out == ""
    label = "source quill-guide" if which == "source" else which
    assert err.splitlines()[-1] == f"error: cannot write {alias}: it is the {label} input ({given[which]}); " + (
        "refusing to overwrite it"
    )
    assert snapshot(inputs) == before


@pytest.mark.parametrize("which", ["--citations", "--corpus"])
def test_audit_output_naming_an_input_is_refused_and_the_input_kept(capsys, tmp_path, which):
    citations, corpus = tmp_path / "c.jsonl", tmp_path / "corpus.json"
    shutil.copy(DEMO / "citations.jsonl", citations)
    shutil.copy(DEMO / "corpus.json", corpus)
    output = tmp_path / "link.jsonl"
    output.symlink_to({"--citations": citations, "--corpus": corpus}[which])
    before = snapshot(tmp_path)
    code, _, err = cli(capsys, "audit", "--corpus", str(corpus), "--citations", str(citations), "--output", str(output))
    assert code == 2 and f"it is the {which} input" in err
    assert snapshot(tmp_path) == before


def test_an_output_equal_to_an_input_is_refused_before_any_work(capsys, tmp_path):
    broken_cases = tmp_path / "cases.json"
    broken_cases.write_text("[ this would be refused with exit 3 if it were read")
    code, _, err = cli(
        capsys, "gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(broken_cases),
        "--output", str(broken_cases),
    )  # fmt: skip
    assert code == 2 and "it is the --cases input" in err


def test_an_output_under_a_file_is_refused_before_any_work(capsys, tmp_path):
    (tmp_path / "file").write_text("x")
    broken_cases = tmp_path / "cases.json"
    broken_cases.write_text("[ broken")
    code, _, err = cli(
        capsys, "gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(broken_cases),
        "--output", str(tmp_path / "file" / "r.json"),
    )  # fmt: skip
    assert code == 2 and "is not a folder" in err


# ----------------------------------------------------------------------------- pictures: all or nothing


def gate_with_pictures(capsys, output):
    return cli(
        capsys, "gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json"),
        "--output", str(output), "--pictures",
    )  # fmt: skip


def test_a_picture_that_cannot_be_written_fails_the_run_with_no_result_and_no_pictures(capsys, tmp_path, monkeypatch):
    real = pictures.write_picture
    calls = []

    def fourth_fails(source, base, *args):
        calls.append(base)
        if len(calls) == 4:
            raise OutputError(f"cannot write {base}.dot: No space left on device")
        return real(source, base, *args)

    monkeypatch.setattr(pictures, "write_picture", fourth_fails)
    output = tmp_path / "out" / "r.json"
    code, out, err = gate_with_pictures(capsys, output)
    assert code == 2 and "No space left on device" in err
    assert "wrote" not in out
    assert not (tmp_path / "out").exists()  # no result, no pictures, no staging folder, no folder made


def test_a_result_that_cannot_be_written_leaves_no_pictures(capsys, tmp_path, monkeypatch):
    def full_disk(path, run, document):
        raise OutputError(f"cannot write {path}: No space left on device")

    monkeypatch.setattr(gate_cli, "write_gate_output", full_disk)  # the gate command's writer (cli/gate.py)
    (tmp_path / "out").mkdir()
    code, out, _ = gate_with_pictures(capsys, tmp_path / "out" / "r.json")
    assert code == 2 and "wrote" not in out
    assert list((tmp_path / "out").iterdir()) == []


def test_a_complete_picture_set_is_moved_into_place_with_the_result(capsys, tmp_path):
    output = tmp_path / "out" / "r.json"
    code, out, _ = gate_with_pictures(capsys, output)
    assert code == 0 and f"wrote {output}" in out
    cases = json.loads(output.read_text())["cases"]
    assert len(list((tmp_path / "out" / "cases").glob("*.dot"))) == len(cases)
    assert (tmp_path / "out" / "gate_dag.dot").exists()
    assert not [p for p in (tmp_path / "out").iterdir() if p.name.startswith(".")]


# ----------------------------------------------------------------------------- printing never crashes


def test_a_terminal_that_cannot_show_a_case_id_gets_escapes_not_a_traceback(tmp_path):
    cases = tmp_path / "cases.json"
    row = {
        "case_id": "日本-case",
        "candidate_ids": ["quill-guide"],
        "requested_version": "1.0",
        "claim_key": "existing_path",
    }
    cases.write_text(json.dumps([row], ensure_ascii=False), encoding="utf-8")
    output = tmp_path / "r.json"
    done = subprocess.run(
        [sys.executable, str(ROOT / "run_pipeline.py"), "gate", "--manifest", str(FIXTURES / "manifest.json")]
        + ["--cases", str(cases), "--output", str(output)],
        cwd=ROOT,
        capture_output=True,
        env={**os.environ, "PYTHONIOENCODING": "iso-8859-15", "LC_ALL": "C"},
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert b"Traceback" not in done.stderr
    assert b"\\u65e5\\u672c-case" in done.stdout
    assert json.loads(output.read_text(encoding="utf-8"))["cases"][0]["case_id"] == "日本-case"


# ----------------------------------------------------------------------------- limits on the command line


def test_max_corpus_bytes_flag_sets_the_corpus_limit(capsys, tmp_path):
    size = (DEMO / "corpus.json").stat().st_size
    base = ["audit", "--corpus", str(DEMO / "corpus.json"), "--citations", str(DEMO / "citations.jsonl")]
    base += ["--output", str(tmp_path / "a.jsonl"), "--quiet"]
    assert cli(capsys, *base, "--max-corpus-bytes", str(size))[0] == 0
    code, _, err = cli(capsys, *base, "--max-corpus-bytes", str(size - 1))
    assert code == 3 and err == f"error: IngestionError: corpus_too_large: corpus.json: more than {size - 1} bytes\n"
    assert cli(capsys, *base, "--max-corpus-bytes", "0")[0] == 2


def test_max_source_bytes_limits_each_corpus_document(capsys, tmp_path):
    base = ["audit", "--corpus", str(DEMO / "corpus.json"), "--citations", str(DEMO / "citations.jsonl")]
    code, _, err = cli(capsys, *base, "--output", str(tmp_path / "a.jsonl"), "--max-source-bytes", "10")
    assert code == 3 and err.startswith("error: IngestionError: document_too_large: document ")


def test_a_note_about_pictures_names_where_they_end_up_not_the_staging_folder(capsys, tmp_path, monkeypatch):
    monkeypatch.setattr(pictures, "find_renderer", lambda: None)
    output = tmp_path / "out" / "r.json"
    code, out, _ = gate_with_pictures(capsys, output)
    assert code == 0
    notes = [line for line in out.splitlines() if line.startswith("Graphviz not found")]
    assert notes and all(".claimgate-staging" not in line for line in notes)
    assert f"wrote {tmp_path / 'out' / 'gate_dag.dot'} only" in out


# ----------------------------------------------------------------------------- outputs that would land on inputs


@pytest.fixture
def demo_fixtures(inputs, monkeypatch):
    """The default run reads a private copy of the fixtures (so a failed check cannot harm the real ones)."""
    from claimgate.cli import audit as audit_cli
    from claimgate.cli import demo

    monkeypatch.setattr(demo, "fixtures_dir", lambda: inputs)
    monkeypatch.setattr(audit_cli, "fixtures_dir", lambda: inputs)
    return inputs


@pytest.mark.parametrize("target", ["cases.json", "audit/corpus.json", "audit/citations.json", "sub/result.json"])
def test_the_default_run_never_writes_into_the_fixtures_it_reads(capsys, demo_fixtures, target):
    before = snapshot(demo_fixtures)
    code, out, err = cli(capsys, "--quiet", "--output", str(demo_fixtures / target))
    assert code == 2 and out == "" and "fixtures" in err.splitlines()[-1]
    assert snapshot(demo_fixtures) == before


def test_the_default_run_refuses_case_pictures_where_the_fixtures_are(capsys, demo_fixtures, tmp_path):
    # out/cases/ would hold the case pictures; the fixtures folder is inside it.
    out = tmp_path / "out"
    shutil.move(str(demo_fixtures), str(out / "cases" / "fx"))
    from claimgate.cli import audit as audit_cli
    from claimgate.cli import demo

    demo.fixtures_dir = audit_cli.fixtures_dir = lambda: out / "cases" / "fx"  # restored by monkeypatch
    code, _, err = cli(capsys, "--quiet", "--output", str(out / "result.json"))
    assert code == 2 and "cannot write case pictures into" in err


@pytest.mark.parametrize("picture", ["gate_dag.dot", "gate_dag.svg"])
def test_gate_pictures_that_would_overwrite_an_input_are_refused_before_any_work(capsys, inputs, tmp_path, picture):
    schema = tmp_path / "s" / picture
    schema.parent.mkdir()
    shutil.copy(inputs / "quill_schema.toml", schema)
    before = schema.read_bytes()
    code, _, err = cli(
        capsys, "gate", "--manifest", str(inputs / "manifest.json"), "--cases", str(inputs / "cases.json"),
        "--schema", str(schema), "--output", str(schema.parent / "r.json"), "--pictures",
    )  # fmt: skip
    assert code == 2 and f"it is the --schema input ({schema})" in err
    assert schema.read_bytes() == before and not (schema.parent / "r.json").exists()


def test_gate_case_pictures_are_refused_where_an_input_would_be_overwritten(capsys, inputs, tmp_path):
    (inputs / "cases").mkdir()
    moved = inputs / "cases" / "quill-guide.dot"
    shutil.move(str(inputs / "sources" / "quill-guide.md"), str(moved))
    manifest = json.loads((inputs / "manifest.json").read_text(encoding="utf-8"))
    for entry in manifest["sources"]:
        if entry["source_id"] == "quill-guide":
            entry["path"] = "cases/quill-guide.dot"
    (inputs / "manifest.json").write_text(json.dumps(manifest), encoding="utf-8")
    before = snapshot(inputs)
    code, _, err = cli(
        capsys, "gate", "--manifest", str(inputs / "manifest.json"), "--cases", str(inputs / "cases.json"),
        "--output", str(inputs / "r.json"), "--pictures",
    )  # fmt: skip
    assert code == 2 and "cannot write case pictures into" in err and "source quill-guide" in err
    assert snapshot(inputs) == before
