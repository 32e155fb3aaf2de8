"""The commands of ``claimgate``, as data: each one's name, the module that holds it, and its one-line help.

Why: ``claimgate --help`` lists every command and ``claimgate recheck`` needs only its own module; keeping
the list here (no import of any command module) lets ``cli.main`` import just the command that runs, so
a command does not pay for the others' dependencies (pandas, Hamilton, …) at start-up. Each command
module takes its help from here (``HELP``), so the text has one home.
"""

from __future__ import annotations

from typing import NamedTuple


class CommandEntry(NamedTuple):
    """A command's ``name``, its ``module`` (dotted), the ``attribute`` holding its ``Command``, its ``help``."""

    name: str
    module: str
    attribute: str
    help: str


#: Every command, in the order ``--help`` lists them.
COMMAND_LIST = (
    CommandEntry(
        "demo",
        "claimgate.cli.demo",
        "COMMAND",
        "the teaching run on the shipped fixtures (what run_pipeline.py alone runs)",
    ),
    CommandEntry(
        "pin",
        "claimgate.cli.pin",
        "PIN",
        "pin documentation files into a manifest (create, add, re-pin)",
    ),
    CommandEntry(
        "verify",
        "claimgate.cli.pin",
        "VERIFY",
        "check every pin of a manifest and report every problem",
    ),
    CommandEntry(
        "lint",
        "claimgate.cli.lint",
        "COMMAND",
        "check every pinned page's directives; list problems, conflicts and gaps",
    ),
    CommandEntry(
        "gate",
        "claimgate.cli.gate",
        "COMMAND",
        "run the contract gate over a manifest and a case table",
    ),
    CommandEntry(
        "audit",
        "claimgate.cli.audit",
        "COMMAND",
        "audit cited quotes against a corpus or a manifest",
    ),
    CommandEntry(
        "answer",
        "claimgate.cli.answer",
        "COMMAND",
        "audit a whole generated answer claim by claim; accept or refuse it",
    ),
    CommandEntry(
        "recheck",
        "claimgate.cli.recheck",
        "COMMAND",
        "recheck a ledger against the documents as they are now",
    ),
)
#: ``{command name: entry}``.
ENTRIES = {entry.name: entry for entry in COMMAND_LIST}
#: ``{command name: one-line help}``: what each command module passes to its ``Command``.
HELP = {entry.name: entry.help for entry in COMMAND_LIST}
