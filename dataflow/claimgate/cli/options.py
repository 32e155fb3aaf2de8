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
import contextlib
import importlib
import os
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from claimgate.cli.error_lines import print_error
from claimgate.errors import UsageError
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


class Repeated(argparse.Action):
    """A repeatable value option: ``dest`` holds the last value given, ``<dest>_all`` every value in order."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        setattr(namespace, self.dest, values)
        setattr(namespace, f"{self.dest}_all", [*getattr(namespace, f"{self.dest}_all", []), values])


class CommandParser(argparse.ArgumentParser):
    """A command's parser whose usage errors are two lines: a short usage line, then ``error: <reason>``.

    argparse's own ``error`` prints the whole usage block (twenty lines for ``audit``) and then
    ``<prog>: error: <reason>``; the reason was lost at the bottom of the block. Here the first line
    names the command and where its options are listed (``--help``), the second is the reason, escaped
    as every error line is (``print_error``), and the exit status stays 2.
    """

    def short_usage(self) -> str:
        """``usage: <prog> [options]   (<prog> --help lists them)``: one line."""
        return f"usage: {self.prog} [options]   ({self.prog} --help lists them)"

    def print_short_usage(self, file=None) -> None:
        """Print :meth:`short_usage` on ``file`` (stderr by default)."""
        print(self.short_usage(), file=file or sys.stderr)

    def error(self, message: str):
        """Print the short usage and ``error: message`` on stderr, and exit 2 (argparse's contract)."""
        self.print_short_usage()
        print_error(message)
        self.exit(2)


def command_parser(prog: str, command: Command) -> CommandParser:
    """The parser of one command, with the options every command has (``--quiet``, ``--debug``)."""
    parser = CommandParser(
        prog=f"{prog} {command.name}",
        description=command.help,
        epilog="Exit status: 0 run completed, 1 a --fail-on verdict or status occurred (audit, answer, gate, "
        "recheck) or lint found a problem, 2 usage error, 3 input refused; 130, 143, 129 stopped by a signal.",
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
    from claimgate.execution.executors import EXECUTORS  # the executors' module only for the commands that run one

    add_max_source_bytes(parser)
    add_max_corpus_bytes(parser)
    parser.add_argument(
        "--executor",
        choices=EXECUTORS,
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
    parser.add_argument(
        "--adapter",
        action=Repeated,
        metavar="MODULE:OBJECT",
        help="a Hamilton lifecycle adapter to attach (an object, or a class called with no arguments); "
        "repeatable; a module in the current folder is found too",
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
    from claimgate.execution.executors import check_executor

    try:
        check_executor(args.executor)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.partition_rows < 1:
        raise UsageError("--partition-rows must be at least 1")
    if args.scheduler and args.executor not in ("dask", "ray"):
        raise UsageError("--scheduler needs --executor dask or ray")
    check_max_source_bytes(args)
    if args.max_corpus_bytes < 1:
        raise UsageError("--max-corpus-bytes must be at least 1")


@contextlib.contextmanager
def current_folder_importable() -> Iterator[None]:
    """Let ``--judge mymodule:fn`` import ``mymodule.py`` from the current folder.

    ``python -m`` and ``python script.py`` put a folder on ``sys.path`` but the
    installed ``claimgate`` command puts only its own; the current folder is added
    for the import, *after* the installed packages so a file there never shadows one.
    """
    folder = os.getcwd()
    added = folder not in sys.path and "" not in sys.path
    if added:
        sys.path.append(folder)
        importlib.invalidate_caches()  # the module file may be newer than the import system's listing
    try:
        yield
    finally:
        if added and folder in sys.path:
            sys.path.remove(folder)


def load_adapter(spec: str) -> object:
    """The lifecycle adapter ``--adapter MODULE:OBJECT`` names: the object, or an instance of the class.

    ``OBJECT`` may be dotted (``module:Class.attribute``); a class is called with no arguments. Raises
    ``UsageError`` (one line) when the spec is malformed, the module cannot be imported (whatever it
    raises), the attribute is missing, the class cannot be built without arguments, or the object is not
    a watching Hamilton lifecycle adapter (``execution.adapters.adapter_problem``).
    """
    from claimgate.execution.adapters import adapter_problem  # Hamilton's lifecycle types, only when one is given

    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise UsageError(f"--adapter must look like package.module:object, got {spec!r}")
    try:
        with current_folder_importable():
            target: object = importlib.import_module(module_name)
    except Exception as exc:  # ImportError, or whatever the module's own code raised: one line
        raise UsageError(f"--adapter {spec}: cannot import {module_name!r}: {type(exc).__name__}: {exc}") from None
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise UsageError(f"--adapter {spec}: {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if isinstance(target, type):
        try:
            target = target()
        except Exception as exc:
            raise UsageError(f"--adapter {spec}: {attribute}() failed: {type(exc).__name__}: {exc}") from None
    problem = adapter_problem(target)
    if problem:
        raise UsageError(f"--adapter {spec}: {problem}")
    return target


def progress_enabled(args: argparse.Namespace) -> bool:
    """A progress bar only for a person at a terminal, and never with ``--quiet``."""
    return not args.quiet and sys.stderr.isatty()


def run_settings(args: argparse.Namespace) -> RunSettings:
    """The one ``RunSettings`` of a gate or audit command, built once from its checked options.

    Size limits, executor, scheduler, partition rows, a progress bar (``progress_enabled``);
    the executor's own logging only with ``--debug``; the ``--adapter`` objects (``load_adapter``); a row
    helper unless ``--single-process`` (a command without that option gets none).
    """
    return RunSettings(
        executor=args.executor,
        scheduler=args.scheduler,
        partition_rows=args.partition_rows,
        progress=progress_enabled(args),
        quiet=not getattr(args, "debug", False),
        max_source_bytes=args.max_source_bytes,
        max_corpus_bytes=args.max_corpus_bytes,
        adapters=tuple(load_adapter(spec) for spec in getattr(args, "adapter_all", [])),
        row_helper=not getattr(args, "single_process", True),
    )
