"""Speed of ``claimgate recheck`` against re-auditing every citation (a report, not a test).

The issue's figure: 100,000 ledger rows over 20,000 documents with 1% of the documents edited,
``claimgate recheck`` against the baseline of re-auditing every row from scratch (``claimgate
audit`` over the same citations and today's corpus), both timed as whole processes
(``subprocess``, start-up and file reading included), side by side, in one run. Target: 20x.

Two shapes, both printed, real prose first:

- **real prose** (``benchmarks/real_prose.py``, as ``audit_speed.py`` uses it): documents of about 1,000
  characters of the sentences that ship with this machine's Python and packages (docstrings, ``.rst``/
  ``.md`` files) and the arXiv abstracts; citations 40% verbatim (some with an ellipsis), 30%
  misattributed, 30% changed (a word replaced or dropped, ``not`` inserted);
- **arXiv + synthetic**: the 295 arXiv abstracts of the shared folder's ``bench/arxiv_abstracts.json``
  (cited by their own sentences) and synthetic documents of ``claimgate.synthetic.audit_inputs`` for the
  rest (Zipf pseudo-words with numbers, line wraps, hyphens and ligatures); citations from
  ``make_citations`` (40% real, 30% misattributed, 30% fabricated).

For each, the ledger is written once by ``claimgate audit --ledger`` (not timed). Then 1% of the
documents are edited (a third each: a number changed, a paragraph put in front so spans move, a
sentence appended) and both commands run against the new corpus. Status counts are printed so the work
done is visible (``not_held``: citations the audit had rejected, which are not audited again).

Pairs: the commands run in turn ``--pairs`` times (audit, recheck, ``recheck --single-process``, audit, …)
so that the load of a shared machine hits them alike; each pair's ratios are printed and the median ratio is
the figure, with the load average (``os.getloadavg``) before and after. ``recheck`` has a forked helper scan
the ledger's last part on the second core; ``--single-process`` (one core) is printed beside it, with whether
the two outputs are byte-identical. CPU is the processes' user + system time, the helper's included.

Usage: ``python benchmarks/recheck_speed.py [--docs 20000] [--rows 100000] [--edited 0.01]
[--abstracts PATH] [--seed 0] [--pairs 3] [--shapes real,synthetic] [--keep DIR]``. Exit code 0.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "dataflow"))

from claimgate.synthetic.audit_inputs import make_citations, make_corpus  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
import real_prose  # noqa: E402

ABSTRACTS = Path("/work/shared/bench/arxiv_abstracts.json")


def corpus_and_citations(n_docs: int, n_rows: int, abstracts: Path, seed: int) -> tuple[dict, list[dict]]:
    """Documents ``{doc_id: text}`` and ``n_rows`` citations over them (abstracts first, then synthetic)."""
    prose = json.loads(abstracts.read_text(encoding="utf-8")) if abstracts.exists() else {}
    docs, doc_words, vocab, weights = make_corpus(n_docs - len(prose), seed)
    cites = []
    for doc_id, text in sorted(prose.items()):  # real prose: each abstract cited by three of its sentences
        sentences = [s for s in re.split(r"(?<=[.!?])\s+", text) if len(s) > 60][:3]
        cites += [(f"arxiv/{doc_id}", s) for s in sentences]
    rows = [{"citation_id": f"p{i}", "doc_id": d, "quote": q} for i, (d, q) in enumerate(cites)]
    synthetic = make_citations(n_rows - len(rows), doc_words, vocab, weights, seed)
    rows += [{"citation_id": f"s{i}", "doc_id": d, "quote": q} for i, (_, q, d) in enumerate(synthetic)]
    return {**{f"arxiv/{k}": v for k, v in prose.items()}, **docs}, rows


def real_prose_inputs(n_docs: int, n_rows: int, seed: int) -> tuple[dict, list[dict]]:
    """Documents and ``n_rows`` citations of the real-prose shape (``benchmarks/real_prose.py``)."""
    documents = real_prose.make_corpus(n_docs, seed)
    cites = real_prose.make_citations(n_rows, documents, seed)
    return documents, [{"citation_id": f"c{i}", "doc_id": d, "quote": q} for i, (_, q, d) in enumerate(cites)]


def edited(documents: dict, share: float, seed: int) -> tuple[dict, int]:
    """A copy of ``documents`` with ``share`` of them edited (number changed, text put in front, or appended)."""
    rng = random.Random(seed + 7)
    chosen = rng.sample(sorted(documents), max(1, int(len(documents) * share)))
    new = dict(documents)
    for k, doc_id in enumerate(chosen):
        text = new[doc_id]
        if k % 3 == 0:
            new[doc_id] = (
                re.sub(r"\d+", lambda m: str(int(m[0]) + 1), text, count=1) if re.search(r"\d", text) else text + "!"
            )
        elif k % 3 == 1:
            new[doc_id] = "A paragraph added in this release.\n\n" + text
        else:
            new[doc_id] = text + "\nA sentence added in this release."
    return new, len(chosen)


def timed(argv: list[str]) -> tuple[float, float]:
    """(wall-clock, CPU) seconds of one whole process (exit 0 or 1 expected; anything else fails the benchmark).

    CPU is user plus system time of the child (``RUSAGE_CHILDREN``): on a shared machine it shows the
    work apart from the waiting.
    """
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True)
    seconds = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(argv[:3])} failed ({done.returncode}): {done.stderr.strip()}")
    return seconds, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def run_shape(name: str, documents: dict, citations: list[dict], args, work: Path) -> None:
    """Write the ledger, edit the corpus, run the pairs and print the shape's figures."""
    work.mkdir(parents=True, exist_ok=True)
    (work / "v1.json").write_text(json.dumps(documents, ensure_ascii=False), encoding="utf-8")
    (work / "cites.jsonl").write_text("".join(json.dumps(c) + "\n" for c in citations), encoding="utf-8")
    new, n_edited = edited(documents, args.edited, args.seed)
    (work / "v2.json").write_text(json.dumps(new, ensure_ascii=False), encoding="utf-8")
    ledger = work / "ledger.jsonl"
    ledger.unlink(missing_ok=True)
    cmd = [sys.executable, "-m", "claimgate"]
    common = ["--citations", str(work / "cites.jsonl"), "--quiet"]
    setup = timed([*cmd, "audit", "--corpus", str(work / "v1.json"), *common, "--output", str(work / "a1.jsonl"),
                   "--ledger", str(ledger)])  # fmt: skip
    load_before = os.getloadavg()
    pairs = []
    for _ in range(max(1, args.pairs)):  # in turn, so that the machine's load hits both alike
        audit = timed([*cmd, "audit", "--corpus", str(work / "v2.json"), *common, "--output", str(work / "a2.jsonl")])
        recheck = timed([*cmd, "recheck", "--ledger", str(ledger), "--corpus", str(work / "v2.json"),
                         "--output", str(work / "r.jsonl"), "--quiet"])  # fmt: skip
        single = timed([*cmd, "recheck", "--ledger", str(ledger), "--corpus", str(work / "v2.json"),
                        "--output", str(work / "r1.jsonl"), "--quiet", "--single-process"])  # fmt: skip
        pairs.append((audit, recheck, single))
    load_after = os.getloadavg()
    same = (work / "r.jsonl").read_bytes() == (work / "r1.jsonl").read_bytes()
    rows = [json.loads(line) for line in (work / "r.jsonl").read_text(encoding="utf-8").splitlines()]
    statuses = Counter(r["status"] for r in rows)
    kinds = Counter((r.get("diagnosis") or {}).get("kind") for r in rows if r["status"] == "invalid")
    print(f"== {name}: {len(rows):,} ledger rows over {len(documents):,} documents ("
          f"{sum(k.startswith('arxiv/') for k in documents)} arXiv abstracts as documents of their own); "
          f"{n_edited} documents edited ({args.edited:.0%}), {(work / 'ledger.jsonl').stat().st_size / 1e6:.0f} MB "
          "ledger")  # fmt: skip
    print(f"writing the ledger (audit --ledger, not compared): {setup[0]:.1f} s")
    print(f"load average (1, 5, 15 min): before {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}, "
          f"after {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f} (on {os.cpu_count()} CPUs)")  # fmt: skip
    print(f"{'pair':<6}{'re-audit every row':>21} {'claimgate recheck --ledger':>29} {'ratio':>13}"
          f"   {'recheck --single-process':>26} {'ratio':>13}")  # fmt: skip
    print(f"{'':<6}{'wall':>12} {'CPU':>8} {'wall':>20} {'CPU':>8} {'wall':>6} {'CPU':>6}"
          f"   {'wall':>17} {'CPU':>8} {'wall':>6} {'CPU':>6}")  # fmt: skip
    for n, (audit, recheck, single) in enumerate(pairs, 1):
        print(f"{n:<6}{audit[0]:11.2f}s {audit[1]:7.2f}s {recheck[0]:19.2f}s {recheck[1]:7.2f}s "
              f"{audit[0] / recheck[0]:5.1f}x {audit[1] / recheck[1]:5.1f}x   {single[0]:16.2f}s {single[1]:7.2f}s "
              f"{audit[0] / single[0]:5.1f}x {audit[1] / single[1]:5.1f}x")  # fmt: skip
    for label, k in (("recheck", 1), ("recheck --single-process", 2)):
        wall = statistics.median(p[0][0] / p[k][0] for p in pairs)
        cpu = statistics.median(p[0][1] / p[k][1] for p in pairs)
        print(f"speed-up of {label}, median of {len(pairs)} pairs: {wall:.1f}x wall, {cpu:.1f}x CPU (target 20x)")
    print(f"the two rechecks' outputs: {'byte-identical' if same else 'DIFFERENT'}")
    print("statuses: " + ", ".join(f"{s} {n:,}" for s, n in statuses.most_common()))
    print("invalid by diagnosis: " + (", ".join(f"{k} {n:,}" for k, n in kinds.most_common()) or "none"))
    print()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--docs", type=int, default=20_000)
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--edited", type=float, default=0.01)
    parser.add_argument("--abstracts", type=Path, default=ABSTRACTS)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--pairs", type=int, default=3, help="audit/recheck pairs run in turn (median ratio)")
    parser.add_argument("--shapes", default="real,synthetic", help="which shapes, in this order")
    parser.add_argument("--keep", type=Path, help="keep the inputs and outputs in this folder")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="recheck-bench-"))
    shapes = [s.strip() for s in args.shapes.split(",") if s.strip()]
    if "real" in shapes:
        print(f"real prose from: {real_prose.sources_note()}\n")
    for shape in shapes:
        if shape == "real":
            documents, citations = real_prose_inputs(args.docs, args.rows, args.seed)
            run_shape("real prose", documents, citations, args, work / "real")
        elif shape == "synthetic":
            documents, citations = corpus_and_citations(args.docs, args.rows, args.abstracts, args.seed)
            run_shape("arXiv abstracts + synthetic", documents, citations, args, work / "synthetic")
        else:
            raise SystemExit(f"unknown shape {shape!r} (real, synthetic)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
