"""``claimgate gate``: the contract gate over a manifest and a case table, and the writers it shares with the demo.

Reads nothing itself: the driver verifies the pins and decides; this module checks
the options, writes the result file by extension and prints the summary.
"""

from __future__ import annotations

import argparse
import itertools
import re
from pathlib import Path

from claimgate.cli import stdio
from claimgate.cli.ci import add_ci_options, check_ci_outputs, counted_summary, exit_status, fail_on_set, write_summary
from claimgate.cli.command_list import HELP
from claimgate.cli.documents import gate_document, ignored_lines
from claimgate.cli.ledger_options import add_ledger_option, ledger_paths
from claimgate.cli.options import Command, add_execution, add_schema, check_execution_options, run_settings
from claimgate.cli.project import announce_schema, resolve_options
from claimgate.cli.terminal import frame_table, summary_table
from claimgate.errors import UsageError
from claimgate.execution import drivers
from claimgate.gate.decisions import decision_stages
from claimgate.io.atomic import check_inputs_outside, check_outputs, staged_folder, write_atomic
from claimgate.io.sources import pinned_paths
from claimgate.io.writers import valid_unicode, write_gate_parquet, write_json, write_jsonl, write_text_file
from claimgate.reasons import GATE_STATUSES

GATE_OUTPUTS = (".json", ".jsonl", ".parquet")
#: Ignored directive lines printed in the terminal at most (all of them are in a .json document).
SHOWN_IGNORED_LINES = 20


#: Characters a case picture's file name may hold; anything else in a case id becomes ``_``.
_UNSAFE_NAME_CHARACTERS = re.compile(r"[^A-Za-z0-9._-]")
MAX_NAME_CHARACTERS = 80
#: Where the case pictures go (beside ``--output``) and the index that maps each case to its files.
CASES_FOLDER = "cases"
PICTURE_INDEX = "index.json"


#: Names Windows keeps for devices whatever the extension (``CON.svg`` is the console, not a file), compared
#: ignoring case on the part before the first dot: a picture is never named so (docs/gate-rules.md, "Pictures").
WINDOWS_DEVICE_NAMES = frozenset(
    ["con", "prn", "aux", "nul", *(f"com{n}" for n in range(1, 10)), *(f"lpt{n}" for n in range(1, 10))]
)


def _cleaned_name(case_id: object) -> str:
    """``case_id`` with unsafe characters replaced by ``_``, cut to 80 characters, outer dots removed (never empty);
    a Windows device name (``WINDOWS_DEVICE_NAMES``) before the first dot gets a ``_`` after it (``CON_``)."""
    text = case_id if isinstance(case_id, str) else ""
    name = _UNSAFE_NAME_CHARACTERS.sub("_", text)[:MAX_NAME_CHARACTERS].strip(".") or "case"
    stem, dot, rest = name.partition(".")
    if stem.casefold() in WINDOWS_DEVICE_NAMES:
        name = f"{stem}_{dot}{rest}"[:MAX_NAME_CHARACTERS].rstrip(".")
    return name


def case_picture_names(case_ids: list[object], positions: list[int]) -> list[str]:
    """One distinct file name (without extension) per case, in the order given: ``cases/<name>.dot``/``.svg``.

    ``case_ids`` and ``positions`` (0-based rows of the case table) are parallel lists.
    A case id that is already a safe name (only ``A-Z a-z 0-9 . _ -``, at most 80
    characters, no leading or trailing dot) gets exactly that name, unless an earlier
    case has the same id. Every other case gets its cleaned id (other characters replaced by
    ``_``; ``case`` for a non-string or an id that cleans to nothing), then ``<cleaned>-<position>``, then
    ``<cleaned>-<position>-2``, ``-3``… until the name is unused. A Windows device name (``CON``, ``nul.txt``) is
    never a safe name: it is cleaned to ``CON_``, ``nul_.txt``. Names are compared
    ignoring letter case, so no two pictures share a file on a case-folding file system
    (macOS, Windows). See docs/gate-rules.md, "Pictures".
    """
    taken: set[str] = set()  # casefolded
    names: list[str | None] = [None] * len(case_ids)
    for index, case_id in enumerate(case_ids):  # first: ids that are already safe names keep them
        if isinstance(case_id, str) and _cleaned_name(case_id) == case_id and case_id.casefold() not in taken:
            names[index] = case_id
            taken.add(case_id.casefold())
    for index, (case_id, position) in enumerate(zip(case_ids, positions)):
        if names[index] is not None:
            continue
        base = _cleaned_name(case_id)
        numbered = (f"{base}-{position}-{n}" for n in itertools.count(2))
        candidates = itertools.chain([base, f"{base}-{position}"], numbered)
        name = next(c for c in candidates if c.casefold() not in taken)
        names[index] = name
        taken.add(name.casefold())
    return [name for name in names if name is not None]


#: Tables of more cases than this get one picture per decision path instead of one per case
#: (docs/gate-rules.md, "Pictures"): the pictures of one path differ only in their title.
PER_CASE_PICTURE_LIMIT = 36
#: What ``--pictures`` writes beside the output besides ``cases/`` (the demo writes them too).
DAG_PICTURES = ("gate_dag.dot", "gate_dag.svg", "gate_chain.dot", "gate_chain.svg", "gate_dag.mmd")


def draw_gate_pictures(run: drivers.GateRun, out_dir: Path, per_case: bool) -> list[str]:
    """Draw the gate DAG (``gate_dag``, and ``gate_dag.mmd`` in Mermaid), the decision chain (``gate_chain``) and,
    if ``per_case``, the case pictures under ``cases/``.

    Up to ``PER_CASE_PICTURE_LIMIT`` cases: one picture per case, highlighting the node that
    decided it (``decided_at``) and the nodes that ran for it (``pictures.case_graph``), named by
    ``case_picture_names``. More: one picture per decision path, ``cases/path-<decided_at>``
    (``pictures.path_graph``), for each deciding node some case reached. ``cases/index.json``
    maps every case to its files either way: ``{"cases": [{"position", "case_id", "files"}]}`` in
    case-table order (``files`` relative to ``cases/``; a case id that is not a string is ``null``),
    with ``"paths": [{"decided_at", "cases", "files"}]`` too for path pictures. Returns the notes
    to print (at most one per distinct problem, and one when some picture is not named exactly
    after its case id).
    """
    from claimgate import pictures

    dr = drivers.gate_driver()
    notes: set[str] = set()
    for source, base in ((pictures.dag_graph(dr).source, "gate_dag"), (pictures.chain_dot(dr.graph), "gate_chain")):
        _, note = pictures.write_picture(source, out_dir / base)
        if note:
            notes.add(note)
    write_atomic(out_dir / "gate_dag.mmd", lambda handle: handle.write(pictures.mermaid_dag(dr.graph).encode()))
    if not per_case:
        return sorted(notes)
    folder = out_dir / CASES_FOLDER
    positions = [int(p) for p in run.results["position"]]
    case_ids = run.results["case_id"].tolist()
    decided = run.results["decided_at"].tolist()
    shown = [valid_unicode(c) if isinstance(c, str) else None for c in case_ids]
    document: dict = {"cases": []}
    if len(case_ids) > PER_CASE_PICTURE_LIMIT:
        files = {}
        for stage in [name for name, _ in decision_stages(dr.graph) if name in set(decided)]:
            graph = pictures.path_graph(dr, stage, decided.count(stage))
            written, note = pictures.write_picture(graph.source, folder / f"path-{stage}")
            if note:
                notes.add(note.split(": wrote")[0] + ": wrote .dot files only")
            files[stage] = [p.name for p in written]
        document["paths"] = [{"decided_at": k, "cases": decided.count(k), "files": v} for k, v in files.items()]
        for position, case_id, stage in zip(positions, shown, decided):
            document["cases"].append({"position": position, "case_id": case_id, "files": files[stage]})
        write_json(folder / PICTURE_INDEX, {"cases": document["cases"], "paths": document["paths"]})
        return sorted(notes)
    names = case_picture_names(case_ids, positions)
    for position, case_id, stage, name, shown_id in zip(positions, case_ids, decided, names, shown):
        written, note = pictures.write_picture(pictures.case_graph(dr, case_id, stage).source, folder / name)
        if note:
            notes.add(note.split(": wrote")[0] + ": wrote .dot files only")
        document["cases"].append({"position": position, "case_id": shown_id, "files": [p.name for p in written]})
    write_json(folder / PICTURE_INDEX, document)
    renamed = sum(name != case_id for name, case_id in zip(names, case_ids))
    if renamed:
        notes.add(f"{renamed} case picture(s) are not named after their case id: see {folder / PICTURE_INDEX}")
    return sorted(notes)


def check_gate_output(path: Path) -> None:
    """Refuse (usage error) an output whose extension is not one of ``GATE_OUTPUTS``."""
    if path.suffix.lower() not in GATE_OUTPUTS:
        raise UsageError(f"--output must end in {', '.join(GATE_OUTPUTS)}")


def write_gate_output(path: Path, run: drivers.GateRun, document: dict) -> None:
    """Write the gate's results by extension: ``.json`` document, ``.jsonl`` rows, ``.parquet`` table."""
    check_gate_output(path)
    suffix = path.suffix.lower()
    if suffix == ".json":
        write_json(path, document)
    elif suffix == ".jsonl":
        write_jsonl(path, (entry for entry in document["cases"]))
    else:  # nested columns, no JSON text (io.writers.gate_parquet_schema)
        details = ["" if d is None else str(d) for d in run.results["detail"]]
        write_gate_parquet(path, document["cases"], details)


def ignored_lines_report(document: dict) -> list[str]:
    """Terminal lines for the directive lines an opt-in kept from being read (``[]`` when none)."""
    ignored = document.get("ignored_directive_lines") or []
    if not ignored:
        return []
    lines = [f"{len(ignored)} line(s) holding the prefix were not read as directives (schema opt-ins):"]
    for entry in ignored[:SHOWN_IGNORED_LINES]:
        lines.append(f"  {entry['source_id']}:{entry['line']}  {entry['rule']}  {entry['quote'][:80]}")
    if len(ignored) > SHOWN_IGNORED_LINES:
        lines.append(f"  … and {len(ignored) - SHOWN_IGNORED_LINES} more (all are in a .json result)")
    return lines


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--manifest", help="manifest.json pinning the sources (default: the project file's)")
    parser.add_argument("--cases", required=True, help="case table (.json, .jsonl, .csv, .parquet; - reads stdin)")
    parser.add_argument(
        "--output", required=True, help="result file (.json, .jsonl, .parquet; - writes JSONL to stdout)"
    )
    add_schema(parser)
    parser.add_argument("--project", help="claimgate.toml to read (default: ./claimgate.toml when present)")
    parser.add_argument(
        "--pictures",
        action="store_true",
        help=f"also draw the DAG (SVG, DOT, Mermaid), the decision chain, and one picture per case"
        f" (per decision path above {PER_CASE_PICTURE_LIMIT} cases)",
    )
    parser.add_argument(
        "--report",
        metavar="FILE.html",
        help="write a self-contained review page (no network access): each case's claims, conflicting directive "
        "lines and decision picture",
    )
    add_ledger_option(parser)
    add_execution(parser)
    add_ci_options(parser, "case's status", GATE_STATUSES, report=False)


def case_pictures(run: drivers.GateRun, limit: int) -> dict[int, str | None]:
    """The decision picture (SVG text, or None without a renderer) of the first ``limit`` cases, by position."""
    from claimgate import pictures

    dr = drivers.gate_driver()
    shown = zip(run.results["case_id"][:limit], run.results["decided_at"][:limit])
    return {i: pictures.svg_text(pictures.case_graph(dr, c, d).source) for i, (c, d) in enumerate(shown)}


def write_gate_report(path: str, run: drivers.GateRun, document: dict) -> None:
    """The review page of a gate run (``claimgate.report.gate_page``), each case with its refusal detail."""
    from claimgate.report import gate_page
    from claimgate.report.views import MAX_CASE_PICTURES

    entries = [{**entry, "detail": detail} for entry, detail in zip(document["cases"], run.results["detail"])]
    page = gate_page(entries, case_pictures(run, MAX_CASE_PICTURES), title=f"Gate run of {run_title(run)}")
    write_text_file(path, page)


def run_title(run: drivers.GateRun) -> str:
    """``N cases`` for the page title."""
    return f"{len(run.results)} cases"


def append_request_ledger(path: str | Path, run: drivers.GateRun) -> None:
    """Append one ledger row per decided case of ``run`` (``gate.ledger_rows``; docs/recheck-rules.md)."""
    from claimgate.gate.ledger_rows import request_ledger_rows
    from claimgate.io.ledger_append import append_ledger

    pins = dict(zip(run.verified_sources["source_id"], run.verified_sources["sha256"]))
    requests = dict(zip(run.case_rows["position"], run.case_rows["request"]))
    results = run.results
    decided = zip(results["case_id"], (requests[p] for p in results["position"]), results["result"])
    versions = dict(zip(run.verified_sources["source_id"], run.verified_sources["version"]))
    append_ledger(path, request_ledger_rows(decided, pins, versions, run.schema))


def run(args: argparse.Namespace) -> int:
    """Decide every case of ``--cases`` against the pins of ``--manifest``; write ``--output``.

    ``-`` as ``--cases`` reads standard input, as ``--output`` writes JSON Lines to standard output
    (``cli.stdio``); a temporary folder holds either while the run lasts.
    """
    if args.output == stdio.STDIO and args.pictures:
        raise UsageError("--pictures needs an --output file (the pictures go beside it), not -")
    with stdio.temporary_folder() as folder:
        return _run(args, folder)


def _run(args: argparse.Namespace, folder: Path) -> int:
    to_stdout = args.output == stdio.STDIO
    output = folder / "results.jsonl" if to_stdout else Path(args.output)
    check_gate_output(output)
    check_execution_options(args)
    resolved = resolve_options(args, needs=("manifest",))
    args.manifest, args.schema = resolved.manifest, resolved.schema
    settings = run_settings(args)
    cases_path = stdio.spooled_input(folder, "stdin") if args.cases == stdio.STDIO else args.cases
    inputs = {"--manifest": args.manifest, "--cases": cases_path, "--schema": args.schema}
    inputs = {**inputs, **pinned_paths(args.manifest)}
    fail_on = fail_on_set(args.fail_on, GATE_STATUSES)
    extra = check_ci_outputs(args)
    pictures = [output.parent / name for name in DAG_PICTURES] if args.pictures else []
    check_outputs([output, *extra, *pictures, *ledger_paths(args)], inputs)
    if args.pictures:  # beside the output: DAG_PICTURES, cases/<name>.dot/.svg and cases/index.json
        check_inputs_outside(output.parent / "cases", "case pictures", inputs)
    notes: list[str] = []
    if output.suffix.lower() == ".jsonl" and not args.pictures and not args.report and not args.ledger:
        # JSONL is written chunk by chunk as the chunks are decided: memory bounded whatever the table's size.
        from claimgate.execution import streaming

        run = streaming.stream_gate(args.manifest, cases_path, output, args.schema, settings)
        cases, counts, ignored = run.cases, run.status_counts(), ignored_lines(run)
    else:
        run = drivers.run_gate(args.manifest, cases_path, args.schema, settings)
        # Pictures are drawn into a staging folder first and moved into place with the result, or not at all.
        with drivers.gc_paused(), staged_folder(output.parent) as stage:  # no collector passes over the entry dicts
            notes = draw_gate_pictures(run, stage.folder, per_case=True) if args.pictures else []
            document = gate_document(run, fixture_kind="user-supplied")
            write_gate_output(output, run, document)
            if args.report:
                write_gate_report(args.report, run, document)
            stage.commit()
            notes = [stage.final_text(note) for note in notes]
        if args.ledger:
            append_request_ledger(args.ledger, run)
        cases, ignored = len(run.results), document.get("ignored_directive_lines")
        counts = run.results.groupby(["status", "reason"]).size().rename("cases").reset_index()
    if to_stdout:
        stdio.copy_to_stdout(output)
    say = stdio.say_to(args.output)
    if not args.quiet:
        if not cases:  # an empty case table (a header only): a plain line, not an empty frame's repr
            say("no cases")
        else:
            if cases <= 50:
                say(summary_table(run))
            say(frame_table(counts))
        for line in ignored_lines_report({"ignored_directive_lines": ignored}):
            say(line)
        say(f"wrote {'standard output' if to_stdout else output}")
    for note in notes:
        print(note)
    announce_schema(resolved, args.quiet)  # on stderr, after the run: stdout and the output keep their bytes
    statuses = counts.groupby("status", sort=False)["cases"].sum().to_dict() if len(counts) else {}
    reasons = counts.groupby("reason", sort=False)["cases"].sum().to_dict() if len(counts) else {}
    if args.summary:
        write_summary(args.summary, counted_summary(statuses, reasons, int(cases)))
    return exit_status(statuses, fail_on)


COMMAND = Command("gate", HELP["gate"], add_arguments, run)
