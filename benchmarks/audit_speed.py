"""Whole-process speed of the citation audit, real prose and synthetic: cold, warm and the public gate's method.

Shapes (both printed, real prose first): **real prose** (``benchmarks/real_prose.py``:
documents of about 1 KB of real sentences from the docstrings and documentation files that
ship with Python and the installed packages, and the arXiv abstracts of ``../shared/bench``;
citations verbatim, misattributed and changed) and **synthetic**
(``claimgate.synthetic.audit_inputs``: pseudo-words). Each gets ``--docs`` documents and
``--citations`` citations written into a folder, then runs, each as its own process and
``--repeat`` times interleaved (medians reported):

- **baseline**: ``benchmarks/public_gate_baseline.py`` (normalize every document once,
  NFKC + case fold + white space collapsed, then ``str.find`` in the cited document
  and, on a miss, in every other one; no claimgate import);
- **cold**: ``run_pipeline.py audit --corpus ... --citations ... --output ... --quiet``;
- **cold, --single-process**: the same without the forked helper that normalizes part of a big
  corpus file (``claimgate.audit.index.ahead``), so on one core;
- **warm**: the same with ``--cache DIR`` after a first run filled ``DIR``;
- **cold, compiled from source**: only when the environment sets ``PYTHONDONTWRITEBYTECODE`` (this project's
  build machine does): the cold run as that setting has it, every claimgate module compiled again in every
  run. The other runs, baseline included, run as Python does by default, with its bytecode cache, as an
  installed or checked-out copy runs on a user's machine: the variable is removed from their environment and
  ``PYTHONPYCACHEPREFIX`` names a folder in the work folder, which the first, cache-filling run fills (so
  nothing is written into the source tree, and the source-compiled runs find no bytecode of claimgate's).

Prints wall seconds and peak resident memory (``ru_maxrss`` of each child, from
``os.wait4``: for a run with a helper, the larger of the two processes; CPU times add the helper's)
side by side with the ratios, checks that the cold, one-process and warm outputs are
byte-identical (exit 1 if not), compares verdicts with the baseline on the
citations both accept as well-formed, and measures in this process the
normalization rate (``index_build.normalized_chunk`` over the corpus, characters
per second) and the share of documents the array rules leave to the reference
tokenizer (``NormalizedChunk.reference`` plus the documents ``negation.needs_token_scan``
tokenizes again). ``--large`` adds a cold, a warm and an after-one-edit run (with a cold run of
the edited corpus, outputs compared) at 200,000 real-prose documents (memory). The load average
(``os.getloadavg``) is printed before and after.

Usage: ``python benchmarks/audit_speed.py [--docs 20000] [--citations 4000] [--repeat 3]
[--baseline-repeat 1] [--shapes real,synthetic] [--large] [--workdir DIR]``.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "dataflow"))

import pandas  # noqa: E402,F401 - imported by every audit run; pyarrow.compute comes with it
from claimgate.audit.index import cache as index_cache  # noqa: E402
from claimgate.audit.index.build import CHUNK_CHARS, build_corpus_index, normalized_chunk  # noqa: E402
from claimgate.audit.text.negation import needs_token_scan  # noqa: E402
from claimgate.synthetic.audit_inputs import make_citations, make_corpus  # noqa: E402

sys.path.insert(0, str(ROOT / "benchmarks"))
import real_prose  # noqa: E402

ACCEPTED_BY_BOTH = {"found", "misattributed", "not_found"}


def write_inputs(folder: Path, n_docs: int, n_citations: int, seed: int = 0, shape: str = "synthetic") -> dict:
    """Write ``corpus.json`` and ``citations.jsonl`` of ``shape`` (``real`` or ``synthetic``); returns the corpus."""
    if shape == "real":
        return real_prose.write_inputs(folder, n_docs, n_citations, seed)
    docs, doc_words, vocab, weights = make_corpus(n_docs, seed)
    (folder / "corpus.json").write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    with open(folder / "citations.jsonl", "w", encoding="utf-8") as handle:
        for i, (kind, quote, doc_id) in enumerate(make_citations(n_citations, doc_words, vocab, weights, seed)):
            row = {"citation_id": f"c{i}", "claim": kind, "doc_id": doc_id, "quote": quote}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return docs


def write_inputs_in_child(folder: Path, n_docs: int, n_citations: int, shape: str = "real") -> int:
    """:func:`write_inputs` in a child process; returns the corpus's characters.

    A child's peak resident memory as ``wait4`` reports it includes its parent's peak
    (the high-water mark survives the fork and exec of ``subprocess``), so this process
    never holds a large corpus itself: the 200,000-document runs measure only themselves.
    """
    code = (
        "import sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]); import audit_speed; "
        "docs = audit_speed.write_inputs(Path(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), shape=sys.argv[5]); "
        "print(sum(map(len, docs.values())))"
    )
    argv = [sys.executable, "-c", code, str(ROOT / "benchmarks"), str(folder), str(n_docs), str(n_citations), shape]
    return int(subprocess.run(argv, check=True, capture_output=True, text=True).stdout)


def edited_copy_in_child(folder: Path, edited: Path) -> None:
    """``edited``: ``folder``'s corpus with its middle document (by id) edited (a word and a number put in after
    its first word), and the same citations; done in a child process (see ``write_inputs_in_child``)."""
    code = (
        "import json, sys; from pathlib import Path; src, dst = Path(sys.argv[1]), Path(sys.argv[2]); "
        "docs = json.loads((src / 'corpus.json').read_text(encoding='utf-8')); key = sorted(docs)[len(docs) // 2]; "
        "docs[key] = docs[key].replace(' ', ' edited 123 ', 1); dst.mkdir(parents=True, exist_ok=True); "
        "(dst / 'corpus.json').write_text(json.dumps(docs, ensure_ascii=False), encoding='utf-8'); "
        "(dst / 'citations.jsonl').write_bytes((src / 'citations.jsonl').read_bytes())"
    )
    subprocess.run([sys.executable, "-c", code, str(folder), str(edited)], check=True)


def after_one_edit(folder: Path) -> dict:
    """The run after one edit of ``folder``'s corpus with a copy of its filled cache (a delta on its index), and a
    cold run of the edited corpus: ``{"edit": timed, "cold": timed, "identical": bool}``."""
    edited = folder / "edited"
    edited_copy_in_child(folder, edited)
    shutil.rmtree(edited / "index-cache", ignore_errors=True)
    shutil.copytree(folder / "index-cache", edited / "index-cache")
    edit = timed(audit_argv(edited, edited / "after-edit.jsonl", edited / "index-cache"))
    cold = timed(audit_argv(edited, edited / "cold.jsonl"))
    same = (edited / "after-edit.jsonl").read_bytes() == (edited / "cold.jsonl").read_bytes()
    return {"edit": edit, "cold": cold, "identical": same}


#: The environment of the timed processes: Python's default bytecode cache (see the module's docstring), kept
#: under ``PYTHONPYCACHEPREFIX`` (set by ``main`` to a folder of the work folder).
CACHED_BYTECODE_ENV = {
    k: v for k, v in os.environ.items() if k not in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")
}
#: Whether this environment compiles every module from source in every run (then also timed that way).
SOURCE_COMPILED = bool(os.environ.get("PYTHONDONTWRITEBYTECODE"))


def timed(argv: list[str], env: dict | None = None) -> tuple[float, float, float]:
    """``(wall seconds, peak resident MiB, CPU seconds: user + system)`` of one child process; raises if it fails.
    ``env``: the child's environment (``None``: :data:`CACHED_BYTECODE_ENV`)."""
    t0 = time.perf_counter()
    env = CACHED_BYTECODE_ENV if env is None else env
    child = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - t0
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise RuntimeError(f"{argv} failed: {child.stderr.read().decode()[-2000:]}")
    child.stderr.close()
    return wall, usage.ru_maxrss / 1024, usage.ru_utime + usage.ru_stime


def audit_argv(folder: Path, output: Path, cache: Path | None = None) -> list[str]:
    argv = [sys.executable, str(ROOT / "run_pipeline.py"), "audit", "--corpus", str(folder / "corpus.json")]
    argv += ["--citations", str(folder / "citations.jsonl"), "--output", str(output), "--quiet"]
    argv += ["--max-corpus-bytes", str(1 << 30)]  # the 200,000-document corpus is 185 MB
    return argv + (["--cache", str(cache)] if cache is not None else [])


def normalization_rate(docs: dict[str, str], repeat: int) -> tuple[float, float, int]:
    """``(wall, CPU)`` median characters per second of ``normalized_chunk``, chunked as the build does, and the
    number of documents the reference tokenizer sees (left by the array rules, or scanned again for negations)."""
    texts = [docs[d] for d in sorted(docs)]
    chunks, current, size = [], [], 0
    for text in texts:
        current.append(text)
        size += len(text) + 1
        if size >= CHUNK_CHARS:
            chunks.append(current)
            current, size = [], 0
    if current:
        chunks.append(current)
    rates, cpu_rates = [], []
    chars = sum(map(len, texts))
    referenced = 0
    for _ in range(repeat):
        t0, c0 = time.perf_counter(), time.process_time()
        left = [normalized_chunk(chunk).reference for chunk in chunks]
        rates.append(chars / (time.perf_counter() - t0))
        cpu_rates.append(chars / (time.process_time() - c0))
        referenced = sum(
            len(refs) + sum(needs_token_scan(t) for k, t in enumerate(chunk) if k not in refs)
            for chunk, refs in zip(chunks, left, strict=True)
        )
    return statistics.median(rates), statistics.median(cpu_rates), referenced


def index_step(docs: dict[str, str], cache: Path, repeat: int) -> tuple[float, float]:
    """Median seconds of the index step in this process: ``(cold build, warm key + load)``."""
    cold, warm = [], []
    key = index_cache.corpus_key(docs)
    for _ in range(repeat):
        t0 = time.perf_counter()
        build_corpus_index(docs)
        cold.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        loaded = index_cache.load_index(cache, index_cache.corpus_key(docs), docs)
        warm.append(time.perf_counter() - t0)
        if loaded is None:
            raise RuntimeError(f"no cached index under {cache} for key {key}")
    return statistics.median(cold), statistics.median(warm)


def compare_verdicts(folder: Path, ours: Path, theirs: Path, docs: dict[str, str]) -> dict[str, int]:
    """Counts of agreement on citations both accept as well-formed, and the kinds of disagreement."""
    quotes = {json.loads(line)["citation_id"]: json.loads(line)["quote"] for line in open(folder / "citations.jsonl")}
    base = {r["citation_id"]: r["verdict"] for r in map(json.loads, open(theirs))}
    counts = {"both_accept": 0, "same_verdict": 0, "only_punctuation_differs": 0, "other_difference": 0}

    def blind(text: str) -> str:
        """The public gate's normalization with punctuation read as white space and line-end hyphens joined."""
        text = re.sub(r"(?<=[^\W\d_])-[ \t]*\n[ \t]*(?=[^\W\d_])", "", text)
        return " ".join(re.sub(r"[^\w\s]", " ", unicodedata.normalize("NFKC", text).casefold()).split())

    for row in map(json.loads, open(ours)):
        verdict, theirs_verdict = row["gate_verdict"], base[row["citation_id"]]
        if verdict not in ACCEPTED_BY_BOTH or theirs_verdict not in ACCEPTED_BY_BOTH:
            continue
        counts["both_accept"] += 1
        if verdict == theirs_verdict:
            counts["same_verdict"] += 1
        elif (
            theirs_verdict == "not_found"
            and row["matched_doc_ids"]
            and blind(quotes[row["citation_id"]]) in blind(docs[row["matched_doc_ids"][0]])
        ):
            counts["only_punctuation_differs"] += 1  # found by claimgate; for them a comma, stop or line-end hyphen
        else:
            counts["other_difference"] += 1
    return counts


def measure(folder: Path, repeat: int, baseline_repeat: int, with_baseline: bool) -> dict:
    cache = folder / "index-cache"
    cold, single, warm, base, source = [], [], [], [], []
    timed(audit_argv(folder, folder / "warm.jsonl", cache))  # fills the cache (a cold run plus the write)
    for i in range(repeat):
        if with_baseline and i < baseline_repeat:
            script = ROOT / "benchmarks" / "public_gate_baseline.py"
            argv = [sys.executable, str(script), str(folder / "corpus.json"), str(folder / "citations.jsonl")]
            base.append(timed([*argv, str(folder / "baseline.jsonl")]))
        cold.append(timed(audit_argv(folder, folder / "cold.jsonl")))
        single.append(timed([*audit_argv(folder, folder / "single.jsonl"), "--single-process"]))
        warm.append(timed(audit_argv(folder, folder / "warm.jsonl", cache)))
        if SOURCE_COMPILED:
            source.append(timed(audit_argv(folder, folder / "source.jsonl"), dict(os.environ)))
    names = ("cold", "single", "warm", *(("source",) if SOURCE_COMPILED else ()))
    outputs = {(folder / f"{name}.jsonl").read_bytes() for name in names}
    return {
        "cold": cold,
        "single": single,
        "warm": warm,
        "baseline": base,
        "source": source,
        "identical": len(outputs) == 1,
    }


def median(runs: list[tuple[float, float]], field: int) -> float:
    return statistics.median(r[field] for r in runs)


def run_shape(shape: str, root: Path, args) -> dict:
    """Write the inputs of ``shape``, run the processes and the in-process measures; the figures of one column."""
    folder = root / f"audit-{shape}-{args.docs}"
    folder.mkdir(parents=True, exist_ok=True)
    docs = write_inputs(folder, args.docs, args.citations, shape=shape)
    runs = measure(folder, args.repeat, args.baseline_repeat, not args.no_baseline)
    out = {"docs": len(docs), "chars": sum(map(len, docs.values())), "runs": runs}
    out["rate"] = normalization_rate(docs, args.repeat)
    out["step"] = index_step(docs, folder / "index-cache", args.repeat)
    if runs["baseline"]:
        out["counts"] = compare_verdicts(folder, folder / "cold.jsonl", folder / "baseline.jsonl", docs)
    return out


def print_tables(shapes: dict[str, dict], args) -> None:
    """The run table and the measure table, one column per shape."""
    names = list(shapes)
    label = {"real": "real prose", "synthetic": "synthetic"}
    for name, r in shapes.items():
        base = len(r["runs"]["baseline"])
        print(f"{label[name]}: {r['docs']:,} documents, {r['chars'] / 1e6:.1f} M characters; {args.citations:,} "
              f"citations; medians of {args.repeat} whole-process runs (baseline: {base})")  # fmt: skip
    print(f"real prose from: {real_prose.sources_note()}\n")
    print("| run | " + " | ".join(f"{label[n]} wall s | {label[n]} peak RSS MiB" for n in names) + " |")
    print("|---|" + "---:|---:|" * len(names))
    for run in ("baseline", "cold", "single", "warm", *(("source",) if SOURCE_COMPILED else ())):
        cells = []
        for n in names:
            runs = shapes[n]["runs"][run]
            cells.append(f"{median(runs, 0):.2f} | {median(runs, 1):,.0f}" if runs else "- | -")
        title = {
            "single": "cold, --single-process (no helper)",
            "source": "cold, compiled from source each run (PYTHONDONTWRITEBYTECODE, as this environment sets)",
        }.get(run, run)
        print(f"| {title} | " + " | ".join(cells) + " |")
    print("\n| measure | " + " | ".join(label[n] for n in names) + " | target |")
    print("|---|" + "---:|" * len(names) + "---|")

    def row(title: str, cell, target: str) -> None:
        print(f"| {title} | " + " | ".join(cell(shapes[n]) for n in names) + f" | {target} |")

    def speedup(r: dict) -> str:
        runs = r["runs"]
        return f"{median(runs['baseline'], 0) / median(runs['cold'], 0):.1f}x" if runs["baseline"] else "-"

    def cpu_speedup(r: dict) -> str:
        runs = r["runs"]
        if not runs["baseline"]:
            return "-"
        base, cold = median(runs["baseline"], 2), median(runs["cold"], 2)
        return f"{base / cold:.1f}x ({cold:.2f} s vs {base:.2f} s)"

    def single_speedup(r: dict) -> str:
        runs = r["runs"]
        if not runs["baseline"]:
            return "-"
        return f"{median(runs['baseline'], 0) / median(runs['single'], 0):.1f}x"

    row("cold audit vs public-gate baseline (speed-up)", speedup, ">= 10x")
    row("... by CPU time of the processes (user + system, the helper's included)", cpu_speedup, "")
    row("... cold with --single-process (one core) vs baseline", single_speedup, "")
    if SOURCE_COMPILED:
        row("... cold, compiled from source each run, vs baseline",
            lambda r: f"{median(r['runs']['baseline'], 0) / median(r['runs']['source'], 0):.1f}x"
            if r["runs"]["baseline"] else "-", "")  # fmt: skip
    row("warm vs cold (speed-up, whole process)",
        lambda r: f"{median(r['runs']['cold'], 0) / median(r['runs']['warm'], 0):.1f}x", ">= 5x")  # fmt: skip

    def step(r: dict) -> str:
        return f"{r['step'][0] / r['step'][1]:.1f}x ({r['step'][1]:.2f} s vs {r['step'][0]:.2f} s)"

    row("index step in process, warm (hash + load) vs cold (build)", step, ">= 5x")
    row("normalization (in process, wall clock)", lambda r: f"{r['rate'][0] / 1e6:.1f} M characters/s", ">= 20 M/s")
    row("normalization (in process, CPU time)", lambda r: f"{r['rate'][1] / 1e6:.1f} M characters/s", ">= 20 M/s")
    row("documents through the reference tokenizer",
        lambda r: f"{r['rate'][2]:,} ({100 * r['rate'][2] / max(r['docs'], 1):.2f}%)", "< 1%")  # fmt: skip
    row("cold, one-process and warm outputs byte-identical", lambda r: str(r["runs"]["identical"]), "True")
    if all("counts" in shapes[n] for n in names):
        row("citations both accept as well-formed", lambda r: f"{r['counts']['both_accept']:,}", "")
        row("... same verdict", lambda r: f"{r['counts']['same_verdict']:,}", "")
        row("... differ only by punctuation or a line-end hyphen between words (found by claimgate)",
            lambda r: f"{r['counts']['only_punctuation_differs']:,}", "")  # fmt: skip
        row("... other differences", lambda r: f"{r['counts']['other_difference']:,}", "0")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--citations", type=int, default=4_000)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--baseline-repeat", type=int, default=1, help="baseline runs (it takes about a minute each)")
    ap.add_argument("--no-baseline", action="store_true")
    ap.add_argument("--shapes", default="real,synthetic", help="comma-separated: real, synthetic (in that order)")
    ap.add_argument(
        "--large", action="store_true", help="also cold, warm and after one edit at 200,000 real-prose documents"
    )
    ap.add_argument("--workdir", type=Path, default=None)
    args = ap.parse_args()

    identical = True
    load = os.getloadavg()
    with tempfile.TemporaryDirectory() as tmp:
        root = args.workdir or Path(tmp)
        CACHED_BYTECODE_ENV["PYTHONPYCACHEPREFIX"] = str(root / "bytecode")
        shapes = {name: run_shape(name, root, args) for name in args.shapes.split(",")}
        identical &= all(r["runs"]["identical"] for r in shapes.values())
        print(f"load average (1 min) before / after: {load[0]:.2f} / {os.getloadavg()[0]:.2f}")
        print_tables(shapes, args)
        if args.large:
            big = root / "audit-real-200000"
            big.mkdir(parents=True, exist_ok=True)
            big_chars = write_inputs_in_child(big, 200_000, args.citations, "real")
            large = measure(big, 1, 0, False)
            print(f"\n200,000 real-prose documents ({big_chars / 1e6:.0f} M characters), one run each, "
                  f"load {os.getloadavg()[0]:.2f}:\n")  # fmt: skip
            print("| run | wall s | peak RSS MiB | target |")
            print("|---|---:|---:|---|")
            print(f"| cold | {large['cold'][0][0]:.1f} | {large['cold'][0][1]:,.0f} | < 1024 MiB |")
            print(f"| warm | {large['warm'][0][0]:.1f} | {large['warm'][0][1]:,.0f} | < 1024 MiB |")
            edit = after_one_edit(big)
            print(f"| warm after one edit (a delta on the cached index) | {edit['edit'][0]:.1f} | "
                  f"{edit['edit'][1]:,.0f} | < 1024 MiB |")  # fmt: skip
            print(f"| cold, the edited corpus | {edit['cold'][0]:.1f} | {edit['cold'][1]:,.0f} | < 1024 MiB |")
            print(f"\noutputs after one edit and cold on the edited corpus byte-identical: {edit['identical']}")
            identical &= large["identical"] and edit["identical"]
    return 0 if identical else 1


if __name__ == "__main__":
    sys.exit(main())
