"""``claimgate recheck``: which ledger rows still hold against the documents as they are now.

Rules: docs/recheck-rules.md. Writes one row per ledger row (``.jsonl`` or ``.json``), and with
``--summary``/``--report`` the same summary and review page conventions as ``audit``.
"""

from __future__ import annotations

import argparse
import json
from collections import Counter
from pathlib import Path

from claimgate.audit.recheck_statuses import row_reason
from claimgate.cli.audit import add_document_options, document_inputs, documents_of, resolve_documents
from claimgate.cli.ci import add_ci_options, check_ci_outputs, exit_status, fail_on_set, summary, write_summary
from claimgate.cli.command_list import HELP
from claimgate.cli.options import Command, add_schema
from claimgate.errors import UsageError
from claimgate.io.atomic import check_outputs
from claimgate.io.writers import write_json, write_jsonl, write_lines, write_text_file

RECHECK_OUTPUTS = (".jsonl", ".json")
FAIL_ON_CHOICES = ("invalid", "decision_changed", "intact")


def current_documents(args: argparse.Namespace) -> tuple[dict[str, str], dict]:
    """Today's ``({doc_id: text}, {doc_id: source map})`` from ``--corpus`` (no map), ``--manifest`` (hashes
    verified on the bytes as written) or ``--corpus-dir``: pages read as the audit read them, with the source
    maps of their rendered Markdown and reStructuredText pages and PDFs (docs/documents.md)."""
    if args.corpus is not None:  # a corpus file has no pages to render: no frame, so no pandas, is needed
        from claimgate.io.corpus_file import read_corpus

        return read_corpus(args.corpus), {}
    from claimgate.io.documents import DEFAULT_GLOB, frame_parts, read_document_folder
    from claimgate.io.pinned_pages import read_pinned_documents
    from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES, read_manifest

    if args.manifest is not None:
        # Pinned pages read as the audit read them (io.pinned_pages): rendered, hashes checked on the bytes.
        frame = read_pinned_documents(read_manifest(args.manifest), DEFAULT_MAX_SOURCE_BYTES, None)
    else:
        # The same selection as the audit's (cli.audit.documents_of): --glob, --exclude, --html-main-content.
        chosen = documents_of(args)
        frame = read_document_folder(
            chosen.path, chosen.glob or DEFAULT_GLOB, exclude=chosen.exclude, html_main_content=chosen.html_main_content
        )
    documents, _, maps = frame_parts(frame)
    return documents, maps


def recheck_requests(ledger: list[dict], args: argparse.Namespace) -> list[dict]:
    """The recheck rows of the ledger's prepared requests, decided again against ``--manifest`` where changed.

    Needs ``--manifest`` (a usage error otherwise). Raises ``IngestionError`` as a gate run over the
    manifest would, ``ledger_other_corpus``/``ledger_renamed_source`` (``io.ledger_file.check_same_corpus``)
    and ``ledger_other_schema`` (``gate.ledger_rows.check_same_schema``).
    """
    from claimgate.execution.drivers import load_gate
    from claimgate.gate.ledger_rows import check_same_schema, recheck_request
    from claimgate.gate.reference import decide_case
    from claimgate.io.ledger_file import check_same_corpus, ledger_sources
    from claimgate.io.sources import read_manifest

    if args.manifest is None:
        raise UsageError("a ledger of prepared requests is rechecked against --manifest")
    manifest = read_manifest(args.manifest)
    pins = {e["source_id"]: e["sha256"] for e in manifest["sources"]}
    check_same_corpus(ledger_sources(ledger, "request"), pins)
    loaded = load_gate(manifest, args.schema)
    check_same_schema(ledger, loaded.schema)
    records = {r["source_id"]: r for r in loaded.verified_sources.to_dict("records")}
    decide = lambda request: decide_case(request, records, loaded.schema)  # noqa: E731
    versions = {e["source_id"]: e["version"] for e in manifest["sources"]}
    return [
        recheck_request(r, line, pins, versions, decide) for line, r in enumerate(ledger, 1) if r["kind"] == "request"
    ]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_document_options(parser, project=True)
    add_schema(parser)
    parser.add_argument("--ledger", required=True, metavar="FILE.jsonl", help="the ledger an earlier run appended to")
    parser.add_argument("--output", required=True, help="one row per ledger row (.jsonl, .json)")
    parser.add_argument(
        "--single-process",
        action="store_true",
        help="scan a big ledger in this process only (by default a forked helper scans its last part; Linux)",
    )
    add_ci_options(parser, "row's status", FAIL_ON_CHOICES)


def run_recheck_command(args: argparse.Namespace) -> int:
    """``claimgate recheck``: recheck every ledger row and write the rows."""
    from claimgate.io.ledger_lines import start_ledger_read

    output = Path(args.output)
    if output.suffix.lower() not in RECHECK_OUTPUTS:
        raise UsageError(f"--output must end in {', '.join(RECHECK_OUTPUTS)}")
    resolve_documents(args)
    fail_on = fail_on_set(args.fail_on, FAIL_ON_CHOICES)
    extra = check_ci_outputs(args)
    check_outputs([output, *extra], document_inputs(args, {"--ledger": args.ledger}), {"--corpus-dir": args.corpus_dir})
    from claimgate.runtime.collector import gc_paused

    with gc_paused(keep=True):  # 100,000s of small objects that live to the end: no collector pass over them
        # A big ledger's last part is scanned by a forked helper while this process imports the audit (before
        # numpy starts its threads: io.ledger_lines.start_ledger_read); the lines are the same either way.
        with start_ledger_read(args.ledger, helper=not args.single_process) as pending:
            from claimgate.audit.recheck import recheck_citations
            from claimgate.audit.recheck_lines import recheck_lines  # noqa: F401 - imported while the helper scans

            read = pending.lines()  # canonical citation lines kept as bytes (io.ledger_lines.LedgerLines)
        kinds = {"citation" if type(item) is tuple else item["kind"] for item in read.items}
        documents, maps = current_documents(args) if "citation" in kinds else ({}, {})  # read once: rows and page
        if "request" not in kinds:  # citations only: rows of untouched documents written from their bytes
            lines, statuses, reasons = _recheck_lines(read, documents, maps)
            rows = None
        else:
            ledger = read.rows()
            rows = recheck_citations(ledger, documents, None, maps) if "citation" in kinds else []
            rows = sorted([*rows, *recheck_requests(ledger, args)], key=lambda r: r["ledger_line"])
            lines, statuses, reasons = None, [r["status"] for r in rows], [row_reason(r) for r in rows]
        if lines is not None and output.suffix.lower() == ".jsonl":
            write_lines(output, lines)
        else:
            rows = rows if rows is not None else [json.loads(line) for line in lines]
            (write_jsonl if output.suffix.lower() == ".jsonl" else write_json)(output, rows)
    if args.summary:
        write_summary(args.summary, summary(statuses, reasons))
    if args.report:
        from claimgate.report.views import recheck_page

        rows = rows if rows is not None else [json.loads(line) for line in lines]
        quotes = {line: r.get("quote", "") for line, r in enumerate(read.rows(), 1)}  # the ledger's, for the cards
        page = recheck_page(rows, quotes, reasons, documents, maps, f"Recheck of {args.ledger}")
        write_text_file(args.report, page)
    if not args.quiet:
        counts = Counter(statuses)
        print(", ".join(f"{n} {s}" for s, n in counts.items()) or "no ledger row")
        print(f"wrote {output}")
    return exit_status(statuses, fail_on)


def _recheck_lines(read, documents: dict, maps: dict) -> tuple:
    """``audit.recheck_lines.recheck_lines`` against today's ``documents`` (and their source ``maps``); pandas
    held back where nothing imported it (a corpus file: no frame is built, so only pyarrow's array
    constructors would import it)."""
    from claimgate.audit.recheck_lines import recheck_lines
    from claimgate.runtime.imports import pandas_held_back

    with pandas_held_back():
        return recheck_lines(read, documents, source_maps=maps)


COMMAND = Command("recheck", HELP["recheck"], add_arguments, run_recheck_command)
