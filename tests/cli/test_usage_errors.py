"""A usage error is two lines on stderr: the command's short usage, then ``error: <reason>``, exit 2.

Both kinds are covered: argparse's own (a missing or unknown option, a bad choice) and the commands'
``UsageError`` (a refused output extension), for every command, so the reason is never buried under the
whole usage block (``--help`` still prints that block).
"""

from __future__ import annotations

import pytest
from claimgate.cli.command_list import ENTRIES
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ..helpers import cli


def _two_lines(err: str, command: str) -> str:
    lines = err.splitlines()
    assert len(lines) == 2, err
    assert lines[0] == f"usage: claimgate {command} [options]   (claimgate {command} --help lists them)"
    assert lines[1].startswith("error: ")
    return lines[1]


@pytest.mark.parametrize("command", sorted(ENTRIES))
def test_an_unknown_option_is_two_lines_for_every_command(capsys, command):
    code, out, err = cli(capsys, command, "--no-such-option-here")
    assert code == 2 and out == ""
    reason = _two_lines(err, command)
    # argparse names missing required options before unknown ones; either way the reason is the one line
    assert reason == "error: unrecognized arguments: --no-such-option-here" or reason.startswith(
        "error: the following arguments are required: --"
    )


def test_missing_required_options_are_named_in_the_error_line(capsys):
    code, _, err = cli(capsys, "audit")
    assert code == 2
    reason = _two_lines(err, "audit")
    assert "--citations" in reason and "--output" in reason


def test_a_bad_choice_names_the_choices(capsys, tmp_path):
    code, _, err = cli(capsys, "audit", "--citations", "c.jsonl", "--output", "o.jsonl", "--executor", "threads")
    assert code == 2
    assert "'threads'" in _two_lines(err, "audit") and "multiprocessing" in err


def test_a_command_usage_error_is_two_lines_too(capsys, tmp_path):
    code, _, err = cli(
        capsys, "audit", "--corpus", "c.json", "--citations", "c.jsonl", "--output", str(tmp_path / "o.txt")
    )
    assert code == 2
    assert _two_lines(err, "audit") == "error: --output must end in .jsonl, .json, .csv, .parquet"


def test_help_still_prints_the_whole_usage_block(capsys):
    code, out, _ = cli(capsys, "audit", "--help")
    assert code == 0 and out.startswith("usage: claimgate audit [-h]") and "--citations" in out


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(alphabet=st.characters(min_codepoint=0, max_codepoint=0x2FFF), min_size=1, max_size=20))
def test_an_unknown_value_is_escaped_in_the_error_line(capsys, value):
    code, _, err = cli(capsys, "audit", "--citations", "c.jsonl", "--output", "o.jsonl", "--executor", value)
    assert code == 2
    reason = _two_lines(err, "audit")
    assert all(ch.isprintable() for ch in reason)
