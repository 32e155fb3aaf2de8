"""The ``claimgate`` command line: commands, options on either side of the command, and small mendings.

An option means the same before or after the command; one the command does not have is a usage error
(exit 2), never silently ignored; ``demo`` is the default run.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest
from claimgate.cli.main import COMMANDS, split_command
from claimgate.cli.options import command_parser, value_options
from claimgate.cli.terminal import clipped
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import FIXTURES, cli, run_cli

GOLDEN = Path(__file__).resolve().parent.parent / "golden" / "expected"
LUMEN = FIXTURES / "second_schema"
LUMEN_GATE = ["--manifest", str(LUMEN / "manifest.json"), "--cases", str(LUMEN / "cases.json")]


@pytest.mark.parametrize(
    "before, after",
    [
        (["--schema", str(LUMEN / "lumen_schema.toml")], []),
        ([], ["--schema", str(LUMEN / "lumen_schema.toml")]),
        ([f"--schema={LUMEN / 'lumen_schema.toml'}", "--quiet"], []),
        (["--quiet", *LUMEN_GATE, "--schema", str(LUMEN / "lumen_schema.toml")], []),
    ],
    ids=["schema-before", "schema-after", "equals-form-before", "everything-before"],
)
def test_an_option_before_the_command_means_what_it_means_after(tmp_path, capsys, before, after):
    out = tmp_path / "second.json"
    rest = [] if "--manifest" in before else LUMEN_GATE
    code, _, err = cli(capsys, *before, "gate", *rest, "--output", str(out), "--quiet", *after)
    assert code == 0, err
    assert out.read_bytes() == (GOLDEN / "second.json").read_bytes()


def _sample_value(action) -> str:
    if action.choices:
        return str(list(action.choices)[-1])
    return "7" if action.type is int else "sample.json"


def _every_option():
    for name, command in COMMANDS.items():
        parser = command_parser("claimgate", command)
        for action in parser._actions:
            if action.option_strings and action.dest != "help":
                yield pytest.param(name, parser, action, id=f"{name}{action.option_strings[0]}")


def _required_arguments(parser, action) -> list[str]:
    """Arguments the parser needs besides ``action``: required options, one of each required group, FILE."""
    arguments = []
    for other in parser._actions:
        if other is action or not other.required:
            continue
        arguments += [other.option_strings[0], _sample_value(other)] if other.option_strings else ["page.md"]
    for group in parser._mutually_exclusive_groups:
        if group.required and action not in group._group_actions:
            first = group._group_actions[0]
            arguments += [first.option_strings[0], _sample_value(first)]
    return arguments


@pytest.mark.parametrize("name, parser, action", list(_every_option()))
def test_every_option_of_every_command_parses_the_same_before_and_after_it(name, parser, action):
    given = [action.option_strings[0]] + ([] if action.nargs == 0 else [_sample_value(action)])
    required = _required_arguments(parser, action)
    takes_value = value_options([command_parser("claimgate", c) for c in COMMANDS.values()])
    parsed = []
    for argv in ([*given, name, *required], [name, *required, *given]):
        command, rest = split_command(argv, takes_value)
        assert command == name
        parsed.append(vars(parser.parse_args(rest)))
    assert parsed[0] == parsed[1]
    expected = True if action.nargs == 0 else (action.type or str)(given[1])
    if isinstance(action, argparse._AppendAction):  # a repeatable option (--glob, --exclude) collects a list
        expected = [expected]
    assert parsed[0][action.dest] == expected


def test_a_limit_given_before_the_command_is_applied(tmp_path, capsys):
    args = ["--max-source-bytes", "10", "gate", *LUMEN_GATE, "--output", str(tmp_path / "r.json")]
    code, _, err = cli(capsys, *args)
    assert code == 3 and "source_too_large" in err and not (tmp_path / "r.json").exists()


@pytest.mark.parametrize(
    "args, unrecognized",
    [
        (["--min-tokens", "3", "gate", *LUMEN_GATE, "--output", "r.json"], "--min-tokens 3"),
        (["gate", *LUMEN_GATE, "--output", "r.json", "--corpus", "c.json"], "--corpus c.json"),
        (["--cases", "c.json", "verify", "--manifest", "m.json"], "--cases c.json"),
        (["--pictures"], "--pictures"),  # a gate option given to the default run
    ],
    ids=["audit-option-before-gate", "audit-option-after-gate", "cases-before-verify", "gate-flag-to-demo"],
)
def test_an_option_the_command_lacks_is_a_usage_error_not_ignored(tmp_path, capsys, monkeypatch, args, unrecognized):
    monkeypatch.chdir(tmp_path)
    code, out, err = cli(capsys, *args)
    assert code == 2 and err.splitlines()[-1].endswith(f"unrecognized arguments: {unrecognized}")
    assert list(tmp_path.iterdir()) == []


def test_a_value_option_given_twice_with_different_values_is_a_usage_error(tmp_path, capsys):
    schema = str(LUMEN / "lumen_schema.toml")
    args = ["--schema", schema, "gate", *LUMEN_GATE, "--output", str(tmp_path / "r.json"), "--schema", "other.toml"]
    code, _, err = cli(capsys, *args)
    assert code == 2 and "--schema given twice" in err and not (tmp_path / "r.json").exists()


def test_the_same_value_given_twice_is_accepted(tmp_path, capsys):
    schema = str(LUMEN / "lumen_schema.toml")
    args = ["--schema", schema, "gate", *LUMEN_GATE, "--output", str(tmp_path / "r.json"), "--schema", schema]
    assert cli(capsys, *args, "--quiet")[0] == 0


def test_an_unknown_command_is_named(capsys):
    code, _, err = cli(capsys, "--quiet", "frobnicate")
    assert code == 2 and "unknown command 'frobnicate'" in err


def test_a_command_name_given_as_an_option_value_is_not_the_command():
    assert split_command(["--output", "pin", "gate", "--x"], {"--output"}) == ("gate", ["--output", "pin", "--x"])
    assert split_command(["--quiet"], {"--output"}) == (None, ["--quiet"])


def test_help_lists_every_command(capsys):
    code, out, _ = cli(capsys, "--help")
    assert code == 0
    for name in ("demo", "pin", "verify", "lint", "gate", "audit"):
        assert f"  {name}" in out
    assert list(COMMANDS) == ["demo", "pin", "verify", "lint", "gate", "audit", "answer", "recheck"]


@pytest.mark.parametrize("command", [[], ["demo"]], ids=["no-command", "demo"])
def test_demo_is_the_default_run(tmp_path, capsys, command):
    out = tmp_path / "gate_result.json"
    code, _, err = cli(capsys, *command, "--output", str(out), "--no-pictures", "--quiet")
    assert code == 0, err
    assert out.read_bytes() == (GOLDEN / "default_gate_result.json").read_bytes()


# ----------------------------------------------------------------------------- --judge from the current folder

JUDGE_MODULE = """
def judge(system, user):
    return '{"reasoning": "local module", "verdict": "supports", "confidence": 0.9}'
"""


def _audit_args(out: Path) -> list[str]:
    demo = FIXTURES / "audit"
    return ["audit", "--corpus", str(demo / "corpus.json"), "--citations", str(demo / "citations.jsonl"),
            "--output", str(out), "--judge", "my_local_judge:judge", "--quiet"]  # fmt: skip


def test_judge_module_in_the_current_folder_is_imported_by_the_script(tmp_path):
    (tmp_path / "my_local_judge.py").write_text(JUDGE_MODULE)
    done = run_cli(*_audit_args(tmp_path / "a.jsonl"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert '"local module"' in (tmp_path / "a.jsonl").read_text()


def test_judge_module_in_the_current_folder_is_imported_by_the_console_command(tmp_path):
    command = Path(sys.executable).parent / "claimgate"
    if not command.exists():
        pytest.skip("the claimgate console command is not installed in this environment")
    (tmp_path / "my_local_judge.py").write_text(JUDGE_MODULE)
    done = subprocess.run(
        [str(command), *_audit_args(tmp_path / "a.jsonl")], cwd=tmp_path, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert '"local module"' in (tmp_path / "a.jsonl").read_text()


# ----------------------------------------------------------------------------- the terminal table


def test_refusal_detail_is_clipped_at_a_word_boundary_with_an_ellipsis():
    detail = "quill-malformed:3: '@quill create_copy existing_path = refuse' is not @quill <operation> <key>=<value>"
    assert clipped(detail, 72) == "quill-malformed:3: '@quill create_copy existing_path = refuse' is not…"


def test_a_single_long_word_is_cut_inside_it():
    assert clipped("x" * 100, 10) == "x" * 9 + "…"


@given(st.text(alphabet="ab ", max_size=120), st.integers(min_value=2, max_value=80))
def test_clipped_detail_is_a_prefix_ending_at_a_word_boundary(text, width):
    shown = clipped(text, width)
    assert len(shown) <= width
    if shown == text:
        return
    assert shown.endswith("…")
    kept = shown[:-1]
    assert text.startswith(kept)
    if text[: width - 1].rfind(" ") > 0:
        assert text[len(kept)] == " "  # the cut fell between words
    else:
        assert kept == text[: width - 1].rstrip()  # one long first word: no boundary to cut at


def test_the_gate_table_prints_whole_words(tmp_path):
    done = run_cli("--output", str(tmp_path / "g.json"), "--no-pictures")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("malformed-directive"))
    assert row.endswith("is not…")
