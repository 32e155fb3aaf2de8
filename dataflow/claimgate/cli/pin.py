"""``claimgate pin`` and ``claimgate verify``: write a manifest from files, check every pin of one.

The rules live in :mod:`claimgate.gate.pinning` (see docs/gate-rules.md, "Pinning");
this module parses the options and prints what was done.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from claimgate.cli.command_list import HELP
from claimgate.cli.error_lines import print_error
from claimgate.cli.options import Command, Once, add_max_source_bytes, check_max_source_bytes
from claimgate.cli.project import check_manifest_schema, resolve_options, schema_sha256
from claimgate.cli.terminal import text_table
from claimgate.errors import ClaimgateError, UsageError
from claimgate.gate.pin_folders import folder_files, versions_from_path
from claimgate.gate.pinning import HASH_PREFIX, SOURCE_ID_MODES, pinned_manifest
from claimgate.gate.schema import load_schema
from claimgate.gate.verifying import verify_manifest
from claimgate.io.sources import read_manifest

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
        "files",
        nargs="*",
        metavar="PATH",
        help="documentation files or folders to pin (folders recursively; default: the project file's docs)",
    )
    parser.add_argument(
        DOC_VERSION,
        OLD_DOC_VERSION,
        dest="version",
        action=DocVersion,
        default=None,
        metavar="V",
        help=f"the documentation version these files are (a string; {OLD_DOC_VERSION} is the old spelling)",
    )
    parser.add_argument(
        "--version-from-path",
        metavar="PATTERN",
        help="each file's version from its path, e.g. 'docs/{version}/**' (relative to the project or current folder)",
    )
    parser.add_argument("--glob", metavar="PATTERN", help="files of each folder to pin (default: .md .rst .txt .html)")
    parser.add_argument("--exclude", action="append", default=[], metavar="PATTERN", help="leave matching files out")
    parser.add_argument(
        "--update", action="store_true", help="re-pin what changed and drop entries whose file is gone (reported)"
    )
    parser.add_argument("--output", help="manifest.json to create or update (default: the project file's manifest)")
    parser.add_argument("--project", help="claimgate.toml to read (default: ./claimgate.toml when present)")
    parser.add_argument(
        "--url-template",
        help="url of each entry, with plain {source_id}, {version}, {path}, {stem} (no attribute, index, "
        "conversion or format spec; default: the relative path; a re-pinned entry keeps its url unless this is given)",
    )
    parser.add_argument(
        "--source-id",
        choices=SOURCE_ID_MODES,
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


def _pin_plan(args: argparse.Namespace) -> tuple[list[str], str | dict, str, str | None, str | None]:
    """``(files, version or {file: version}, manifest, schema, url template)`` from the options and the project file."""
    resolved = resolve_options(args)
    project = resolved.project
    output = args.output or resolved.manifest
    if output is None:
        raise UsageError("--output is required (or a claimgate.toml naming a manifest)")
    glob = args.glob or (project.glob if project else None)
    exclude = tuple(args.exclude) or (project.exclude if project else ())
    paths = list(args.files) or list(project.docs if project else ())
    recorded: dict[str, str] = {}
    if args.update and Path(output).exists():
        root = Path(output).resolve().parent
        recorded = {str(root / e["path"]): e["version"] for e in read_manifest(output)["sources"]}
        if not paths:
            paths = [file for file in recorded if Path(file).exists()]
    if not paths:
        raise UsageError("no FILE or folder to pin (give PATH… or a claimgate.toml with docs)")
    files = folder_files(paths, glob, exclude)
    if not files:
        raise UsageError(f"no file to pin in {', '.join(paths)} (see --glob, --exclude)")
    pattern = args.version_from_path or (project.version_from_path if project else None)
    if args.version is not None and args.version_from_path:
        raise UsageError("give --doc-version or --version-from-path, not both")
    if args.version is not None:
        version: str | dict = args.version
    elif pattern:
        version = versions_from_path(files, pattern, project.root if project else ".")
    elif recorded and all(str(Path(f).resolve()) in recorded for f in files):
        version = {f: recorded[str(Path(f).resolve())] for f in files}
    else:
        raise UsageError("--doc-version or --version-from-path is required (for a file not pinned yet)")
    url_template = args.url_template or (project.url_template if project else None)
    args.source_id = args.source_id or (project.source_id if project else None) or "stem"
    return files, version, output, resolved.schema, url_template


def run_pin(args: argparse.Namespace) -> int:
    """Pin ``PATH…`` at ``--doc-version`` (or ``--version-from-path``) into ``--output``.

    Prints the added, re-pinned, unchanged (with ``--update``, removed) entries. Given as ``--version``
    (the old spelling), the run is the same and a completed run adds ``OLD_SPELLING_NOTE`` on stderr; a
    refusal names the option as it was given.
    """
    check_max_source_bytes(args)
    spelling = getattr(args, "doc_version_spelling", DOC_VERSION)
    try:
        files, version, output, schema, url_template = _pin_plan(args)
        report = pinned_manifest(
            files,
            version,
            output,
            source_id=args.source_id,
            url_template=url_template,
            max_source_bytes=args.max_source_bytes,
            versions=load_schema(schema).versions if schema else None,
            schema_sha256=schema_sha256(schema) if schema else None,
            remove_missing=args.update,
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
    rows += [["removed", e["source_id"], e["version"], e["path"], e["sha256"][:HASH_PREFIX]] for e in report.removed]
    print(text_table(rows, ["pin", "source_id", "version", "path", "sha256"]))
    counts = f"{len(report.added)} added, {len(report.repinned)} re-pinned, {len(report.unchanged)} unchanged"
    if args.update:
        counts += f", {len(report.removed)} removed"
    verb = "wrote" if report.written else "left unchanged"
    print(f"{verb} {output}: {counts} ({len(report.sources)} sources in all)")
    return 0


def add_verify_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--manifest", help="manifest.json whose pins to check (default: the project file's)")
    parser.add_argument("--schema", help="claim schema TOML: say when the manifest was pinned with another one")
    parser.add_argument("--project", help="claimgate.toml to read (default: ./claimgate.toml when present)")
    add_max_source_bytes(parser)


def run_verify(args: argparse.Namespace) -> int:
    """Check every pin of ``--manifest``: 0 when all hold, else one line per problem on stderr and 3."""
    check_max_source_bytes(args)
    resolved = resolve_options(args, needs=("manifest",))
    args.manifest = resolved.manifest
    if resolved.schema is not None and not args.quiet:
        check_manifest_schema(args.manifest, resolved.schema)
    report = verify_manifest(args.manifest, args.max_source_bytes)
    if report.problems:
        for problem in report.problems:
            print_error(problem.one_line())
        print_error(f"{len(report.problems)} problem(s) in {args.manifest} ({report.checked} pins checked)")
        return EXIT_REFUSED
    if not args.quiet:
        print(f"all {report.checked} pins of {args.manifest} hold")
    return 0


PIN = Command("pin", HELP["pin"], add_pin_arguments, run_pin)
VERIFY = Command("verify", HELP["verify"], add_verify_arguments, run_verify)
