"""Speed of the indexed quote audit against the full-scan baseline (a report, not a test).

Generates a deterministic corpus (``--docs`` documents of ~1 KB of Zipf-distributed
pseudo-words with punctuation, numbers, line wraps, line-end hyphens, ligatures and
non-breaking spaces) and ``--citations`` citations: 40% real and correctly cited,
30% real but cited to the wrong document, 30% fabricated (a tenth of the real
quotes carry an ellipsis). Both audits share one :class:`CorpusIndex`, so every
document is normalized once for both; the baseline then scans every document for
each miss (:func:`audit_quote_scan`), the indexed audit looks candidates up in the
postings (:func:`audit_quote`). Verdicts (the whole result dicts) are compared.

Prints citations/s for both, the speed ratio, peak resident memory (``ru_maxrss``)
and, with ``--growth``, the indexed per-citation cost on a corpus 10x smaller, to
give the per-citation cost ratio when the corpus grows 10x.

Usage: ``python benchmarks/audit_scale.py [--docs 20000] [--citations 4000]
[--scan-citations N] [--growth] [--seed 0]``. Exit code 0. Indexed timings are
the best of three runs; the scan baseline is run once.
"""

from __future__ import annotations

import argparse
import itertools
import pickle
import random
import resource
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from dataflow.quotes import audit_quote, audit_quote_scan, build_corpus_index  # noqa: E402

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "pe", "da", "fu", "gri", "zo", "qua", "ben", "tor"]


def vocabulary(rng: random.Random, size: int) -> list[str]:
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(SYLLABLES) for _ in range(rng.randint(1, 4))))
    return sorted(words)


def make_corpus(n_docs: int, seed: int) -> tuple[dict[str, str], dict[str, list[str]], list[str], list[float]]:
    """``(documents, words of each document, vocabulary, cumulative Zipf weights)``."""
    rng = random.Random(seed)
    vocab = vocabulary(rng, 30_000)
    weights = list(itertools.accumulate(1.0 / (rank + 1) for rank in range(len(vocab))))  # cumulative Zipf
    docs: dict[str, str] = {}
    doc_words: dict[str, list[str]] = {}
    for k in range(n_docs):
        words = rng.choices(vocab, cum_weights=weights, k=rng.randint(75, 110))
        for i in range(0, len(words), rng.randint(9, 17)):
            words[i] = words[i].capitalize()
        for _ in range(3):
            words[rng.randrange(len(words))] = f"{rng.randint(1, 999)}.{rng.randint(0, 9)}"
        parts: list[str] = []
        for i, w in enumerate(words):
            sep = " "
            r = rng.random()
            if r < 0.06:
                w += ","
            elif r < 0.1:
                w += "."
            if i % 12 == 11:
                sep = "\n"
            parts.append(w + sep)
        text = "".join(parts)
        if k % 5 == 0:  # line-end hyphen inside a long word
            long_words = [w for w in words if len(w) >= 8 and w.isalpha()]
            if long_words:
                w = long_words[0]
                text = text.replace(w, w[:4] + "-\n" + w[4:], 1)
        if k % 7 == 0:
            text = text.replace("fi", "\ufb01", 1).replace(" ", "\u00a0", 3)
        doc_id = f"doc{k:06d}"
        docs[doc_id] = text
        doc_words[doc_id] = words
    return docs, doc_words, vocab, weights


def make_citations(n: int, doc_words: dict[str, list[str]], vocab, weights, seed: int) -> list[tuple[str, str, str]]:
    """``(kind, quote, cited_doc_id)``: 40% real, 30% misattributed, 30% fabricated."""
    rng = random.Random(seed + 1)
    ids = sorted(doc_words)
    out = []
    for c in range(n):
        r = c % 10
        doc_id = rng.choice(ids)
        words = doc_words[doc_id]
        length = rng.randint(8, 20)
        i = rng.randrange(0, len(words) - length - 8)
        if r < 7:
            if c % 10 == 3:
                quote = " ".join(words[i : i + 5]) + " ... " + " ".join(words[i + 8 : i + 8 + 5])
            else:
                quote = " ".join(words[i : i + length])
            if r < 4:
                out.append(("real", quote, doc_id))
            else:
                out.append(("misattributed", quote, rng.choice(ids)))
        else:
            out.append(("fabricated", " ".join(rng.choices(vocab, cum_weights=weights, k=length)), doc_id))
    return out


def run_indexed(index, citations, repeat: int = 3):
    """Results and the best of ``repeat`` wall-clock timings (the machine may be shared)."""
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        results = [audit_quote(q, d, index) for _, q, d in citations]
        best = min(best, time.perf_counter() - t0)
    return results, best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--citations", type=int, default=4_000)
    ap.add_argument("--scan-citations", type=int, default=None,
                    help="run the scan baseline on the first N citations only (default: all)")  # fmt: skip
    ap.add_argument("--growth", action="store_true", help="also time the indexed audit on a 10x smaller corpus")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    t0 = time.perf_counter()
    docs, doc_words, vocab, weights = make_corpus(args.docs, args.seed)
    citations = make_citations(args.citations, doc_words, vocab, weights, args.seed)
    t_gen = time.perf_counter() - t0
    size = sum(map(len, docs.values()))
    t0 = time.perf_counter()
    index = build_corpus_index(docs)
    t_build = time.perf_counter() - t0

    indexed, t_indexed = run_indexed(index, citations)
    n_scan = len(citations) if args.scan_citations is None else min(args.scan_citations, len(citations))
    t0 = time.perf_counter()
    scanned = [audit_quote_scan(q, d, index) for _, q, d in citations[:n_scan]]
    t_scan = time.perf_counter() - t0
    _, t_indexed_same = run_indexed(index, citations[:n_scan])
    mismatches = sum(a != b for a, b in zip(indexed[:n_scan], scanned, strict=True))
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    verdicts: dict[tuple[str, str], int] = {}
    for (kind, _, _), r in zip(citations, indexed, strict=True):
        verdicts[(kind, r["verdict"])] = verdicts.get((kind, r["verdict"]), 0) + 1

    print(f"corpus: {len(docs):,} documents, {size / 1e6:.1f} MB of text (generated in {t_gen:.1f} s); "
          f"{len(citations):,} citations")  # fmt: skip
    print(f"index build (normalize every document once + postings): {t_build:.1f} s\n")
    print("| audit | citations | seconds | citations/s | ms/citation |")
    print("|---|---:|---:|---:|---:|")
    print(f"| indexed (`audit_quote`) | {len(citations)} | {t_indexed:.2f} | {len(citations) / t_indexed:,.0f} | "
          f"{1000 * t_indexed / len(citations):.3f} |")  # fmt: skip
    print(f"| indexed, same subset as scan | {n_scan} | {t_indexed_same:.2f} | {n_scan / t_indexed_same:,.0f} | "
          f"{1000 * t_indexed_same / n_scan:.3f} |")  # fmt: skip
    print(f"| scan baseline (`audit_quote_scan`) | {n_scan} | {t_scan:.2f} | {n_scan / t_scan:,.1f} | "
          f"{1000 * t_scan / n_scan:.3f} |")  # fmt: skip
    print()
    print("| measure | value | target |")
    print("|---|---:|---|")
    print(f"| speed-up indexed vs scan (same citations) | {t_scan / t_indexed_same:.1f}x | >= 10x |")
    print(f"| result mismatches indexed vs scan | {mismatches} / {n_scan} | 0 |")
    print(f"| peak resident memory (ru_maxrss, whole process) | {peak_mib:,.0f} MiB | < 1024 MiB |")
    t0 = time.perf_counter()
    blob = pickle.dumps(index, protocol=pickle.HIGHEST_PROTOCOL)
    t_pickle = time.perf_counter() - t0
    print(f"| pickled index (sent to workers) | {len(blob) / 2**20:,.0f} MiB in {t_pickle:.1f} s | |")
    del blob

    if args.growth:
        small_docs, small_words, _, _ = make_corpus(max(1, args.docs // 10), args.seed)
        small_cits = make_citations(args.citations, small_words, vocab, weights, args.seed)
        small_index = build_corpus_index(small_docs)
        _, t_small = run_indexed(small_index, small_cits)
        _, t_big = run_indexed(index, citations)
        ratio = (t_big / len(citations)) / (t_small / len(small_cits))
        print(f"| indexed ms/citation at {len(small_docs):,} docs | {1000 * t_small / len(small_cits):.3f} | |")
        print(f"| indexed ms/citation at {len(docs):,} docs | {1000 * t_big / len(citations):.3f} | |")
        print(f"| per-citation cost ratio, corpus x10 | {ratio:.2f} | < 2 |")

    print()
    print("| citation kind | verdict | count |")
    print("|---|---|---:|")
    for (kind, verdict), count in sorted(verdicts.items()):
        print(f"| {kind} | {verdict} | {count} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
