"""What a build needs from ``audit``, ``answer`` and ``gate``: ``--fail-on`` (exit 1) and ``--summary`` (counts, rates).

Exit status 1 means the run completed and a row had a verdict named by ``--fail-on``; it is
distinct from 2 (usage) and 3 (an input was refused). The summary file is deterministic JSON:
``{"rows": n, "verdicts": {v: {"count", "rate"}}, "reasons": {r: {"count", "rate"}}}`` with
rates rounded to 6 places (0 when there is no row), keys in first-seen order.
"""

from __future__ import annotations

import argparse
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from claimgate.errors import UsageError
from claimgate.io.writers import write_json

EXIT_FAILED_ON = 1


def add_ci_options(parser: argparse.ArgumentParser, what: str, choices: Iterable[str], report: bool = True) -> None:
    """``--fail-on V,…`` (choices ``choices``), ``--summary FILE.json`` and (with ``report``) ``--report FILE.html``."""
    listed = ", ".join(choices)
    parser.add_argument(
        "--fail-on",
        metavar="VERDICT,...",
        help=f"exit 1 when any {what} has one of these (comma-separated: {listed}); "
        "1 is distinct from 2 (usage) and 3 (input refused)",
    )
    parser.add_argument(
        "--summary", metavar="FILE.json", help="write counts and rates per verdict and per reason as JSON"
    )
    if report:
        parser.add_argument(
            "--report", metavar="FILE.html", help="write a self-contained review page (no network access) for a person"
        )


def fail_on_set(value: str | None, choices: Iterable[str]) -> frozenset[str]:
    """The verdicts of ``--fail-on`` (empty when not given); a usage error for an unknown one."""
    if not value:
        return frozenset()
    wanted = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in wanted if v not in set(choices)]
    if unknown or not wanted:
        raise UsageError(
            f"--fail-on: unknown verdict {', '.join(unknown) or repr(value)} (choose from {', '.join(choices)})"
        )
    return frozenset(wanted)


def check_ci_outputs(args: argparse.Namespace) -> list[Path]:
    """The summary and report paths given (checked for their suffix: ``.json``, ``.html``)."""
    paths = []
    if args.summary:
        if not args.summary.lower().endswith(".json"):
            raise UsageError("--summary must end in .json")
        paths.append(Path(args.summary))
    if getattr(args, "report", None):
        if not args.report.lower().endswith((".html", ".htm")):
            raise UsageError("--report must end in .html")
        paths.append(Path(args.report))
    return paths


def counts_and_rates(counts: dict[str, int], total: int) -> dict:
    """``{value: {"count": n, "rate": n / total}}`` in the order of ``counts`` (rate 0 when ``total`` is 0)."""
    return {v: {"count": int(n), "rate": round(int(n) / total, 6) if total else 0} for v, n in counts.items()}


def summary(verdicts: list[str], reasons: list[str], **extra: object) -> dict:
    """The summary document of rows with these ``verdicts`` and ``reasons`` (and ``extra`` fields first)."""
    return counted_summary(Counter(verdicts), Counter(reasons), len(verdicts), **extra)


def counted_summary(verdicts: dict[str, int], reasons: dict[str, int], rows: int, **extra: object) -> dict:
    """The summary document from counts already made (``{verdict: n}``, ``{reason: n}``) over ``rows`` rows."""
    by_verdict, by_reason = counts_and_rates(verdicts, rows), counts_and_rates(reasons, rows)
    return {**extra, "rows": rows, "verdicts": by_verdict, "reasons": by_reason}


def write_summary(path: str | Path, document: dict) -> None:
    """Write the summary atomically as deterministic JSON."""
    write_json(path, document)


def exit_status(verdicts: Iterable[str], fail_on: frozenset[str]) -> int:
    """``EXIT_FAILED_ON`` when any verdict is in ``fail_on``, else 0."""
    return EXIT_FAILED_ON if any(v in fail_on for v in verdicts) else 0
