"""``claimgate lint``: every pinned page's directives checked, every problem listed, the contract table.

The rules live in :mod:`claimgate.gate.lint` (docs/gate-rules.md, "Lint"); this module
reads the manifest (every pin verified first, as the gate does), and prints the report
as text (default), JSON (``--format json``) or JUnit XML (``--format junit``) for CI.
Exit status: 0 clean, 1 a directive problem or a conflict (a gap, or no directive at all, too with ``--strict``),
2 usage, 3 an input refused (a stale pin, an invalid schema).
"""

from __future__ import annotations

import argparse
import json
from xml.sax.saxutils import escape, quoteattr

from claimgate.cli.command_list import HELP
from claimgate.cli.options import Command, add_max_source_bytes, add_schema, check_max_source_bytes
from claimgate.cli.project import announce_schema, resolve_options
from claimgate.cli.terminal import printable, text_table
from claimgate.gate.lint import LintReport, lint_sources
from claimgate.gate.schema import load_schema
from claimgate.io.pinned_sources import load_manifest, verified_sources

FORMATS = ("text", "json", "junit")
#: Silent pages a row of the text table names; the rest are counted (``--format json`` lists every one), so
#: a key most pages of a big docs folder leave out stays one readable row.
SILENT_NAMED = 3


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--manifest", help="manifest.json whose pages to lint (default: the project file's)")
    add_schema(parser)
    parser.add_argument("--project", help="claimgate.toml to read (default: ./claimgate.toml when present)")
    parser.add_argument(
        "--strict",
        action="store_true",
        help="exit 1 on a gap too (a key some pages are silent on), and when no page declares anything",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="text (default), json or junit (XML)")
    add_max_source_bytes(parser)


def _values(contract: dict) -> str:
    return ", ".join(f"{c['source_id']}={c['value']}" for c in contract["declared_by"])


def _some(pages: list[str]) -> str:
    """The first :data:`SILENT_NAMED` of ``pages``, and how many more there are."""
    more = len(pages) - SILENT_NAMED
    return ", ".join(pages[:SILENT_NAMED]) + (f" and {more} more (--format json lists them)" if more > 0 else "")


def text_report(report: LintReport, strict: bool) -> str:
    """The text form: one ``path:line: reason: detail`` line per problem, then the contract table and a summary."""
    lines = [
        printable(f"{p['path']}:{p['line']}: {p['reason']}: {p['detail']}") for p in report.problems.to_dict("records")
    ]
    rows = []
    for c in report.contracts.to_dict("records"):
        marks = [m for m, on in (("CONFLICT", c["conflict"]), ("gap", c["gap"])) if on]
        silent = f" (silent: {_some(c['silent'])})" if c["silent"] else ""
        rows.append([c["version"], c["operation"], c["claim_key"], _values(c) + silent, " ".join(marks) or "ok"])
    if rows:
        lines += ["", text_table(rows, ["version", "operation", "key", "declared by", "state"])]
    if report.declares_nothing:
        lines += [
            printable(
                f"no directive in any of the {report.pages} page(s) (prefix {report.prefix}): the gate would answer "
                f"not_in_docs for every key{' (fails: --strict)' if strict else ''}"
            )
        ]
    verdict = "fails" if report.exit_status(strict) else "passes"
    lines += [
        "",
        f"lint {verdict}: {len(report.problems)} directive problem(s), {report.conflicts} conflict(s), "
        f"{report.gaps} gap(s){' (gaps fail: --strict)' if strict else ''}",
    ]
    return "\n".join(lines)


def json_report(report: LintReport, strict: bool) -> str:
    """``{"problems": [...], "contracts": [...], "summary": {...}}``, sorted keys, ASCII-escaped."""
    document = {
        "problems": report.problems.to_dict("records"),
        "contracts": report.contracts.to_dict("records"),
        "summary": {
            "problems": len(report.problems),
            "conflicts": report.conflicts,
            "gaps": report.gaps,
            "pages": report.pages,
            "declares_nothing": report.declares_nothing,
            "strict": strict,
            "exit_status": report.exit_status(strict),
        },
    }
    return json.dumps(document, sort_keys=True, indent=2)


def junit_report(report: LintReport, strict: bool) -> str:
    """JUnit XML: one ``testcase`` per problem and per contract row (failed: a conflict, or a gap with ``strict``)."""
    cases = []
    for p in report.problems.to_dict("records"):
        where = f"{p['path']}:{p['line']}"
        cases.append(
            f"  <testcase classname={quoteattr('directives')} name={quoteattr(where)}>"
            f"<failure type={quoteattr(p['reason'])} message={quoteattr(p['detail'])}>"
            f"{escape(where + ': ' + p['reason'])}</failure></testcase>"
        )
    for c in report.contracts.to_dict("records"):
        name = f"{c['version']} {c['operation']}.{c['claim_key']}"
        failure = ""
        if c["conflict"]:
            failure = f'<failure type="conflict" message={quoteattr(_values(c))}/>'
        elif c["gap"] and strict:
            failure = f'<failure type="gap" message={quoteattr("silent: " + ", ".join(c["silent"]))}/>'
        cases.append(f"  <testcase classname={quoteattr('contracts')} name={quoteattr(name)}>{failure}</testcase>")
    if report.declares_nothing:  # the text form's note, as a test case (failed with ``strict``, as the exit is)
        failure = f'<failure type="no_directive" message={quoteattr(f"prefix {report.prefix}")}/>' if strict else ""
        cases.append(
            f"  <testcase classname={quoteattr('contracts')} name={quoteattr('any directive')}>{failure}</testcase>"
        )
    failures = sum("<failure" in case for case in cases)
    head = f'<testsuite name="claimgate lint" tests="{len(cases)}" failures="{failures}" errors="0">'
    return "\n".join(['<?xml version="1.0" encoding="UTF-8"?>', head, *cases, "</testsuite>"])


def run(args: argparse.Namespace) -> int:
    """Lint ``--manifest`` with ``--schema`` (or the project file's); print the report; return 0 or 1."""
    check_max_source_bytes(args)
    options = resolve_options(args, needs=("manifest",))
    schema = load_schema(options.schema)
    announce_schema(options, args.quiet)
    sources = verified_sources(load_manifest(options.manifest), args.max_source_bytes)
    report = lint_sources(sources, schema)
    form = {"text": text_report, "json": json_report, "junit": junit_report}[args.format]
    if not (args.quiet and args.format == "text"):
        print(form(report, args.strict))
    return report.exit_status(args.strict)


COMMAND = Command("lint", HELP["lint"], add_arguments, run)
