"""Start-up: ``claimgate COMMAND`` imports only that command's module; ``--help`` lists every command as data.

The command list (``cli.command_list``) names each command's module and help, so the overview and a
command's own ``--help`` import no other command, and neither pandas nor Hamilton unless the command
needs them. Finding the command needs the other commands' parsers only when an option stands before it.
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from claimgate.cli.command_list import COMMAND_LIST, HELP
from claimgate.cli.main import COMMANDS, options_can_decide, split_command
from claimgate.cli.options import command_parser, value_options
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import ROOT, cli

#: Modules a light command must not import at start-up.
HEAVY = ("pandas", "hamilton", "numpy", "pyarrow")


def modules_after(*argv: str) -> set[str]:
    """The modules loaded once ``claimgate ARGV`` has run (in a fresh interpreter)."""
    code = (
        "import sys, json\nfrom claimgate.cli.main import main\n"
        "try:\n    main(sys.argv[1:])\nexcept SystemExit:\n    pass\n"
        "sys.stdout = sys.__stdout__\nprint('\\n' + json.dumps(sorted(sys.modules)))"
    )
    done = subprocess.run([sys.executable, "-c", code, *argv], capture_output=True, text=True, cwd=ROOT, timeout=120)
    return set(json.loads(done.stdout.splitlines()[-1]))


def heavy_in(modules: set[str]) -> list[str]:
    return sorted(m for m in modules if m.split(".")[0] in HEAVY)


def test_every_command_takes_its_help_from_the_command_list():
    assert list(COMMANDS) == [entry.name for entry in COMMAND_LIST]
    for entry in COMMAND_LIST:
        command = COMMANDS[entry.name]
        assert (command.name, command.help) == (entry.name, entry.help) == (entry.name, HELP[entry.name])


def test_the_overview_lists_every_command_with_its_help(capsys):
    code, out, _ = cli(capsys, "--help")
    assert code == 0
    for entry in COMMAND_LIST:
        assert f"  {entry.name:<8}{entry.help}" in out.splitlines()


@pytest.mark.parametrize("argv", [["--help"], ["recheck", "--help"], [], ["--version"]], ids=str)
def test_help_and_recheck_import_neither_pandas_nor_hamilton(argv):
    modules = modules_after(*argv)
    assert heavy_in(modules) == []
    assert "claimgate.cli.audit" not in modules or argv[:1] == ["recheck"]  # recheck shares audit's options


def test_recheck_help_imports_no_other_command():
    modules = modules_after("recheck", "--help")
    others = {e.module for e in COMMAND_LIST if e.name not in ("recheck", "audit")}  # options shared with audit
    assert sorted(others & modules) == []


def test_an_option_before_the_command_still_finds_it():
    modules = modules_after("--quiet", "recheck", "--help")
    assert "claimgate.cli.recheck" in modules  # every parser was built to tell values from the command


def test_debug_shows_refusals_after_the_drivers_module_is_imported_late():
    from claimgate.execution import hamilton_logs

    hamilton_logs.quiet_hamilton_logs(debug=True)
    try:
        hamilton_logs.quiet_refusals()  # what importing execution.drivers does
        assert hamilton_logs.RefusalFilter.show is True
    finally:
        hamilton_logs.quiet_hamilton_logs(debug=False)


WORDS = st.sampled_from(["audit", "recheck", "gate", "x.json", "-", "--", "--quiet", "--schema", "--output", "--a=b"])


@given(st.lists(WORDS, max_size=6))
def test_the_command_is_found_without_parsers_whenever_options_cannot_decide(argv):
    every = value_options([command_parser("claimgate", c) for c in COMMANDS.values()])

    def outcome(takes_value):
        try:
            return split_command(list(argv), takes_value)
        except Exception as exc:  # UsageError: the same refusal either way
            return str(exc)

    if not options_can_decide(argv):
        assert outcome(set()) == outcome(every)


SIGNALLED = [("Terminated", 143, "SIGTERM"), ("KeyboardInterrupt", 130, "SIGINT")]


@pytest.mark.parametrize("raised, status, name", SIGNALLED)
def test_a_signal_while_the_commands_parser_loads_ends_with_one_line(monkeypatch, capsys, raised, status, name):
    import signal

    from claimgate.cli import main as cli_main
    from claimgate.runtime import signals

    interrupt = signals.Terminated(signal.SIGTERM) if raised == "Terminated" else KeyboardInterrupt()

    def loading(*args):
        raise interrupt  # where a signal lands while the command's module is imported

    monkeypatch.setattr(cli_main, "command_parser", loading)
    try:
        code, out, err = cli(capsys, "recheck", "--help")
    finally:
        signals.disarm_exit_deadline()
    assert code == status
    assert err.strip().splitlines() == [f"error: interrupted by {name}; no partial output was left"]
