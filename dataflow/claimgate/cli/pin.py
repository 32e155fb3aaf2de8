"""``claimgate pin`` and ``claimgate verify``: write a manifest from files, check every pin of one.

The rules live in :mod:`claimgate.gate.pinning` (see docs/gate-rules.md, "Pinning");
this module parses the options and prints what was done.
"""

from __future__ import annotations

import argparse

from claimgate.cli.error_lines import print_error
from claimgate.cli.options import Command, add_max_source_bytes, check_max_source_bytes
from claimgate.cli.terminal import text_table
from claimgate.gate.pinning import HASH_PREFIX, SOURCE_ID_MODES, pinned_manifest, verify_manifest
from claimgate.gate.schema import load_schema

EXIT_REFUSED = 3


def add_pin_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="documentation files to pin (never the --output manifest)"
    )
    parser.add_argument("--version", required=True, help="the documentation version these files are (a string)")
    parser.add_argument("--output", required=True, help="manifest.json to create or update")
    parser.add_argument(
        "--url-template",
        help="url of each entry, with plain {source_id}, {version}, {path}, {stem} (no attribute, index, "
        "conversion or format spec; default: the relative path; a re-pinned entry keeps its url unless this is given)",
    )
    parser.add_argument(
        "--source-id",
        choices=SOURCE_ID_MODES,
        default="stem",
        help="source_id from the file name without extension (stem, default) or the relative path (path)",
    )
    parser.add_argument("--schema", help="claim schema TOML whose version scheme --version must follow (optional)")
    add_max_source_bytes(parser)


def _changed_fields(old: dict, new: dict) -> str:
    """``version``, ``url`` or ``version and url``: what a re-pin with the same bytes changed."""
    return " and ".join(f for f in ("version", "url") if old[f] != new[f])


def run_pin(args: argparse.Namespace) -> int:
    """Pin ``FILE…`` at ``--version`` into ``--output``; print added / re-pinned / unchanged entries."""
    check_max_source_bytes(args)
    report = pinned_manifest(
        args.files,
        args.version,
        args.output,
        source_id=args.source_id,
        url_template=args.url_template,
        max_source_bytes=args.max_source_bytes,
        versions=load_schema(args.schema).versions if args.schema else None,
    )
    if args.quiet:
        return 0
    rows = [["added", e["source_id"], e["version"], e["path"], e["sha256"][:HASH_PREFIX]] for e in report.added]
    rows += [
        [
            "re-pinned",
            new["source_id"],
            new["version"] if new["version"] == old["version"] else f"{old['version']} -> {new['version']}",
            new["path"],
            f"{old['sha256'][:HASH_PREFIX]}… -> {new['sha256'][:HASH_PREFIX]}…"
            if new["sha256"] != old["sha256"]
            else f"{new['sha256'][:HASH_PREFIX]} (same bytes; {_changed_fields(old, new)} changed)",
        ]
        for old, new in report.repinned
    ]
    rows += [
        ["unchanged", e["source_id"], e["version"], e["path"], e["sha256"][:HASH_PREFIX]] for e in report.unchanged
    ]
    print(text_table(rows, ["pin", "source_id", "version", "path", "sha256"]))
    counts = f"{len(report.added)} added, {len(report.repinned)} re-pinned, {len(report.unchanged)} unchanged"
    verb = "wrote" if report.written else "left unchanged"
    print(f"{verb} {args.output}: {counts} ({len(report.sources)} sources in all)")
    return 0


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--manifest", required=True, help="manifest.json whose pins to check")
    add_max_source_bytes(parser)


def run_verify(args: argparse.Namespace) -> int:
    """Check every pin of ``--manifest``: 0 when all hold, else one line per problem on stderr and 3."""
    check_max_source_bytes(args)
    report = verify_manifest(args.manifest, args.max_source_bytes)
    if report.problems:
        for problem in report.problems:
            print_error(problem.one_line())
        print_error(f"{len(report.problems)} problem(s) in {args.manifest} ({report.checked} pins checked)")
        return EXIT_REFUSED
    if not args.quiet:
        print(f"all {report.checked} pins of {args.manifest} hold")
    return 0


PIN = Command("pin", "pin documentation files into a manifest (create, add, re-pin)", add_pin_arguments, run_pin)
VERIFY = Command("verify", "check every pin of a manifest and report every problem", add_verify_arguments, run_verify)
