"""``claimgate audit``: the citation audit command, and the default run's audit demo.

Kept apart from the audit's nodes because these functions write files and print.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from claimgate.cli import stdio
from claimgate.cli.ci import add_ci_options, check_ci_outputs, exit_status, fail_on_set, summary, write_summary
from claimgate.cli.command_list import HELP
from claimgate.cli.ledger_options import add_ledger_option, ledger_paths
from claimgate.cli.options import (
    Command,
    add_execution,
    check_execution_options,
    current_folder_importable,
    run_settings,
)
from claimgate.cli.project import resolve_options
from claimgate.cli.terminal import frame_table, printable, text_table
from claimgate.errors import UsageError
from claimgate.io.atomic import check_outputs
from claimgate.io.sources import pinned_paths
from claimgate.io.writers import write_audit_parquet, write_csv, write_json, write_jsonl, write_text_file
from claimgate.resources import fixtures_dir

if TYPE_CHECKING:  # Hamilton and pandas are imported when an audit runs (``recheck`` and ``--help`` need neither)
    from claimgate.execution import drivers

# The audit's modules are imported inside the functions that run an audit, not with the command
# line: a gate run (or ``--help``) does not pay for them.
AUDIT_OUTPUTS = (".jsonl", ".json", ".csv", ".parquet")
REJECTED = ("not_found", "misattributed", "insufficient_quote", "invalid_citation")
#: What ``--fail-on`` may name: the gate's verdicts and a judge's.
FAIL_ON_CHOICES = ("found", *REJECTED, "supports", "partial", "unrelated", "contradicts")


def write_audit_output(path: Path, rows: list[dict], diagnosis: bool = True) -> None:
    """Write audit rows by extension: ``.jsonl`` (one per line), ``.json`` (a list), ``.csv``, ``.parquet``.

    In Parquet every column is typed, lists and structs included (``io.writers.audit_parquet_schema``).

    In CSV, ``matched_doc_ids``, ``spans``, ``elided`` (only with a judge), ``judge`` (and ``extractors`` for a
    folder corpus) and ``diagnosis`` are JSON text cells (``null`` where a row has no diagnosis); the
    ``diagnosis`` column is written when ``diagnosis`` is True (the run diagnosed), so the header does not
    depend on which rows were rejected.
    """
    from claimgate.audit.stages import AUDIT_COLUMNS, DIAGNOSIS_COLUMN

    suffix = path.suffix.lower()
    if suffix == ".jsonl":
        write_jsonl(path, rows)
    elif suffix == ".json":
        write_json(path, rows)
    elif suffix == ".csv":
        columns = [c for c in rows[0] if c != DIAGNOSIS_COLUMN] if rows else list(AUDIT_COLUMNS)
        if diagnosis:
            columns.append(DIAGNOSIS_COLUMN)
        import pandas as pd

        # Object columns: Python strings as read (an id may hold a lone surrogate, which Arrow-backed
        # strings cannot; write_csv writes it as a backslash escape).
        frame = pd.DataFrame(rows, columns=columns, dtype=object)  # the header is written even with no row
        if diagnosis:  # None, not NaN, where absent
            diagnoses = [r.get(DIAGNOSIS_COLUMN) for r in rows]
            frame[DIAGNOSIS_COLUMN] = pd.Series(diagnoses, dtype=object, index=frame.index)
        for column in ("matched_doc_ids", "spans", "elided", "judge", "extractors", DIAGNOSIS_COLUMN):
            if column in frame:
                cells = [json.dumps(v, ensure_ascii=False, separators=(",", ":")) for v in frame[column]]
                frame[column] = pd.Series(cells, dtype=object, index=frame.index)
        write_csv(path, frame)
    elif suffix == ".parquet":  # nested columns, no JSON text (io.writers.audit_parquet_schema)
        columns = [c for c in rows[0] if c != DIAGNOSIS_COLUMN] if rows else list(AUDIT_COLUMNS)
        write_audit_parquet(path, rows, [*columns, *([DIAGNOSIS_COLUMN] if diagnosis else [])])
    else:
        raise UsageError(f"--output must end in {', '.join(AUDIT_OUTPUTS)}")


def verdict_table(rows: list[dict]) -> str:
    """Readable table: citation, cited document, verdict, gate verdict, reason, model calls."""
    body = [
        [
            str(r["citation_id"]),
            str(r["doc_id"]),
            r["verdict"],
            r["gate_verdict"],
            r["reason"],
            ",".join(r["matched_doc_ids"]),
            str(r["model_calls"]),
        ]
        for r in rows
    ]
    header = ["citation", "cited doc", "verdict", "gate", "reason", "matched in", "model calls"]
    return text_table(body, header)


def free_and_paid(rows: list[dict]) -> tuple[int, int]:
    """(citations rejected without a model call, citations that reached the model)."""
    rejected = sum(1 for r in rows if r["gate_verdict"] in REJECTED)
    return rejected, sum(r["model_calls"] for r in rows)


def diagnosis_counts(rows: list[dict]) -> str:
    """Readable table of rejected citations by diagnosis kind (kinds in decision order, empty kinds left out)."""
    from claimgate.audit.diagnosis.kinds import DIAGNOSIS_KINDS
    from claimgate.audit.stages import DIAGNOSIS_COLUMN

    counts = {kind: 0 for kind in DIAGNOSIS_KINDS}
    for row in rows:
        if row.get(DIAGNOSIS_COLUMN) is not None:
            counts[row[DIAGNOSIS_COLUMN]["kind"]] += 1
    body = [[kind, str(n)] for kind, n in counts.items() if n]
    return text_table(body, ["diagnosis", "citations"])


def add_document_options(parser: argparse.ArgumentParser, *, project: bool = False) -> None:
    """``--corpus`` | ``--manifest`` | ``--corpus-dir`` and ``--glob`` (audit and answer).

    One of the three is required, unless ``project`` (``audit``): then ``--project`` (or
    ``./claimgate.toml``) may name the manifest instead.
    """
    source = parser.add_mutually_exclusive_group(required=not project)
    source.add_argument("--corpus", help="corpus JSON {doc_id: text}")
    source.add_argument("--manifest", help="manifest.json pinning the documents (default: the project file's)")
    if project:
        parser.add_argument(
            "--project", help="claimgate.toml naming the manifest (default: ./claimgate.toml when present)"
        )
    source.add_argument("--corpus-dir", metavar="DIR", help="folder of pages (.md .txt .rst .html .htm .pdf)")
    parser.add_argument(
        "--glob", metavar="PATTERN", action="append", help="files of --corpus-dir to read (repeatable; default **/*)"
    )
    parser.add_argument(
        "--exclude", metavar="PATTERN", action="append", help="files of --corpus-dir to leave out (repeatable)"
    )
    parser.add_argument(
        "--html-main-content",
        action="store_true",
        help="read HTML pages of --corpus-dir without their chrome (nav, aside, page header/footer, ARIA navigation)",
    )
    parser.add_argument(
        "--verbose", action="store_true", help="name the files of --corpus-dir skipped for having no extractor"
    )


def add_matching_options(parser: argparse.ArgumentParser) -> None:
    """``--judge``, ``--min-tokens``, ``--window-chars``, ``--no-diagnose`` (audit and answer)."""
    parser.add_argument(
        "--judge",
        help="optional judge callable module:function (llm_call(system, user) -> str); "
        "a module in the current folder is found too",
    )
    parser.add_argument("--min-tokens", type=int, default=4, help="shortest quote in normalized tokens (default 4)")
    parser.add_argument(
        "--window-chars", type=int, default=2000, help="largest span of an elided quote in characters (default 2000)"
    )
    parser.add_argument(
        "--no-diagnose",
        action="store_true",
        help="leave out the near-miss diagnosis of rejected citations (verdicts are the same)",
    )


def documents_of(args: argparse.Namespace) -> drivers.Documents:
    """The documents the options name: a ``CorpusFile``, ``PinnedManifest`` or ``DocumentFolder``."""
    from claimgate.execution import document_sources as sources

    if args.corpus is not None:
        return sources.CorpusFile(args.corpus)
    if args.manifest is not None:
        return sources.PinnedManifest(args.manifest)
    return sources.DocumentFolder(
        args.corpus_dir, tuple(args.glob or ()), tuple(args.exclude or ()), args.html_main_content
    )


def resolve_documents(args: argparse.Namespace) -> None:
    """Set ``args.manifest`` (and an unset ``args.schema``) from the project file when no documents are named.

    A project file naming no manifest but one ``docs`` folder gives ``args.corpus_dir`` (with the project's
    ``glob`` and ``exclude``, for ``audit``); its manifest, when named, comes first (pinned pages are verified).

    A usage error when there are none either, or for ``--glob``, ``--exclude`` or ``--html-main-content``
    without ``--corpus-dir``.
    """
    if args.corpus is None and args.manifest is None and args.corpus_dir is None:
        resolved = resolve_options(args)
        args.manifest = resolved.manifest
        if getattr(args, "schema", None) is None and hasattr(args, "schema"):
            args.schema = resolved.schema
        project = resolved.project
        if args.manifest is None and project is not None and project.docs:
            # No manifest named: the project's docs folder is read as --corpus-dir, with its glob and exclude.
            if len(project.docs) > 1:
                raise UsageError(
                    f"the project file names {len(project.docs)} docs folders and no manifest: give --corpus-dir"
                )
            args.corpus_dir = project.docs[0]
            args.glob = args.glob or ([project.glob] if project.glob else None)
            args.exclude = args.exclude or (list(project.exclude) or None)
        if args.manifest is None and args.corpus_dir is None:
            raise UsageError(
                "one of --corpus, --manifest, --corpus-dir is required (or a claimgate.toml naming a manifest or "
                "a docs folder)"
            )
    if (args.glob or args.exclude or args.html_main_content) and not args.corpus_dir:
        raise UsageError("--glob, --exclude and --html-main-content need --corpus-dir")


def document_inputs(args: argparse.Namespace, named: dict) -> dict:
    """The input files of a run over documents: ``named`` (option → path), ``--corpus``, ``--manifest``, its pins."""
    inputs = {**named, "--corpus": args.corpus, "--manifest": args.manifest}
    return {**inputs, **(pinned_paths(args.manifest) if args.manifest else {})}


def judge_of(args: argparse.Namespace):
    """The ``--judge`` callable (None without one); a usage error when it cannot be loaded."""
    from claimgate.audit.judge import load_judge

    try:
        with current_folder_importable():
            return load_judge(args.judge) if args.judge else None
    except ValueError as exc:
        raise UsageError(str(exc)) from None


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_document_options(parser, project=True)
    parser.add_argument("--citations", required=True, help="citations (.jsonl, .json, .csv; - reads stdin)")
    parser.add_argument(
        "--output", required=True, help="result file (.jsonl, .json, .csv, .parquet; - writes JSONL to stdout)"
    )
    add_matching_options(parser)
    parser.add_argument(
        "--cache",
        metavar="DIR",
        help="keep the corpus index in DIR between runs (keyed by the documents' bytes; rebuilt when they change "
        "or damaged); not the output, an input, or inside --corpus-dir",
    )
    add_ledger_option(parser)
    add_execution(parser)
    parser.add_argument(
        "--single-process",
        action="store_true",
        help="run in this process only (else forked helpers share indexing and auditing; Linux)",
    )
    add_ci_options(parser, "row's verdict", FAIL_ON_CHOICES)


def append_citation_ledger(
    path: str | Path, rows: list[dict], citations, documents: dict, source_maps: dict | None = None
) -> None:
    """Append the ledger rows of an audit's ``rows`` (quotes read from ``citations``, a file or rows);
    ``source_maps`` (``AuditRun.source_maps``): rendered pages' fingerprints from their visible text."""
    from claimgate.audit.ledger import citation_ledger_rows
    from claimgate.io.ledger_append import append_ledger
    from claimgate.io.tables import read_citation_rows

    table = read_citation_rows(citations) if isinstance(citations, (str, Path)) else citations
    quotes = {r.get("citation_id"): r.get("quote") for r in table if isinstance(r, dict)}
    append_ledger(path, citation_ledger_rows(rows, quotes, documents, source_maps))


def run_audit_command(args: argparse.Namespace) -> int:
    """``claimgate audit``: audit a citation file and write the rows.

    ``-`` as ``--citations`` reads standard input, as ``--output`` writes JSON Lines to standard output
    (``cli.stdio``).
    """
    with stdio.temporary_folder() as folder:
        return _run_audit(args, folder)


def _run_audit(args: argparse.Namespace, folder: Path) -> int:
    to_stdout = args.output == stdio.STDIO
    check_execution_options(args)
    if args.min_tokens < 1 or args.window_chars < 1:
        raise UsageError("--min-tokens and --window-chars must be at least 1")
    output = folder / "results.jsonl" if to_stdout else Path(args.output)
    if output.suffix.lower() not in AUDIT_OUTPUTS:
        raise UsageError(f"--output must end in {', '.join(AUDIT_OUTPUTS)}")
    resolve_documents(args)
    with _chunks_ahead(args) as ahead:  # started before the audit's imports: one thread in the process
        return _audited(args, folder, output, to_stdout, ahead)


def _chunks_ahead(args: argparse.Namespace):
    """A forked helper normalizing a big ``--corpus`` file's chunks while this process imports the audit
    (``audit.index.ahead``; docs/audit-rules.md, "Indexing a big corpus file"), or an empty context: with
    ``--single-process``, ``--cache`` (a warm run reads no chunk), another executor or documents of another kind."""
    import contextlib

    from claimgate.audit.index.ahead import chunks_ahead_for

    if args.corpus is None or args.cache is not None or args.single_process or args.executor != "local":
        return contextlib.nullcontext()
    ahead = chunks_ahead_for(args.corpus, args.max_source_bytes, args.max_corpus_bytes)
    return contextlib.nullcontext() if ahead is None else ahead


def _audited(args: argparse.Namespace, folder: Path, output: Path, to_stdout: bool, ahead) -> int:
    """``_run_audit`` once the documents are resolved (and the helper, if any, started)."""
    from claimgate.audit.matching.settings import MatchSettings
    from claimgate.audit.stages import DIAGNOSIS_COLUMN
    from claimgate.execution import drivers

    fail_on = fail_on_set(args.fail_on, FAIL_ON_CHOICES)
    extra_outputs = check_ci_outputs(args)
    citations = stdio.spooled_input(folder, "stdin") if args.citations == stdio.STDIO else args.citations
    all_inputs = document_inputs(args, {"--citations": citations})
    check_outputs([output, *extra_outputs, *ledger_paths(args)], all_inputs, {"--corpus-dir": args.corpus_dir})
    if args.cache is not None:
        from claimgate.audit.index.cache_folder import check_cache_folder

        check_cache_folder(args.cache, all_inputs, {"--output": output}, {"--corpus-dir": args.corpus_dir})
    llm_call = judge_of(args)
    run = drivers.run_audit(
        citations,
        documents_of(args),
        llm_call=llm_call,
        match=MatchSettings(min_tokens=args.min_tokens, window_chars=args.window_chars),
        diagnose=not args.no_diagnose,
        cache_dir=args.cache,
        settings=run_settings(args),
        chunks_ahead=ahead,
    )
    rows = drivers.audit_rows(run)
    write_audit_output(output, rows, diagnosis=not args.no_diagnose)
    if args.ledger:
        append_citation_ledger(args.ledger, rows, args.citations, run.documents, run.source_maps)
    if args.summary:
        write_summary(args.summary, summary([r["verdict"] for r in rows], [r["reason"] for r in rows]))
    if args.report:
        from claimgate.report import audit_page

        page = audit_page(rows, run.documents, title=f"Citation audit of {args.citations}", maps=run.source_maps)
        write_text_file(args.report, page)
    if to_stdout:
        stdio.copy_to_stdout(output)
    say = stdio.say_to(args.output)
    if run.skipped and not args.quiet:
        print(f"skipped {len(run.skipped)} file(s) of --corpus-dir with no extractor", file=sys.stderr)
        if args.verbose:
            for doc_id in run.skipped:
                print(f"  skipped {printable(doc_id)}", file=sys.stderr)
    if not args.quiet:
        if len(rows) <= 50:
            say(verdict_table(rows))
        counts = run.results.groupby("verdict").size().rename("citations").reset_index()
        say(frame_table(counts) if len(counts) else "no citations")
        rejected, paid = free_and_paid(rows)
        say(f"{rejected} rejected for free, {paid} reached the model")
        if not args.no_diagnose and any(DIAGNOSIS_COLUMN in r for r in rows):
            say(diagnosis_counts(rows))
        say(f"wrote {'standard output' if to_stdout else output}")
    return exit_status([r["verdict"] for r in rows], fail_on)


def run_demo(args: argparse.Namespace, out_dir: Path, say=print) -> None:
    """The default run's four-citation demo, judged by the offline stand-in; writes ``audit_result.jsonl``."""
    from claimgate.audit import standin_judge
    from claimgate.execution import drivers

    standin_judge.reset()
    run = drivers.run_audit(
        fixtures_dir() / "audit" / "citations.jsonl",
        drivers.CorpusFile(fixtures_dir() / "audit" / "corpus.json"),
        llm_call=standin_judge.judge,
    )
    rows = drivers.audit_rows(run)
    output = out_dir / "audit_result.jsonl"
    write_audit_output(output, rows)
    rejected, paid = free_and_paid(rows)
    calls = standin_judge.CALLS["count"]
    if calls != paid:  # the rows and the stand-in's own counter must agree
        raise RuntimeError(f"model_calls say {paid} but the stand-in counted {calls} calls")
    say("\ncitation audit demo (offline stand-in judge, not a model):")
    say(verdict_table(rows))
    say(f"{rejected} rejected for free, {calls} reached the model")
    say(f"wrote {output}")
    if not args.no_pictures:
        from claimgate import pictures

        dr = drivers.audit_driver("corpus")
        graph = dr.display_upstream_of("audit_results", orient="LR")
        _, note = pictures.write_picture(graph.source, out_dir / "audit_dag")
        if note:
            print(note)
        else:
            say(f"wrote {out_dir / 'audit_dag.svg'}")


COMMAND = Command("audit", HELP["audit"], add_arguments, run_audit_command)
