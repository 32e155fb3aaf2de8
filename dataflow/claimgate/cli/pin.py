"""``claimgate pin`` and ``claimgate verify``: write a manifest from files, check every pin of one.

The rules live in :mod:`claimgate.gate.pinning` (see docs/gate-rules.md, "Pinning");
this module parses the options and prints what was done.
"""

from __future__ import annotations

import argparse
import sys

from claimgate.cli.options import Command, Once, add_max_source_bytes, check_max_source_bytes
from claimgate.cli.terminal import text_table
from claimgate.errors import ClaimgateError, UsageError
from claimgate.gate.pinning import HASH_PREFIX, SOURCE_ID_MODES, pinned_manifest, verify_manifest
from claimgate.gate.schema import load_schema

EXIT_REFUSED = 3
#: ``pin``'s option for the documentation's version, and its old spelling (still accepted, with a note):
#: ``--version`` alone is the program's version (``claimgate --version``).
DOC_VERSION, OLD_DOC_VERSION = "--doc-version", "--version"
OLD_SPELLING_NOTE = (
    f"note: `pin {OLD_DOC_VERSION}` is now spelled `pin {DOC_VERSION}` "
    f"(`claimgate {OLD_DOC_VERSION}` prints the program's version); the old spelling still works"
)


class DocVersion(Once):
    """``--doc-version`` (or ``--version``): ``Once``, remembering which spelling was given."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:
        super().__call__(parser, namespace, values, option_string)
        namespace.doc_version_spelling = option_string


def add_pin_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "files", nargs="+", metavar="FILE", help="documentation files to pin (never the --output manifest)"
    )
    parser.add_argument(
        DOC_VERSION,
        OLD_DOC_VERSION,
        dest="version",
        action=DocVersion,
        required=True,
        metavar="V",
        help=f"the documentation version these files are (a string; {OLD_DOC_VERSION} is the old spelling)",
    )
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
    parser.add_argument("--schema", help=f"claim schema TOML whose version scheme {DOC_VERSION} must follow (optional)")
    add_max_source_bytes(parser)


def _changed_fields(old: dict, new: dict) -> str:
    """``version``, ``url`` or ``version and url``: what a re-pin with the same bytes changed."""
    return " and ".join(f for f in ("version", "url") if old[f] != new[f])


def _spelled_as_given(exc: Exception, spelling: str) -> Exception:
    """``exc`` with the pinning rules' ``--version`` at the start of its message in the spelling the user gave."""
    if spelling == OLD_DOC_VERSION:
        return exc
    if isinstance(exc, ClaimgateError) and exc.detail.startswith(OLD_DOC_VERSION + " "):
        return type(exc)(exc.reason, spelling + exc.detail.removeprefix(OLD_DOC_VERSION))
    if isinstance(exc, UsageError) and str(exc).startswith(OLD_DOC_VERSION + " "):
        return UsageError(spelling + str(exc).removeprefix(OLD_DOC_VERSION))
    return exc


def run_pin(args: argparse.Namespace) -> int:
    """Pin ``FILE…`` at ``--doc-version`` into ``--output``; print added / re-pinned / unchanged entries.

    Given as ``--version`` (the old spelling), the run is the same and a completed run adds
    ``OLD_SPELLING_NOTE`` on stderr (a refusal keeps its one line there). A refusal's message names the
    option as it was given.
    """
    check_max_source_bytes(args)
    spelling = getattr(args, "doc_version_spelling", DOC_VERSION)
    try:
        report = pinned_manifest(
            args.files,
            args.version,
            args.output,
            source_id=args.source_id,
            url_template=args.url_template,
            max_source_bytes=args.max_source_bytes,
            versions=load_schema(args.schema).versions if args.schema else None,
        )
    except (ClaimgateError, UsageError) as exc:
        raise _spelled_as_given(exc, spelling) from None
    if spelling == OLD_DOC_VERSION:
        print(OLD_SPELLING_NOTE, file=sys.stderr)
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
            print(f"error: {problem.one_line()}", file=sys.stderr)
        print(
            f"error: {len(report.problems)} problem(s) in {args.manifest} ({report.checked} pins checked)",
            file=sys.stderr,
        )
        return EXIT_REFUSED
    if not args.quiet:
        print(f"all {report.checked} pins of {args.manifest} hold")
    return 0


PIN = Command("pin", "pin documentation files into a manifest (create, add, re-pin)", add_pin_arguments, run_pin)
VERIFY = Command("verify", "check every pin of a manifest and report every problem", add_verify_arguments, run_verify)
