#!/usr/bin/env python3
"""Benchmark: the gate's start-up, batch speed and memory, each next to its baseline, in one run.

    .venv/bin/python benchmarks/gate_scale.py                      # both shapes, 2,000 sources, 50,000 cases
    .venv/bin/python benchmarks/gate_scale.py --sources 200 --cases 2000 --memory-cases 0   # a quick smoke run

Every figure is a whole process (interpreter start-up and imports included), run as
a child and timed from outside; peak memory is the child's ``ru_maxrss`` (``os.wait4``).

- **start**: a 10-case ``run_pipeline.py gate`` (the fixtures' manifest, JSONL out)
  against ``python -c "import pandas"``, median of ``--start-runs`` runs each, interleaved.
- **batch**, for each input shape (``claimgate.synthetic.gate_inputs``: ``long``, the
  default pages of about 7.5 KB, 15.8 MB for 2,000; ``short``, 2,000 pages of 15–40
  short lines, 7.9 MB, 1–4 candidates over five requested versions): the command line
  (``run_pipeline.py gate ... --output X.jsonl --quiet``) against the baseline, a
  child that loads and verifies the manifest once and applies ``reference.decide_case``
  case by case (each case parses its eligible sources again, as docs/gate-rules.md says) and
  writes the same JSONL with the same writer. The two outputs must be byte-identical,
  or the benchmark fails (exit 1). The whole-table run (``drivers.run_gate`` then
  ``write_jsonl``, the path before streaming) is shown too.
- **memory**: the command line on ``--memory-cases`` cases (the short shape's cases
  repeated with new ids; JSONL in, JSONL out, streamed) against the whole-table run
  on the batch table.

On a shared machine a single run carries other processes' noise: batch figures are the
fastest of ``--repeat`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TARGET_START_RATIO = 2.0
TARGET_BATCH_RATIO = 5.0
TARGET_PEAK_MIB = 600


def run_baseline(manifest: Path, cases: Path, output: Path) -> None:
    """docs/gate-rules.md case by case: manifest verified once, ``decide_case`` per row, the same JSONL writer."""
    from claimgate.gate.reference import decide_case
    from claimgate.gate.result_object import case_entry, refused_result
    from claimgate.gate.schema import load_schema
    from claimgate.io.pinned_sources import verified_sources
    from claimgate.io.sources import read_manifest
    from claimgate.io.tables import case_table_frame, read_case_rows
    from claimgate.io.writers import write_jsonl

    sources = {record["source_id"]: record for record in verified_sources(read_manifest(manifest)).to_dict("records")}
    schema = load_schema(None)
    table = case_table_frame(read_case_rows(cases))  # the table-wide case_id checks (duplicates)

    def entries():
        for case_id, row, problem in zip(table["case_id"], table["request"], table["case_problem"]):
            if problem:
                result = refused_result("GateError", "invalid_case", "validated_requests")
            else:
                result = decide_case(row, sources, schema)
            yield case_entry(row, case_id, result)

    write_jsonl(output, entries())


def run_whole(manifest: Path, cases: Path, output: Path) -> None:
    """The whole-table run: one Hamilton execution over the whole table, then the JSONL writer."""
    from claimgate.cli.documents import case_entries
    from claimgate.execution import drivers
    from claimgate.io.writers import write_jsonl

    run = drivers.run_gate(manifest, cases)
    with drivers.gc_paused():
        write_jsonl(output, case_entries(run))


def child(kind: str, manifest: Path, cases: Path, output: Path) -> int:
    """One measured child process (``baseline`` or ``whole``)."""
    import claimgate  # noqa: F401

    {"baseline": run_baseline, "whole": run_whole}[kind](manifest, cases, output)
    return 0


def measure(command: list[str]) -> dict:
    """Run ``command`` as a child; return its wall seconds and peak resident MiB (``os.wait4``)."""
    started = time.perf_counter()
    process = subprocess.Popen(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.perf_counter() - started
    stderr = process.stderr.read().decode("utf-8", "replace")
    process.stderr.close()
    process.returncode = os.waitstatus_to_exitcode(status)
    if process.returncode != 0:
        sys.stderr.write(stderr)
        raise SystemExit(f"{' '.join(command[:4])} ... failed (exit {process.returncode})")
    peak = usage.ru_maxrss / (1024 * 1024) if sys.platform == "darwin" else usage.ru_maxrss / 1024
    return {"seconds": seconds, "peak_mib": peak}


def gate_command(manifest: Path, cases: Path, output: Path, executor: str = "local") -> list[str]:
    command = [sys.executable, str(ROOT / "run_pipeline.py"), "gate", "--manifest", str(manifest)]
    command += ["--cases", str(cases), "--output", str(output), "--quiet"]
    return command + (["--executor", executor] if executor != "local" else [])


def child_command(kind: str, manifest: Path, cases: Path, output: Path) -> list[str]:
    script = str(Path(__file__).resolve())
    return [sys.executable, script, "--child", kind, "--manifest", str(manifest), "--case-table", str(cases),
            "--output", str(output)]  # fmt: skip


def fastest(command: list[str], repeat: int, label: str) -> dict:
    runs = []
    for attempt in range(max(1, repeat)):
        runs.append(measure(command))
        print(f"{label} (run {attempt + 1}): {runs[-1]}", file=sys.stderr)
    return min(runs, key=lambda run: run["seconds"])


def start_figures(workdir: Path, runs: int) -> dict:
    """Median whole-process seconds of ``import pandas`` and of a 10-case gate run, interleaved."""
    fixtures = ROOT / "fixtures"
    cases = json.loads((fixtures / "cases.json").read_text(encoding="utf-8"))
    ten = [*cases, *({**case, "case_id": f"{case['case_id']}-again"} for case in cases)][:10]
    table = workdir / "ten.json"
    table.write_text(json.dumps(ten), encoding="utf-8")
    pandas_runs, gate_runs = [], []
    for _ in range(max(1, runs)):
        pandas_runs.append(measure([sys.executable, "-c", "import pandas"])["seconds"])
        gate_runs.append(measure(gate_command(fixtures / "manifest.json", table, workdir / "ten.jsonl"))["seconds"])
    return {"pandas": statistics.median(pandas_runs), "gate": statistics.median(gate_runs), "runs": len(gate_runs)}


def generate(workdir: Path, shape: str, n_sources: int, n_cases: int) -> tuple[Path, Path, float]:
    """Sources, manifest and a JSONL case table of ``n_cases`` rows for ``shape``."""
    from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

    manifest = write_sources(workdir / f"docs-{shape}", n_sources, shape=shape)
    source_bytes = sum(p.stat().st_size for p in (workdir / f"docs-{shape}" / "sources").iterdir())
    cases = write_case_table(workdir / f"cases-{shape}.jsonl", case_rows(manifest, n_cases, shape=shape))
    return manifest, cases, source_bytes / 1e6


def repeated_table(source: Path, target: Path, n_cases: int) -> Path:
    """``n_cases`` rows: the rows of ``source`` over and over, each with a new ``case_id`` (written as streamed)."""
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines()]
    with target.open("w", encoding="utf-8") as handle:
        for number in range(n_cases):
            row = dict(rows[number % len(rows)])
            if isinstance(row, dict):
                row["case_id"] = f"case-{number:08d}"
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return target


def batch_figures(workdir: Path, shape: str, args: argparse.Namespace) -> dict:
    manifest, cases, megabytes = generate(workdir, shape, args.sources, args.cases)
    batch_out, baseline_out, whole_out = (workdir / f"{kind}-{shape}.jsonl" for kind in ("batch", "baseline", "whole"))
    batch = fastest(gate_command(manifest, cases, batch_out, args.executor), args.repeat, f"batch {shape}")
    baseline = fastest(child_command("baseline", manifest, cases, baseline_out), args.repeat, f"baseline {shape}")
    whole = fastest(child_command("whole", manifest, cases, whole_out), 1, f"whole-table {shape}")
    produced = batch_out.read_bytes()
    identical = produced == baseline_out.read_bytes() == whole_out.read_bytes()
    return {"shape": shape, "manifest": manifest, "cases": cases, "megabytes": megabytes, "batch": batch,
            "baseline": baseline, "whole": whole, "identical": identical, "output_bytes": len(produced)}  # fmt: skip


def met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=50_000, help="cases in the batch table (default 50,000)")
    parser.add_argument("--sources", type=int, default=2_000, help="pinned sources (default 2,000)")
    parser.add_argument("--shapes", default="long,short", help="input shapes, comma-separated (default long,short)")
    parser.add_argument("--memory-cases", type=int, default=1_000_000,
                        help="cases of the streamed memory run (default 1,000,000; 0 skips it)")  # fmt: skip
    parser.add_argument("--start-runs", type=int, default=5, help="runs of each start-up command (median)")
    parser.add_argument("--workdir", type=Path, help="folder for inputs and outputs (default: a temporary folder)")
    parser.add_argument("--executor", default="local", help="executor of the batch run (default local)")
    parser.add_argument("--repeat", type=int, default=3, help="runs of each batch measurement; the fastest counts")
    parser.add_argument("--child", choices=("baseline", "whole"), help=argparse.SUPPRESS)
    parser.add_argument("--manifest", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--case-table", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--output", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        return child(args.child, args.manifest, args.case_table, args.output)

    with tempfile.TemporaryDirectory(prefix="claimgate-gate-scale-") as tmp:
        workdir = args.workdir or Path(tmp)
        workdir.mkdir(parents=True, exist_ok=True)
        start = start_figures(workdir, args.start_runs)
        shapes = [batch_figures(workdir, shape.strip(), args) for shape in args.shapes.split(",") if shape.strip()]
        memory = None
        if args.memory_cases > 0 and shapes:
            source = shapes[-1]
            big = repeated_table(source["cases"], workdir / "cases-memory.jsonl", args.memory_cases)
            memory = measure(gate_command(source["manifest"], big, workdir / "memory.jsonl"))
            memory["shape"] = source["shape"]
            big.unlink()
            (workdir / "memory.jsonl").unlink()

    ratio = start["gate"] / start["pandas"]
    lines = [
        f"Gate benchmarks: {platform.python_implementation()} {platform.python_version()}, {os.cpu_count()} cores, "
        f"{platform.machine()}; whole processes timed from outside; executor `{args.executor}`.",
        "",
        "| target | figure | baseline | ratio | target | |",
        "|---|---:|---:|---:|---:|---|",
        f"| start: 10-case `gate` run (median of {start['runs']}) | {start['gate']:.2f} s | "
        f"`import pandas` {start['pandas']:.2f} s | {ratio:.2f}× | ≤ {TARGET_START_RATIO:.0f}× | "
        f"{met(ratio <= TARGET_START_RATIO)} |",
    ]
    identical = True
    for figures in shapes:
        speedup = figures["baseline"]["seconds"] / figures["batch"]["seconds"]
        identical &= figures["identical"]
        lines.append(
            f"| batch, {figures['shape']} pages ({args.sources:,} sources, {figures['megabytes']:.1f} MB; "
            f"{args.cases:,} cases) | {figures['batch']['seconds']:.2f} s | rules case by case "
            f"{figures['baseline']['seconds']:.2f} s | {speedup:.1f}× | ≥ {TARGET_BATCH_RATIO:.0f}× | "
            f"{met(speedup >= TARGET_BATCH_RATIO)} |"
        )
    for figures in shapes:
        lines.append(
            f"| memory, {figures['shape']} pages, {args.cases:,} cases, streamed | "
            f"{figures['batch']['peak_mib']:.0f} MiB | whole-table run {figures['whole']['peak_mib']:.0f} MiB "
            f"({figures['whole']['seconds']:.2f} s) | | ≤ {TARGET_PEAK_MIB} MiB | "
            f"{met(figures['batch']['peak_mib'] <= TARGET_PEAK_MIB)} |"
        )
    if memory is not None:
        lines.append(
            f"| memory, {memory['shape']} pages, {args.memory_cases:,} cases, streamed | {memory['peak_mib']:.0f} MiB "
            f"({memory['seconds']:.1f} s) | | | ≤ {TARGET_PEAK_MIB} MiB | "
            f"{met(memory['peak_mib'] <= TARGET_PEAK_MIB)} |"
        )
    lines += [
        "",
        "- outputs byte-identical (streamed command line, rules case by case, whole-table run): "
        + ", ".join(f"{f['shape']}: {'yes' if f['identical'] else 'NO'} ({f['output_bytes']:,} bytes)" for f in shapes),
    ]
    print("\n".join(lines))
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
