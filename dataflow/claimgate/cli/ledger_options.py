"""``--ledger FILE.jsonl`` of ``audit``, ``answer`` and ``gate`` (docs/recheck-rules.md, "The ledger")."""

from __future__ import annotations

import argparse
from pathlib import Path

from claimgate.errors import UsageError


def add_ledger_option(parser: argparse.ArgumentParser) -> None:
    """``--ledger FILE.jsonl``: append what each row relied on (docs/recheck-rules.md, "The ledger")."""
    parser.add_argument(
        "--ledger",
        metavar="FILE.jsonl",
        help="append one row per result to this ledger, for a later `claimgate recheck`",
    )


def ledger_paths(args: argparse.Namespace) -> list[Path]:
    """``[--ledger]`` when given (it must end in ``.jsonl``), else ``[]``: checked like any output, and an
    existing file checked to be a ledger before any work (``io.ledger_append.check_appendable``: exit 3)."""
    if getattr(args, "ledger", None) is None:
        return []
    if not args.ledger.lower().endswith(".jsonl"):
        raise UsageError("--ledger must end in .jsonl")
    from claimgate.io.ledger_append import check_appendable

    check_appendable(args.ledger)
    return [Path(args.ledger)]
