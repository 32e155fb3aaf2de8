"""claimgate command line: ``claimgate COMMAND [options]`` (or ``python run_pipeline.py …`` in a checkout).

    claimgate                 this overview (``python run_pipeline.py`` alone runs ``demo``, the main job)
    claimgate --version       the installed package's version
    claimgate demo            the teaching run on the shipped fixtures
    claimgate pin FILE… --doc-version V --output manifest.json [--url-template T] [--source-id stem|path]
    claimgate verify --manifest M
    claimgate lint  [--manifest M] [--schema S] [--strict] [--format text|json|junit]
    claimgate gate  --manifest M --cases C --output O [--schema S] [--executor …]
    claimgate audit (--corpus J | --corpus-dir D | --manifest M) --citations C --output O [--judge mod:fn]
    claimgate answer (--corpus J | --corpus-dir D | --manifest M) --answer A --output O [--documents D]
    claimgate recheck --ledger L.jsonl (--corpus J | --corpus-dir D | --manifest M) --output O [--fail-on invalid]

``-`` as a case or citation table reads standard input, as ``--output`` writes JSON Lines to
standard output (``cli.stdio``).

Options may stand before or after the command: the command's name is taken out of
the arguments wherever it is and the rest is parsed by that command's own parser, so
an option the command does not have is a usage error, never silently ignored.

``--manifest``, ``--schema`` (and ``pin``'s folders) may come from a project file,
``claimgate.toml`` in the current folder or ``--project F`` (docs/using-your-docs.md).

Exit status: 0 when the run completed (whatever the statuses), 1 when ``--fail-on`` (``audit``,
``answer``, ``gate``) named a verdict or status that occurred, 2 for a usage error,
3 when an input was refused (one line on stderr: ``error: <Kind>: <reason>: <detail>``;
``--debug`` adds the traceback), 4 when the executor failed (a worker or the Dask scheduler
lost: ``error: ExecutionError: worker_lost|scheduler_lost: <detail>``) or the process ran out of
memory (``out_of_memory``); nothing written.
No model is called unless ``--judge`` names one.
"""

from __future__ import annotations

import importlib
import os
import sys
import traceback
from collections.abc import Iterator, Mapping
from pathlib import Path

import claimgate  # noqa: F401  (telemetry variable first)
from claimgate.cli.command_list import ENTRIES
from claimgate.cli.error_lines import print_error
from claimgate.cli.options import Command, command_parser, value_options
from claimgate.errors import ClaimgateError, ExecutionError, UsageError
from claimgate.execution.hamilton_logs import quiet_hamilton_logs
from claimgate.io.console import safe_console
from claimgate.runtime import rows_ahead, signals

EXIT_OK, EXIT_USAGE, EXIT_REFUSED = 0, 2, 3
#: A worker or the Dask scheduler was lost during the run, or this process ran out of memory
#: (``ExecutionError``); nothing was written.
EXIT_EXECUTOR_FAILED = 4
OUT_OF_MEMORY = "this process ran out of memory; nothing was written (raise the memory limit, or use smaller inputs)"


class LazyCommands(Mapping):
    """``{name: Command}`` of every command (``cli.command_list``), a command's module imported when it is looked up.

    Names, order and help are data (``cli.command_list.ENTRIES``), so listing the commands imports none of
    them; ``COMMANDS["audit"]`` imports ``claimgate.cli.audit`` (and what it needs) on first use.
    """

    def __getitem__(self, name: str) -> Command:
        entry = ENTRIES[name]
        return getattr(importlib.import_module(entry.module), entry.attribute)

    def __iter__(self) -> Iterator[str]:
        return iter(ENTRIES)

    def __len__(self) -> int:
        return len(ENTRIES)

    def __contains__(self, name: object) -> bool:
        return name in ENTRIES


#: Every command, in the order ``--help`` lists them; ``demo`` runs when none is named but options are given
#: (and for ``run_pipeline.py`` alone); a bare ``claimgate`` prints the overview.
COMMANDS = LazyCommands()
DEFAULT_COMMAND = "demo"


def package_version() -> str:
    """The installed distribution's version (``importlib.metadata``); ``claimgate.__version__`` in a bare checkout."""
    import importlib.metadata  # only for --version (about 45 ms of start-up otherwise)

    try:
        return importlib.metadata.version("claimgate")
    except importlib.metadata.PackageNotFoundError:  # run_pipeline.py from a checkout that was never installed
        return claimgate.__version__


def program_name() -> str:
    """``run_pipeline.py`` when started through that script, else ``claimgate``."""
    return "run_pipeline.py" if Path(sys.argv[0]).name == "run_pipeline.py" else "claimgate"


def split_command(argv: list[str], takes_value: set[str]) -> tuple[str | None, list[str]]:
    """``(command name or None, the other arguments)``: the first argument that is not an option or its value.

    Raises ``UsageError`` when that argument is not a command's name.
    """
    skip = False
    for position, token in enumerate(argv):
        if skip:
            skip = False
        elif token == "--":
            break
        elif token.startswith("-") and token != "-":
            skip = "=" not in token and token in takes_value
        elif token in COMMANDS:
            return token, argv[:position] + argv[position + 1 :]
        else:
            raise UsageError(f"unknown command {token!r} (choose from {', '.join(COMMANDS)})")
    return None, argv


def options_can_decide(argv: list[str]) -> bool:
    """Whether ``split_command``'s answer for ``argv`` can depend on which options take a value.

    It cannot when the first argument that is not an option with ``=`` is no option (the command's
    name, an unknown word, ``-`` or ``--``), or when every argument is an option: then ``main`` needs no
    command's parser to find the command, and imports only the one that runs.
    """
    for position, token in enumerate(argv):
        if token == "--" or token == "-" or not token.startswith("-"):
            return False
        if "=" not in token:
            return any(t == "-" or not t.startswith("-") for t in argv[position + 1 :])
    return False


def overview(prog: str) -> str:
    """``claimgate --help``: the commands, one line each."""
    lines = [
        f"usage: {prog} [COMMAND] [options]   ({prog} --version: the program's version)",
        "",
        "claimgate: evidence gates for documentation assistants (no model is called by default).",
        "",
        "commands:",
    ]
    lines += [f"  {name:<8}{entry.help}" for name, entry in ENTRIES.items()]
    lines += [
        "",
        f"`{prog}` alone {'runs `demo`' if prog == 'run_pipeline.py' else 'prints this overview'}; "
        "options without a command run `demo`.",
        f"`{prog} COMMAND --help` lists a command's options; options may stand before or after the command.",
        "`-` as a case or citation table reads standard input, as --output writes JSON Lines to standard output.",
        "",
        "Exit status: 0 run completed, 1 a --fail-on verdict or status occurred (audit, answer, gate, recheck)",
        "or lint found a problem, 2 usage error, 3 input refused,",
        "4 executor failed (a worker or the Dask scheduler lost; nothing written);",
        "130 / 143 / 129 Ctrl-C / SIGTERM / SIGHUP.",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` (default ``sys.argv[1:]``), run the command, return the exit status.

    Ctrl-C, SIGTERM and SIGHUP give 130, 143 and 129 with one line on stderr wherever they land once the
    handlers are installed: while the command runs, and while its parser and module are being loaded.
    The SIGTERM/SIGHUP handlers that were there before are put back when it returns
    (``runtime.signals.restore_termination_handlers``): a caller running a command in its own process
    keeps its own.
    """
    safe_console()  # a character the terminal cannot show is printed as an escape, never a crash
    rows_ahead.no_blas_threads()  # before numpy is imported: the command does no linear algebra
    signals.install_termination_handlers()  # SIGTERM/SIGHUP clean up like Ctrl-C
    try:
        return _parsed_and_run(argv)
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP: 130, 143, 129
        return signals.interrupted_status(exc)
    finally:
        signals.restore_termination_handlers()


def _parsed_and_run(argv: list[str] | None) -> int:
    """``main`` after the handlers are installed: parse, run, map errors to exit statuses."""
    argv = list(sys.argv[1:] if argv is None else argv)
    prog = program_name()
    if not argv and prog != "run_pipeline.py":  # a bare `claimgate` writes nothing: `claimgate demo` does
        print(overview(prog))
        return EXIT_OK
    # Every command's parser (so every command's module) only when options before the command need them.
    takes_value = (
        value_options([command_parser(prog, command) for command in COMMANDS.values()])
        if options_can_decide(argv)
        else set()
    )
    try:
        name, rest = split_command(argv, takes_value)
    except UsageError as exc:
        print(f"usage: {prog} [COMMAND] [options]", file=sys.stderr)
        print_error(str(exc))
        return EXIT_USAGE
    if name is None and any(token in ("-h", "--help") for token in rest):
        print(overview(prog))
        return EXIT_OK
    if name is None and "--version" in rest:  # `pin --version V` is pin's old spelling of --doc-version
        print(f"claimgate {package_version()}")
        return EXIT_OK
    name = name or DEFAULT_COMMAND
    parser = command_parser(prog, COMMANDS[name])
    args = parser.parse_args(rest)  # exits 2 on a usage error
    args.command = name
    quiet_hamilton_logs(args.debug)
    try:
        return COMMANDS[name].run(args)
    except UsageError as exc:
        parser.print_short_usage()
        print_error(str(exc))
        return EXIT_USAGE
    except BrokenPipeError:  # stdout closed early (`| head`): the output file is already complete
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except ClaimgateError as exc:
        if args.debug:
            traceback.print_exc()
        print_error(exc.one_line())
        return EXIT_EXECUTOR_FAILED if isinstance(exc, ExecutionError) else EXIT_REFUSED
    except MemoryError:  # a memory limit (ulimit -v, a container's) or the machine's: the stack is unwound by now
        if args.debug:
            traceback.print_exc()
        print_error(ExecutionError("out_of_memory", OUT_OF_MEMORY).one_line())
        return EXIT_EXECUTOR_FAILED


if __name__ == "__main__":
    sys.exit(main())
