"""claimgate command line: the contract gate (before generation) and the citation audit (after it).

    python run_pipeline.py                      # the teaching run on the fixtures (writes output/)
    python run_pipeline.py gate  --manifest M --cases C --output O [--schema S] [--executor ...]
    python run_pipeline.py audit (--corpus J | --manifest M) --citations C --output O [--judge mod:fn]

Exit status: 0 when the run completed (whatever the statuses), 2 for a usage error,
3 when an input was refused (one line on stderr: ``error: <Kind>: <reason>: <detail>``;
``--debug`` adds the traceback). No model is called unless ``--judge`` names one.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import traceback
from pathlib import Path

import claimgate  # noqa: F401  (telemetry variable first)
from claimgate.cli import audit as audit_cli
from claimgate.errors import ClaimgateError, IngestionError, UsageError
from claimgate.execution import drivers, signals
from claimgate.io.atomic import check_outputs, staged_folder
from claimgate.io.console import safe_console
from claimgate.io.sources import DEFAULT_MAX_CORPUS_BYTES, DEFAULT_MAX_SOURCE_BYTES, pinned_paths
from claimgate.io.tables import valid_unicode, write_json, write_jsonl, write_parquet
from claimgate.resources import fixtures_dir

EXIT_OK, EXIT_USAGE, EXIT_REFUSED = 0, 2, 3
GATE_OUTPUTS = (".json", ".jsonl", ".parquet")
CHANGED_SOURCE_ID = "quill-guide"  # the pinned source the changed-source scenario edits


def _progress_enabled(args: argparse.Namespace) -> bool:
    return not args.quiet and sys.stderr.isatty()


def _safe_name(case_id: object, position: int, used: set[str]) -> str:
    """A file name for a case picture: the case id with unsafe characters replaced, unique."""
    base = re.sub(r"[^A-Za-z0-9._-]", "_", case_id if isinstance(case_id, str) else "")[:80].strip(".") or "case"
    name = base if base not in used else f"{base}-{position}"
    used.add(name)
    return name


def draw_gate_pictures(run: drivers.GateRun, out_dir: Path, per_case: bool) -> list[str]:
    """Draw the gate DAG (``gate_dag``) and, if ``per_case``, one picture per case under ``cases/``.

    Each case picture highlights the node that decided it (``decided_at``) and the nodes
    that ran for it (``pictures.case_graph``). Returns the notes to print (at most one
    per distinct problem).
    """
    from claimgate import pictures

    dr = drivers.gate_driver()
    notes: set[str] = set()
    _, note = pictures.write_picture(pictures.dag_graph(dr).source, out_dir / "gate_dag")
    if note:
        notes.add(note)
    if per_case:
        used: set[str] = set()
        for position, case_id, decided_at in zip(
            run.results["position"], run.results["case_id"], run.results["decided_at"]
        ):
            graph = pictures.case_graph(dr, case_id, decided_at)
            _, note = pictures.write_picture(graph.source, out_dir / "cases" / _safe_name(case_id, position, used))
            if note:
                notes.add(note.split(": wrote")[0] + ": wrote .dot files only")
    return sorted(notes)


def write_gate_output(path: Path, run: drivers.GateRun, document: dict) -> None:
    """Write the gate's results by extension: ``.json`` document, ``.jsonl`` rows, ``.parquet`` table."""
    suffix = path.suffix.lower()
    if suffix == ".json":
        write_json(path, document)
    elif suffix == ".jsonl":
        write_jsonl(path, (entry for entry in document["cases"]))
    elif suffix == ".parquet":
        import pandas as pd

        frame = run.results[["case_id", "status", "reason", "error", "decided_at", "detail"]].copy()
        frame["case_id"] = [valid_unicode(c) if isinstance(c, str) else None for c in run.results["case_id"]]
        frame["entry"] = [
            valid_unicode(json.dumps(e, ensure_ascii=False, separators=(",", ":"))) for e in document["cases"]
        ]
        write_parquet(path, pd.DataFrame(frame).reset_index(drop=True))
    else:
        raise UsageError(f"--output must end in {', '.join(GATE_OUTPUTS)}")


def changed_source_scenario(schema: str | None) -> dict:
    """Edit one pinned source in a temporary copy of the fixtures (manifest unchanged) and run the gate.

    The real fixtures are never touched. Returns exactly the refusal record
    ``{"status": "refused", "error": "IngestionError", "reason": "hash_mismatch", "answer_request": None}``;
    raises ``AssertionError`` if the edit were accepted.
    """
    with tempfile.TemporaryDirectory(prefix="claimgate-changed-") as tmp:
        copy = Path(tmp) / "fixtures"
        shutil.copytree(fixtures_dir(), copy, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
        edited = copy / "sources" / f"{CHANGED_SOURCE_ID}.md"
        edited.write_bytes(edited.read_bytes().replace(b"existing_path=refuse", b"existing_path=overwrite"))
        try:
            drivers.run_gate(copy / "manifest.json", copy / "cases.json", schema)
        except IngestionError as exc:
            return exc.as_result()
    raise AssertionError("an edited pinned source was accepted")


def cmd_default(args: argparse.Namespace) -> int:
    output = Path(args.output or "output/gate_result.json")
    if output.suffix.lower() != ".json":
        raise UsageError("the default run writes a .json document; use `gate` for other formats")
    out_dir = output.parent
    manifest = fixtures_dir() / "manifest.json"
    inputs = {"--schema": args.schema, "fixture manifest": manifest, **pinned_paths(manifest)}
    check_outputs([output, out_dir / "audit_result.jsonl"], inputs)
    run = drivers.run_gate(manifest, fixtures_dir() / "cases.json", args.schema, progress=_progress_enabled(args))
    changed = changed_source_scenario(args.schema)
    document = drivers.gate_document(run, fixture_kind="synthetic-quill-teaching-fixtures", changed_source=changed)
    with staged_folder(out_dir) as stage:  # pictures and result all or nothing
        notes = [] if args.no_pictures else draw_gate_pictures(run, stage.folder, per_case=True)
        write_gate_output(output, run, document)
        stage.commit()
        notes = [stage.final_text(note) for note in notes]
    say = (lambda *_: None) if args.quiet else print
    say(drivers.summary_table(run))
    say(
        f"\nchanged source: {CHANGED_SOURCE_ID} edited in a temporary copy, manifest unchanged -> "
        f"{changed['status']} / {changed['error']} / {changed['reason']}"
    )
    say(f"wrote {output}")
    if not args.no_pictures:
        for note in notes:
            print(note)
        say(f"wrote {out_dir / 'gate_dag.svg'} and one picture per case in {out_dir / 'cases'}")
    audit_cli.run_demo(args, out_dir, say)
    return EXIT_OK


def check_execution_options(args: argparse.Namespace) -> None:
    """Refuse, as usage errors, options that cannot mean anything.

    An executor that is unknown or not installed, ``--scheduler`` with the local
    executor, a partition size or a source size limit below 1.
    """
    try:
        drivers.check_executor(args.executor)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    if args.partition_rows < 1:
        raise UsageError("--partition-rows must be at least 1")
    if args.scheduler and args.executor not in ("dask", "ray"):
        raise UsageError("--scheduler needs --executor dask or ray")
    if args.max_source_bytes < 1:
        raise UsageError("--max-source-bytes must be at least 1")
    if args.max_corpus_bytes < 1:
        raise UsageError("--max-corpus-bytes must be at least 1")


def cmd_gate(args: argparse.Namespace) -> int:
    output = Path(args.output)
    if output.suffix.lower() not in GATE_OUTPUTS:
        raise UsageError(f"--output must end in {', '.join(GATE_OUTPUTS)}")
    check_execution_options(args)
    inputs = {"--manifest": args.manifest, "--cases": args.cases, "--schema": args.schema}
    check_outputs([output], {**inputs, **pinned_paths(args.manifest)})
    run = drivers.run_gate(
        args.manifest,
        args.cases,
        args.schema,
        max_source_bytes=args.max_source_bytes,
        max_corpus_bytes=args.max_corpus_bytes,
        executor=args.executor,
        scheduler=args.scheduler,
        partition_rows=args.partition_rows,
        progress=_progress_enabled(args),
    )
    # Pictures are drawn into a staging folder first and moved into place with the result, or not at all.
    with drivers.gc_paused(), staged_folder(output.parent) as stage:  # no collector passes over the entry dicts
        notes = draw_gate_pictures(run, stage.folder, per_case=True) if args.pictures else []
        document = drivers.gate_document(run, fixture_kind="user-supplied")
        write_gate_output(output, run, document)
        stage.commit()
        notes = [stage.final_text(note) for note in notes]
    if not args.quiet:
        if len(run.results) <= 50:
            print(drivers.summary_table(run))
        counts = run.results.groupby(["status", "reason"]).size().rename("cases").reset_index()
        print(counts.to_string(index=False))
        print(f"wrote {output}")
    for note in notes:
        print(note)
    return EXIT_OK


def cmd_audit(args: argparse.Namespace) -> int:
    check_execution_options(args)
    if args.min_tokens < 1 or args.window_chars < 1:
        raise UsageError("--min-tokens and --window-chars must be at least 1")
    return audit_cli.run_audit_command(args)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="run_pipeline.py",
        description="claimgate: evidence gates for documentation assistants (no model is called by default).",
        epilog="Exit status: 0 run completed, 2 usage error, 3 input refused.",
    )
    parser.add_argument("--output", help="result file (default output/gate_result.json)")
    parser.add_argument("--schema", help="claim schema TOML (default fixtures/quill_schema.toml)")
    parser.add_argument("--no-pictures", action="store_true", help="skip the DAG pictures")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.add_argument("--debug", action="store_true", help="show tracebacks and Hamilton's logs")
    common = argparse.ArgumentParser(add_help=False)
    # SUPPRESS: a flag given before the sub-command is not reset by the sub-command's default.
    common.add_argument("--quiet", action="store_true", default=argparse.SUPPRESS, help="no progress bar and no table")
    common.add_argument("--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks")
    common.add_argument(
        "--max-source-bytes",
        type=int,
        default=DEFAULT_MAX_SOURCE_BYTES,
        metavar="N",
        help="refuse a source file, or a document of a corpus, larger than N bytes (default 16 MiB)",
    )
    common.add_argument(
        "--max-corpus-bytes",
        type=int,
        default=DEFAULT_MAX_CORPUS_BYTES,
        metavar="N",
        help="refuse a corpus file, or a manifest's sources together, larger than N bytes (default 64 MiB)",
    )
    common.add_argument(
        "--executor",
        choices=drivers.EXECUTORS,
        default="local",
        help="Hamilton executor for partitions of the table (default local)",
    )
    common.add_argument("--scheduler", help="Dask scheduler (tcp://host:8786) or Ray address; default: a local cluster")
    common.add_argument(
        "--partition-rows",
        type=int,
        default=10_000,
        metavar="N",
        help="rows per partition when --executor is not local",
    )
    sub = parser.add_subparsers(dest="command")

    gate = sub.add_parser("gate", parents=[common], help="run the contract gate over a manifest and a case table")
    gate.add_argument("--manifest", required=True, help="manifest.json pinning the sources")
    gate.add_argument("--cases", required=True, help="case table (.json, .jsonl, .csv, .parquet)")
    gate.add_argument("--output", required=True, help="result file (.json, .jsonl, .parquet)")
    gate.add_argument("--schema", help="claim schema TOML (default Quill's)")
    gate.add_argument("--pictures", action="store_true", help="also draw the DAG and one picture per case")

    audit = sub.add_parser("audit", parents=[common], help="audit cited quotes against a corpus or a manifest")
    source = audit.add_mutually_exclusive_group(required=True)
    source.add_argument("--corpus", help="corpus JSON {doc_id: text}")
    source.add_argument("--manifest", help="manifest.json pinning the documents")
    source.add_argument("--corpus-dir", metavar="DIR", help="folder of pages (.md .txt .rst .html .htm .pdf)")
    audit.add_argument("--glob", metavar="PATTERN", help="files of --corpus-dir to read (default **/*)")
    audit.add_argument("--citations", required=True, help="citations (.jsonl, .json, .csv)")
    audit.add_argument("--output", required=True, help="result file (.jsonl, .json, .csv)")
    audit.add_argument(
        "--judge", help="optional judge callable package.module:function (llm_call(system, user) -> str)"
    )
    audit.add_argument("--min-tokens", type=int, default=4, help="shortest quote in normalized tokens (default 4)")
    audit.add_argument(
        "--window-chars", type=int, default=2000, help="largest span of an elided quote in characters (default 2000)"
    )
    audit.add_argument(
        "--no-diagnose",
        action="store_true",
        help="leave out the near-miss diagnosis of rejected citations (verdicts are the same)",
    )
    parser.subcommands = {"gate": gate, "audit": audit}  # for usage lines of the right command
    return parser


def main(argv: list[str] | None = None) -> int:
    safe_console()  # a character the terminal cannot show is printed as an escape, never a crash
    signals.install_termination_handlers()  # SIGTERM/SIGHUP clean up like Ctrl-C
    parser = build_parser()
    args = parser.parse_args(argv)  # exits 2 on a usage error
    debug = getattr(args, "debug", False)
    drivers.quiet_hamilton_logs(debug)
    handlers = {None: cmd_default, "gate": cmd_gate, "audit": cmd_audit}
    try:
        return handlers[args.command](args)
    except UsageError as exc:
        parser.subcommands.get(args.command, parser).print_usage(sys.stderr)
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except BrokenPipeError:  # stdout closed early (`| head`): the output file is already complete
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except ClaimgateError as exc:
        if debug:
            traceback.print_exc()
        print(f"error: {exc.one_line()}", file=sys.stderr)
        return EXIT_REFUSED
    except KeyboardInterrupt as exc:  # Ctrl-C, SIGTERM, SIGHUP: 130, 143, 129
        return signals.interrupted_status(exc)


if __name__ == "__main__":
    sys.exit(main())
