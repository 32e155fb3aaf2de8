"""Speed of the indexed quote audit against the full-scan baseline (a report, not a test).

Generates a deterministic corpus of ``--docs`` documents of about 1 KB and ``--citations``
citations in one of two shapes (``--shape``): ``real`` (the default, ``benchmarks/real_prose.py``:
real sentences from the docstrings and documentation files that ship with Python and the
installed packages, and the arXiv abstracts; citations 40% verbatim, 30% misattributed,
30% changed) or ``synthetic`` (Zipf-distributed pseudo-words with punctuation, numbers,
line wraps, line-end hyphens, ligatures and non-breaking spaces; 40% real and correctly
cited, 30% real but cited to the wrong document, 30% fabricated; a tenth of the real
quotes carry an ellipsis). Both audits share one :class:`CorpusIndex`, so every
document is normalized once for both; the baseline then scans every document for
each miss (:func:`audit_quote_reference`), the indexed audit looks candidates up in the
postings (:func:`audit_quote`). Verdicts (the whole result dicts) are compared.

Prints citations/s for both, the speed ratio, peak resident memory (``ru_maxrss``)
and, with ``--growth``, the indexed per-citation cost on a corpus 10x smaller, to
give the per-citation cost ratio when the corpus grows 10x.

Diagnosis cost: the indexed audit alone and the indexed audit plus the near-miss
diagnosis of every rejected citation (``diagnosis.citation_diagnosis``, a fresh
``PassageIndex`` per timing, so building the per-document lookups is included) are
timed alternately, best of five each, with the garbage collector paused as in the
pipeline (target: at most 2x), with the kinds found; then one pathological
quote (long, against a document of many near passages) shows the step limit.

With ``--near-misses`` the fabricated 30% become near misses of real quotes of
their cited document (a changed number, a dropped, replaced or inserted word, two
pieces 18 words apart joined), which the diagnosis must align rather than dismiss.

Usage: ``python benchmarks/audit_scale.py [--shape real|synthetic] [--docs 20000] [--citations 4000]
[--scan-citations N] [--growth] [--near-misses] [--seed 0]``. Exit code 0. Indexed timings are
the best of three runs (five for the diagnosis comparison); the scan baseline is run once.
"""

from __future__ import annotations

import argparse
import pickle
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import real_prose  # noqa: E402
from claimgate.audit.diagnosis.diagnose import citation_diagnosis, diagnosis_with_steps  # noqa: E402
from claimgate.audit.diagnosis.kinds import DIAGNOSIS_STEP_LIMIT  # noqa: E402
from claimgate.audit.diagnosis.nearest_passage import PassageIndex  # noqa: E402
from claimgate.audit.index.build import build_corpus_index  # noqa: E402
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference  # noqa: E402
from claimgate.execution.drivers import gc_paused  # noqa: E402
from claimgate.synthetic.audit_inputs import make_citations, make_corpus  # noqa: E402


def inputs(shape: str, n_docs: int, n_citations: int, seed: int, pool: list[str] | None = None):
    """``(documents, words of each document, citations)`` of ``shape`` (``real`` or ``synthetic``)."""
    if shape == "real":
        docs = real_prose.make_corpus(n_docs, seed, pool)
        return docs, {d: t.split() for d, t in docs.items()}, real_prose.make_citations(n_citations, docs, seed)
    docs, doc_words, vocab, weights = make_corpus(n_docs, seed)
    return docs, doc_words, make_citations(n_citations, doc_words, vocab, weights, seed)


def run_indexed(index, citations, repeat: int = 3):
    """Results and the best of ``repeat`` wall-clock timings (the machine may be shared)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        results = [audit_quote(q, d, index) for _, q, d in citations]
        best = min(best, time.perf_counter() - t0)
    return results, best


def near_misses(citations, doc_words: dict[str, list[str]], seed: int):
    """The citations with every fabricated (real prose: changed) one replaced by a near miss of a cited real quote.

    Edits cycle through: a number changed, a word dropped, a word replaced, "not"
    inserted, two pieces 18 words apart joined. Deterministic (``random.Random(seed + 2)``).
    """
    rng = random.Random(seed + 2)
    out = []
    made = 0
    for kind, quote, doc_id in citations:
        if kind not in ("fabricated", "changed"):
            out.append((kind, quote, doc_id))
            continue
        made += 1
        words = doc_words[doc_id]
        i = rng.randrange(0, len(words) - 30)
        piece = list(words[i : i + 14])
        edit = ("number", "drop", "replace", "negation", "pieces 18 words apart")[made % 5]
        if edit == "number":
            piece[7] = f"{rng.randint(1, 999)}.{rng.randint(0, 9)}"
        elif edit == "drop":
            del piece[7]
        elif edit == "replace":
            piece[7] = "zyzzyva"
        elif edit == "negation":
            piece.insert(7, "not")
        else:
            piece = piece[:7] + list(words[i + 25 : i + 30])
        out.append((f"near miss: {edit}", " ".join(piece), doc_id))
    return out


def audit_with_and_without_diagnosis(index, citations, repeat: int = 5):
    """``(audit results, diagnoses, best seconds without, best seconds with)``, the two timed alternately.

    Both run with the cyclic garbage collector paused, as the pipeline runs the audit
    (``drivers.gc_paused``): otherwise collections that rescan the whole corpus index,
    triggered by whichever side allocates more, decide the ratio. Each timing with the
    diagnosis starts from a fresh ``PassageIndex``, so building the per-document
    lookups is inside it. Best of ``repeat`` each (the machine may be shared).
    """
    best_without = best_with = float("inf")
    with gc_paused():
        for _ in range(repeat):
            t0 = time.perf_counter()
            results = [audit_quote(q, d, index) for _, q, d in citations]
            best_without = min(best_without, time.perf_counter() - t0)
            t0 = time.perf_counter()
            passages = PassageIndex(index)
            diagnoses = []
            for _, q, d in citations:
                match = audit_quote(q, d, index)
                diagnoses.append(citation_diagnosis(q, d, match, passages))
            best_with = min(best_with, time.perf_counter() - t0)
    return results, diagnoses, best_without, best_with


def pathological_case() -> tuple[dict, int, float, int, int]:
    """One long quote against a document holding its sentence 3,000 times: (diagnosis, steps, seconds, sizes)."""
    sentence = "the model was trained on public data and evaluated on held out benchmarks"
    index = build_corpus_index({"big": " ".join(f"{sentence} run {k}." for k in range(3000))})
    quote = " ".join([sentence] * 40) + " with zero cost"
    match = audit_quote(quote, "big", index)
    t0 = time.perf_counter()
    diagnosis, steps = diagnosis_with_steps(quote, "big", match, PassageIndex(index))
    return diagnosis, steps, time.perf_counter() - t0, len(quote.split()), 3000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--shape", choices=("real", "synthetic"), default="real")
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--citations", type=int, default=4_000)
    ap.add_argument("--scan-citations", type=int, default=None,
                    help="run the scan baseline on the first N citations only (default: all)")  # fmt: skip
    ap.add_argument("--growth", action="store_true", help="also time the indexed audit on a 10x smaller corpus")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--near-misses", action="store_true",
                    help="replace the fabricated citations by near misses of real quotes (diagnosis cost)")  # fmt: skip
    args = ap.parse_args()

    t0 = time.perf_counter()
    pool = real_prose.sentence_pool() if args.shape == "real" else None
    docs, doc_words, citations = inputs(args.shape, args.docs, args.citations, args.seed, pool)
    if args.near_misses:
        citations = near_misses(citations, doc_words, args.seed)
    t_gen = time.perf_counter() - t0
    size = sum(map(len, docs.values()))
    t0 = time.perf_counter()
    index = build_corpus_index(docs)
    t_build = time.perf_counter() - t0

    indexed, t_indexed = run_indexed(index, citations)
    same, diagnosed, t_without, t_with = audit_with_and_without_diagnosis(index, citations)
    assert same == indexed  # the diagnosis runs on the gate's result and never changes it
    n_scan = len(citations) if args.scan_citations is None else min(args.scan_citations, len(citations))
    t0 = time.perf_counter()
    scanned = [audit_quote_reference(q, d, index) for _, q, d in citations[:n_scan]]
    t_scan = time.perf_counter() - t0
    _, t_indexed_same = run_indexed(index, citations[:n_scan])
    mismatches = sum(a != b for a, b in zip(indexed[:n_scan], scanned, strict=True))
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    verdicts: dict[tuple[str, str], int] = {}
    for (kind, _, _), r in zip(citations, indexed, strict=True):
        verdicts[(kind, r["verdict"])] = verdicts.get((kind, r["verdict"]), 0) + 1

    print(f"corpus ({args.shape}): {len(docs):,} documents, {size / 1e6:.1f} MB of text (generated in {t_gen:.1f} s); "
          f"{len(citations):,} citations")  # fmt: skip
    print(f"index build (normalize every document once + postings): {t_build:.1f} s\n")
    print("| audit | citations | seconds | citations/s | ms/citation |")
    print("|---|---:|---:|---:|---:|")
    print(f"| indexed (`audit_quote`) | {len(citations)} | {t_indexed:.2f} | {len(citations) / t_indexed:,.0f} | "
          f"{1000 * t_indexed / len(citations):.3f} |")  # fmt: skip
    for label, t in (("indexed, GC paused", t_without), ("indexed + diagnosis of rejected, GC paused", t_with)):
        print(f"| {label} | {len(citations)} | {t:.2f} | {len(citations) / t:,.0f} | "
              f"{1000 * t / len(citations):.3f} |")  # fmt: skip
    print(f"| indexed, same subset as scan | {n_scan} | {t_indexed_same:.2f} | {n_scan / t_indexed_same:,.0f} | "
          f"{1000 * t_indexed_same / n_scan:.3f} |")  # fmt: skip
    print(f"| scan baseline (`audit_quote_reference`) | {n_scan} | {t_scan:.2f} | {n_scan / t_scan:,.1f} | "
          f"{1000 * t_scan / n_scan:.3f} |")  # fmt: skip
    print()
    print("| measure | value | target |")
    print("|---|---:|---|")
    print(f"| speed-up indexed vs scan (same citations) | {t_scan / t_indexed_same:.1f}x | >= 10x |")
    print(f"| result mismatches indexed vs scan | {mismatches} / {n_scan} | 0 |")
    rejected = sum(m["verdict"] != "found" for m in indexed)
    print(f"| audit with / without diagnosis ({rejected} of {len(citations)} rejected) | "
          f"{t_with / t_without:.2f}x | <= 2x |")  # fmt: skip
    diagnosis, steps, t_path, words, copies = pathological_case()
    print(f"| pathological quote ({words} words, {copies:,} near passages): kind, steps, time | "
          f"{diagnosis['kind']}, {steps:,} steps, {1000 * t_path:.1f} ms | unknown, limit "
          f"{DIAGNOSIS_STEP_LIMIT:,} |")  # fmt: skip
    print(f"| peak resident memory (ru_maxrss, whole process) | {peak_mib:,.0f} MiB | < 1024 MiB |")
    t0 = time.perf_counter()
    blob = pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL)
    t_pickle = time.perf_counter() - t0
    print(f"| pickled index (sent to workers) | {len(blob) / 2**20:,.0f} MiB in {t_pickle:.1f} s | |")
    del blob

    if args.growth:
        small_docs, _, small_cits = inputs(args.shape, max(1, args.docs // 10), args.citations, args.seed, pool)
        small_index = build_corpus_index(small_docs)
        _, t_small = run_indexed(small_index, small_cits)
        _, t_big = run_indexed(index, citations)
        ratio = (t_big / len(citations)) / (t_small / len(small_cits))
        print(f"| indexed ms/citation at {len(small_docs):,} docs | {1000 * t_small / len(small_cits):.3f} | |")
        print(f"| indexed ms/citation at {len(docs):,} docs | {1000 * t_big / len(citations):.3f} | |")
        print(f"| per-citation cost ratio, corpus x10 | {ratio:.2f} | < 2 |")

    kinds: dict[tuple[str, str], int] = {}
    for (kind, _, _), found in zip(citations, diagnosed, strict=True):
        if found is not None:
            kinds[(kind, found["kind"])] = kinds.get((kind, found["kind"]), 0) + 1
    print()
    print("| citation kind | verdict | count |")
    print("|---|---|---:|")
    for (kind, verdict), count in sorted(verdicts.items()):
        print(f"| {kind} | {verdict} | {count} |")
    print()
    print("| citation kind | diagnosis | count |")
    print("|---|---|---:|")
    for (kind, found), count in sorted(kinds.items()):
        print(f"| {kind} | {found} | {count} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
