"""``claimgate demo`` (also ``claimgate`` and ``python run_pipeline.py`` with no command): the teaching run.

Runs the gate on the fixtures shipped with the package, the changed-source scenario
(an edited pinned page in a temporary copy is refused with ``hash_mismatch``) and the
four-citation audit demo and the answer demo; writes ``gate_result.json``, ``audit_result.jsonl``,
``answer_result.json``, ``answer_report.html`` and the pictures beside ``--output``. The shipped
fixtures are never modified.
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

from claimgate.cli import answer as answer_cli
from claimgate.cli import audit as audit_cli
from claimgate.cli.command_list import HELP
from claimgate.cli.documents import gate_document
from claimgate.cli.gate import draw_gate_pictures, write_gate_output
from claimgate.cli.options import Command, add_schema, progress_enabled
from claimgate.cli.terminal import summary_table
from claimgate.errors import IngestionError, UsageError
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.io.atomic import check_inputs_outside, check_outputs, staged_folder
from claimgate.io.sources import pinned_paths
from claimgate.resources import fixtures_dir

CHANGED_SOURCE_ID = "quill-guide"  # the pinned source the changed-source scenario edits


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


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--output", help="result file (default output/gate_result.json); the rest goes beside it")
    add_schema(parser)
    parser.add_argument("--no-pictures", action="store_true", help="skip the DAG pictures")


def run(args: argparse.Namespace) -> int:
    """The default run on the shipped fixtures (see the module docstring)."""
    output = Path(args.output or "output/gate_result.json")
    if output.suffix.lower() != ".json":
        raise UsageError("the default run writes a .json document; use `gate` for other formats")
    out_dir = output.parent
    manifest = fixtures_dir() / "manifest.json"
    inputs = {"--schema": args.schema, "fixture manifest": manifest, **pinned_paths(manifest)}
    # Nothing the run writes (results, DAG pictures, case pictures) may land in the fixtures it reads.
    written = [output, out_dir / "audit_result.jsonl", out_dir / "gate_dag.dot", out_dir / "gate_dag.svg"]
    written += [out_dir / name for name in answer_cli.DEMO_OUTPUTS]
    check_outputs(written, inputs, {"fixtures": fixtures_dir()})
    check_inputs_outside(out_dir / "cases", "case pictures", {"fixtures": fixtures_dir()})
    settings = RunSettings(progress=progress_enabled(args))
    run = drivers.run_gate(manifest, fixtures_dir() / "cases.json", args.schema, settings)
    changed = changed_source_scenario(args.schema)
    document = gate_document(run, fixture_kind="synthetic-quill-teaching-fixtures", changed_source=changed)
    with staged_folder(out_dir) as stage:  # pictures and result all or nothing
        notes = [] if args.no_pictures else draw_gate_pictures(run, stage.folder, per_case=True)
        write_gate_output(output, run, document)
        stage.commit()
        notes = [stage.final_text(note) for note in notes]
    say = (lambda *_: None) if args.quiet else print
    say(summary_table(run))
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
    answer_cli.run_demo(out_dir, say)
    return 0


COMMAND = Command("demo", HELP["demo"], add_arguments, run)
