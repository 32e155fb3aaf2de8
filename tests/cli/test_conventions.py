"""Command-line conventions: ``--version``, a bare ``claimgate`` that only prints help, ``-`` for standard
input and output, and ``pin --doc-version`` (``pin --version`` still works, with a note).
"""

from __future__ import annotations

import importlib.metadata
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from claimgate.cli import stdio
from claimgate.cli.main import package_version
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import FIXTURES, ROOT, cli, run_cli

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "expected"
MANIFEST = ["--manifest", str(FIXTURES / "manifest.json")]
AUDIT = FIXTURES / "audit"


def _stdin(monkeypatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


# ----------------------------------------------------------------------------- --version


@pytest.mark.parametrize("argv", [["--version"], ["--quiet", "--version"], ["--version", "--debug"]])
def test_version_prints_the_installed_package_version(capsys, argv):
    code, out, err = cli(capsys, *argv)
    assert code == 0 and err == ""
    assert out == f"claimgate {importlib.metadata.version('claimgate')}\n"


def test_version_through_the_script_and_the_module(tmp_path):
    expected = f"claimgate {package_version()}"
    assert run_cli("--version", cwd=tmp_path).stdout.strip() == expected
    done = subprocess.run(
        [sys.executable, "-m", "claimgate", "--version"], capture_output=True, text=True, cwd=tmp_path
    )
    assert done.returncode == 0 and done.stdout.strip() == expected
    assert list(tmp_path.iterdir()) == []


def test_version_falls_back_to_the_package_attribute_when_not_installed(monkeypatch):
    import claimgate

    def missing(name):
        raise importlib.metadata.PackageNotFoundError(name)

    monkeypatch.setattr(importlib.metadata, "version", missing)
    assert package_version() == claimgate.__version__


# ----------------------------------------------------------------------------- a bare claimgate


def test_a_bare_claimgate_prints_help_and_writes_nothing(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys)
    assert code == 0 and err == ""
    assert out.startswith("usage: claimgate [COMMAND] [options]")
    assert "prints this overview" in out and "  demo" in out
    assert list(tmp_path.iterdir()) == []


def test_a_bare_python_m_claimgate_writes_nothing(tmp_path):
    done = subprocess.run([sys.executable, "-m", "claimgate"], capture_output=True, text=True, cwd=tmp_path)
    assert done.returncode == 0 and "usage: claimgate" in done.stdout
    assert list(tmp_path.iterdir()) == []


def test_a_bare_run_pipeline_still_runs_the_main_job(tmp_path):
    done = subprocess.run(
        [sys.executable, str(ROOT / "run_pipeline.py")], capture_output=True, text=True, cwd=tmp_path, timeout=600
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "output" / "gate_result.json").read_bytes() == (GOLDEN / "default_gate_result.json").read_bytes()


# ----------------------------------------------------------------------------- - for standard input and output


@pytest.mark.parametrize("name", ["cases.json", "cases.jsonl", "cases.csv"])
def test_gate_reads_the_case_table_from_stdin_in_each_format(tmp_path, capsys, monkeypatch, name):
    source = tmp_path / name
    rows = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
    if name == "cases.json":
        source.write_bytes((FIXTURES / "cases.json").read_bytes())
    elif name == "cases.jsonl":
        source.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    else:
        lines = ["case_id,candidate_ids,requested_version,claim_key,operation"]
        lines += [
            f"{r['case_id']},{';'.join(r['candidate_ids'])},{r['requested_version']},{r['claim_key']},"
            f"{r.get('operation', '')}"
            for r in rows
            if isinstance(r["requested_version"], str) and isinstance(r["candidate_ids"], list)
        ]
        source.write_text("\n".join(lines) + "\n", encoding="utf-8")
    from_file = tmp_path / "file.jsonl"
    assert cli(capsys, "gate", *MANIFEST, "--cases", str(source), "--output", str(from_file), "--quiet")[0] == 0
    _stdin(monkeypatch, source.read_bytes())
    from_stdin = tmp_path / "stdin.jsonl"
    code, _, err = cli(capsys, "gate", *MANIFEST, "--cases", "-", "--output", str(from_stdin), "--quiet")
    assert code == 0, err
    assert from_stdin.read_bytes() == from_file.read_bytes()


def test_gate_writes_jsonl_to_stdout_and_its_lines_to_stderr(tmp_path, capsys):
    expected = tmp_path / "file.jsonl"
    gate = ["gate", *MANIFEST, "--cases", str(FIXTURES / "cases.json")]
    assert cli(capsys, *gate, "--output", str(expected), "--quiet")[0] == 0
    code, out, err = cli(capsys, *gate, "--output", "-")
    assert code == 0, err
    assert out.encode("utf-8") == expected.read_bytes()
    assert "wrote standard output" in err and "decided_at" in err  # the summary table went to stderr
    assert not (tmp_path / "-").exists()


def test_stdin_to_stdout_is_a_pipe(tmp_path, capsys):
    expected = tmp_path / "file.jsonl"
    gate = ["gate", *MANIFEST, "--cases", str(FIXTURES / "cases.json"), "--output", str(expected), "--quiet"]
    assert cli(capsys, *gate)[0] == 0
    work = tmp_path / "work"
    work.mkdir()
    done = subprocess.run(
        [sys.executable, str(ROOT / "run_pipeline.py"), "gate", *MANIFEST, "--cases", "-", "--output", "-"],
        input=(FIXTURES / "cases.json").read_bytes(),
        capture_output=True,
        cwd=work,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == expected.read_bytes()
    assert list(work.iterdir()) == []


def test_a_refused_stdin_table_prints_nothing_on_stdout(tmp_path, capsys, monkeypatch):
    _stdin(monkeypatch, b'{"case_id": "a"}\nnot json\n')
    code, out, err = cli(capsys, "gate", *MANIFEST, "--cases", "-", "--output", "-")
    assert code == 3 and out == ""
    assert err.splitlines() == ["error: IngestionError: invalid_case_table: stdin.jsonl line 2: Expecting value"]


def test_pictures_with_stdout_is_a_usage_error(capsys):
    code, out, err = cli(capsys, "gate", *MANIFEST, "--cases", "-", "--output", "-", "--pictures")
    assert code == 2 and out == ""
    assert err.splitlines()[-1] == "error: --pictures needs an --output file (the pictures go beside it), not -"


def test_audit_reads_citations_from_stdin_and_writes_stdout(tmp_path, capsys, monkeypatch):
    corpus = ["audit", "--corpus", str(AUDIT / "corpus.json")]
    expected = tmp_path / "a.jsonl"
    assert cli(capsys, *corpus, "--citations", str(AUDIT / "citations.jsonl"), "--output", str(expected))[0] == 0
    _stdin(monkeypatch, (AUDIT / "citations.jsonl").read_bytes())
    code, out, err = cli(capsys, *corpus, "--citations", "-", "--output", "-")
    assert code == 0, err
    assert out.encode("utf-8") == expected.read_bytes()
    assert "wrote standard output" in err and "rejected for free" in err


@pytest.mark.parametrize(
    "head, suffix",
    [
        (b"PAR1\x15\x04", ".parquet"),
        (b"[{", ".json"),
        (b"\xef\xbb\xbf  \n[", ".json"),
        (b'{"case_id"', ".jsonl"),
        (b"\n\n{", ".jsonl"),
        (b"", ".jsonl"),
        (b"case_id,candidate_ids", ".csv"),
        (b"\xef\xbb\xbfcase_id", ".csv"),
    ],
)
def test_the_format_of_standard_input_is_told_by_its_first_bytes(head, suffix):
    assert stdio.table_suffix(head) == suffix


@given(st.binary(max_size=64))
def test_every_stream_gets_one_of_the_table_formats(head):
    assert stdio.table_suffix(head) in (".parquet", ".json", ".jsonl", ".csv")


def test_spooled_input_keeps_every_byte_of_a_stream_given_a_few_bytes_at_a_time(tmp_path):
    data = b"PAR1" + bytes(range(256)) * 9000

    class Trickle(io.RawIOBase):
        def __init__(self):
            self.left = data

        def readable(self):
            return True

        def readinto(self, buffer):
            n = min(len(buffer), 3 if len(self.left) > len(data) - 8 else len(buffer), len(self.left))
            buffer[:n], self.left = self.left[:n], self.left[n:]
            return n

    path = stdio.spooled_input(tmp_path, "stdin", Trickle())
    assert path.name == "stdin.parquet" and path.read_bytes() == data


# ----------------------------------------------------------------------------- pin --doc-version


@pytest.fixture
def page(tmp_path, monkeypatch) -> Path:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "guide.md").write_bytes(b"# Guide\n@quill create_copy existing_path=refuse\n")
    return tmp_path


def test_pin_doc_version_writes_the_same_manifest_as_the_old_spelling_without_a_note(page, capsys):
    code, _, err = cli(capsys, "pin", "guide.md", "--doc-version", "1.0", "--output", "new.json")
    assert code == 0 and err == ""
    code, _, err = cli(capsys, "pin", "guide.md", "--version", "1.0", "--output", "old.json")
    assert code == 0
    assert err.splitlines() == [
        "note: `pin --version` is now spelled `pin --doc-version` (`claimgate --version` prints the program's "
        "version); the old spelling still works"
    ]
    assert (page / "new.json").read_bytes() == (page / "old.json").read_bytes()


def test_doc_version_before_the_command_is_pins_option(page, capsys):
    code, _, err = cli(capsys, "--doc-version", "2.0", "pin", "guide.md", "--output", "m.json", "--quiet")
    assert code == 0, err
    assert json.loads((page / "m.json").read_text())["sources"][0]["version"] == "2.0"


def test_both_spellings_with_different_values_is_a_usage_error(page, capsys):
    code, _, err = cli(capsys, "pin", "guide.md", "--doc-version", "1.0", "--version", "2.0", "--output", "m.json")
    assert code == 2 and "given twice" in err
    assert not (page / "m.json").exists()


@pytest.mark.parametrize(
    "version, message",
    [
        (" ", "error: --doc-version must be a non-empty string"),
        (
            " 1.0",
            "error: IngestionError: invalid_source_version: --doc-version ' 1.0' has white space before or after it",
        ),
    ],
)
def test_a_refusal_names_the_option_as_it_was_given(page, capsys, version, message):
    code, _, err = cli(capsys, "pin", "guide.md", "--doc-version", version, "--output", "m.json")
    assert code in (2, 3) and err.splitlines()[-1] == message
    assert not (page / "m.json").exists()


def test_pin_without_a_doc_version_names_the_new_spelling(page, capsys):
    code, _, err = cli(capsys, "pin", "guide.md", "--output", "m.json")
    # A version may also come from --version-from-path or the manifest (pin --update): the usage error names both.
    assert code == 2 and "--doc-version or --version-from-path is required" in err
