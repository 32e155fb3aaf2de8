"""Options shared by the commands, and the small record each command module declares.

Every command has one ``argparse`` parser holding all of its options; ``main.py``
takes the command's name out of the argument list wherever it stands, so an option
means the same before or after it (``claimgate --schema S gate …`` is
``claimgate gate --schema S …``) and an option the command does not have is a usage
error, never silently dropped. A value option given twice with different values is
a usage error too (``Once``).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

from claimgate.errors import UsageError
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.io.sources import DEFAULT_MAX_CORPUS_BYTES, DEFAULT_MAX_SOURCE_BYTES


@dataclass(frozen=True)
class Command:
    """A sub-command: its ``name``, one-line ``help``, how it adds its options, and what runs it.

    ``run(args)`` returns the exit status; it raises ``UsageError`` (exit 2) or a
    ``ClaimgateError`` (exit 3, one line), which ``main`` reports.
    """

    name: str
    help: str
    add_arguments: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


class Once(argparse.Action):
    """``store``, refusing the same option twice with different values (``--schema a … --schema b``)."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        given = namespace.__dict__.setdefault("_given", {})
        if self.dest in given and given[self.dest] != values:
            parser.error(f"{option_string} given twice ({given[self.dest]!r} and {values!r})")
        given[self.dest] = values
        setattr(namespace, self.dest, values)


def command_parser(prog: str, command: Command) -> argparse.ArgumentParser:
    """The parser of one command, with the options every command has (``--quiet``, ``--debug``)."""
    parser = argparse.ArgumentParser(
        prog=f"{prog} {command.name}",
        description=command.help,
        epilog="Exit status: 0 run completed, 1 a --fail-on verdict occurred (audit, answer, gate), 2 usage error, "
        "3 input refused; 130, 143, 129 stopped by a signal.",
        allow_abbrev=False,  # an abbreviation would hide which option was meant before the command
    )
    parser.register("action", None, Once)
    parser.register("action", "store", Once)
    parser.add_argument("--quiet", action="store_true", help="no progress bar and no table")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and Hamilton's logs")
    command.add_arguments(parser)
    return parser


def value_options(parsers: list[argparse.ArgumentParser]) -> set[str]:
    """Every option string (``--schema``) that takes a value in any of ``parsers``."""
    # argparse has no public listing of a parser's options; its option table is stable since 3.2.
    return {
        option for parser in parsers for option, action in parser._option_string_actions.items() if action.nargs != 0
    }


def add_schema(parser: argparse.ArgumentParser) -> None:
    """``--schema``: the claim schema TOML (default Quill's, shipped with the package)."""
    parser.add_argument("--schema", help="claim schema TOML (default Quill's)")


def add_max_source_bytes(parser: argparse.ArgumentParser) -> None:
    """``--max-source-bytes N``: refuse a pinned file larger than N bytes."""
    parser.add_argument(
        "--max-source-bytes",
        type=int,
        default=DEFAULT_MAX_SOURCE_BYTES,
        metavar="N",
        help="refuse a source file, or a document of a corpus, larger than N bytes (default 16 MiB)",
    )


def add_max_corpus_bytes(parser: argparse.ArgumentParser) -> None:
    """``--max-corpus-bytes N``: refuse a corpus file, or a manifest's sources together, larger than N bytes."""
    parser.add_argument(
        "--max-corpus-bytes",
        type=int,
        default=DEFAULT_MAX_CORPUS_BYTES,
        metavar="N",
        help="refuse a corpus file, or a manifest's sources together, larger than N bytes (default 64 MiB)",
    )


def add_execution(parser: argparse.ArgumentParser) -> None:
    """Size limits, ``--executor``, ``--scheduler``, ``--partition-rows`` (gate and audit)."""
    add_max_source_bytes(parser)
    add_max_corpus_bytes(parser)
    parser.add_argument(
        "--executor",
        choices=drivers.EXECUTORS,
        default="local",
        help="Hamilton executor for partitions of the table (default local)",
    )
    parser.add_argument("--scheduler", help="Dask scheduler (tcp://host:8786) or Ray address; default: a local cluster")
    parser.add_argument(
        "--partition-rows",
        type=int,
        default=10_000,
        metavar="N",
        help="rows per partition when --executor is not local",
    )


def check_max_source_bytes(args: argparse.Namespace) -> None:
    """Refuse ``--max-source-bytes`` below 1 (a usage error)."""
    if args.max_source_bytes < 1:
        raise UsageError("--max-source-bytes must be at least 1")


def check_execution_options(args: argparse.Namespace) -> None:
    """Refuse, as usage errors, options that cannot mean anything.

    An executor that is unknown or not installed, ``--scheduler`` with the local
    executor, a partition size or a source size limit below 1.
    """
    try:
        drivers.check_executor(args.executor)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.partition_rows < 1:
        raise UsageError("--partition-rows must be at least 1")
    if args.scheduler and args.executor not in ("dask", "ray"):
        raise UsageError("--scheduler needs --executor dask or ray")
    check_max_source_bytes(args)
    if args.max_corpus_bytes < 1:
        raise UsageError("--max-corpus-bytes must be at least 1")


def progress_enabled(args: argparse.Namespace) -> bool:
    """A progress bar only for a person at a terminal, and never with ``--quiet``."""
    return not args.quiet and sys.stderr.isatty()


def run_settings(args: argparse.Namespace) -> RunSettings:
    """The one ``RunSettings`` of a gate or audit command, built once from its checked options.

    Size limits, executor, scheduler, partition rows, a progress bar (``progress_enabled``);
    the executor's own logging only with ``--debug``.
    """
    return RunSettings(
        executor=args.executor,
        scheduler=args.scheduler,
        partition_rows=args.partition_rows,
        progress=progress_enabled(args),
        quiet=not getattr(args, "debug", False),
        max_source_bytes=args.max_source_bytes,
        max_corpus_bytes=args.max_corpus_bytes,
    )
