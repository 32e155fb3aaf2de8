"""Online decisions: ``Gate.decide`` per call next to the seed's rules for one case, loading included (a report).

- **Gate.decide**: a ``Gate`` built once (``Gate.from_manifest``), then one call per
  case; each call checks its candidates' pins (a stat each) and decides with
  ``gate.reference.decide_case`` over the verified sources.
- **seed, one case**: what the seed did for one case: read the manifest, read and
  SHA-256 every pinned file, then ``decide_case`` (the claim schema, which the seed
  held in code, is loaded once).

On the fixtures (7 pinned files, the cases of ``fixtures/cases.json``) and on
2,000 generated sources (``synthetic.gate_inputs.write_sources``, 2,000 generated
cases). Prints median microseconds per call over ``--repeat`` passes and checks
that both give the same result for every case (exit 1 if not). Targets: on the
fixtures at most 10x the seed's one-case time; on 2,000 sources under 2 ms.

Usage: ``python benchmarks/online_decide.py [--repeat 5] [--sources 2000]``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "dataflow"))

from claimgate.api import Gate  # noqa: E402
from claimgate.gate.reference import decide_case  # noqa: E402
from claimgate.gate.schema import load_schema  # noqa: E402
from claimgate.io.sources import document_revision  # noqa: E402
from claimgate.resources import fixtures_dir  # noqa: E402
from claimgate.synthetic.gate_inputs import case_rows, write_sources  # noqa: E402


def seed_records(manifest_path: Path) -> dict[str, dict]:
    """The seed's loading for one case: the manifest, then every pinned file read and hashed."""
    manifest = json.loads(manifest_path.read_text(encoding="utf-8"))
    root = manifest_path.parent
    records = {}
    for entry in manifest["sources"]:
        raw = (root / entry["path"]).read_bytes()
        if hashlib.sha256(raw).hexdigest() != entry["sha256"]:
            raise SystemExit(f"hash mismatch: {entry['path']}")
        record = {k: entry[k] for k in ("source_id", "version", "path", "url", "sha256")}
        record["document_revision"] = document_revision(record)
        record["text"] = raw.decode("utf-8-sig")  # one leading BOM dropped, as the gate reads a pinned file
        records[entry["source_id"]] = record
    return records


def valid_cases(rows: list) -> list[dict]:
    """Rows with the three request fields and a list of candidates (``decide`` takes them as arguments)."""
    keys = ("candidate_ids", "requested_version", "claim_key")
    return [r for r in rows if isinstance(r, dict) and all(k in r for k in keys) and isinstance(r[keys[0]], list)]


def per_call_us(calls, repeat: int) -> float:
    """Median over ``repeat`` passes of the mean microseconds per call of one pass over ``calls``."""
    passes = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        for call in calls:
            call()
        passes.append((time.perf_counter() - t0) / len(calls) * 1e6)
    return statistics.median(passes)


def measure(manifest: Path, cases: list[dict], repeat: int, seed_cases: int) -> tuple[float, float, int]:
    """``(Gate.decide µs/call, seed µs/case, mismatches)``."""
    gate = Gate.from_manifest(manifest)
    schema = load_schema(None)
    args = [(c["candidate_ids"], c["requested_version"], c["claim_key"], c.get("operation")) for c in cases]
    records = seed_records(manifest)
    mismatches = sum(gate.decide(*a) != decide_case(c, records, schema) for a, c in zip(args, cases, strict=True))
    decide_us = per_call_us([lambda a=a: gate.decide(*a) for a in args], repeat)
    some = cases[:seed_cases]
    seed_us = per_call_us([lambda c=c: decide_case(c, seed_records(manifest), schema) for c in some], repeat)
    return decide_us, seed_us, mismatches


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--sources", type=int, default=2000)
    args = ap.parse_args()
    fixture_manifest = fixtures_dir() / "manifest.json"
    fixture_cases = valid_cases(json.loads((fixtures_dir() / "cases.json").read_text(encoding="utf-8")))
    rows = [measure(fixture_manifest, fixture_cases * 20, args.repeat, len(fixture_cases))]
    with tempfile.TemporaryDirectory() as tmp:
        manifest = write_sources(Path(tmp) / "src", n_sources=args.sources)
        generated = valid_cases(case_rows(manifest, 2000))
        rows.append(measure(manifest, generated, args.repeat, 5))
    print(f"medians of {args.repeat} passes; µs per call (per case for the seed, loading included)\n")
    print("| manifest | Gate.decide µs | seed one case µs | ratio | target | mismatches |")
    print("|---|---:|---:|---:|---|---:|")
    (fd, fs, fm), (gd, gs, gm) = rows
    print(f"| fixtures (7 sources) | {fd:,.0f} | {fs:,.0f} | {fd / fs:.2f}x | <= 10x the seed | {fm} |")
    print(f"| {args.sources:,} generated sources | {gd:,.0f} | {gs:,.0f} | {gd / gs:.3f}x | < 2,000 µs | {gm} |")
    return 1 if fm or gm else 0


if __name__ == "__main__":
    sys.exit(main())
