"""Quote-gate accuracy on public arXiv abstracts (a report, not a test).

Builds citation cases deterministically from ``shared/bench/arxiv_abstracts.json``
for every case mode of ``shared/bench/README.md`` and prints, per mode, how many
cases were built, how many the audit marked ``found``, and the detection rate (bad
modes: verdict != ``found``) or false-positive rate (honest modes: verdict !=
``found``), beside the published gate's 1.0000 / 0.1721.

Cases come from the first two sentences longer than 60 characters of each
abstract (split after ``.!?`` before a capital). A mode that does not apply to a
sentence (no number, no hedge word, ...) builds no case for it. Every bad quote is
checked to be a real edit: if its casefolded, white-space-collapsed text is still a
substring of the cited abstract, the case is dropped and counted in ``dropped``.
The elision-drops-negation mode takes its cases from (a) honest
``first four ... last four`` ellipses whose elided words contain a negation (the
project rule relabels them) and (b) every sentence of every abstract with a
negation, eliding just the negation: between two fragments, and at a quote's edge
(``... words after it``, ``words before it ...``).

Usage: ``python benchmarks/arxiv_quote_gate.py [--corpus PATH]``. Exit code 0.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from claimgate.audit.diagnosis.diagnose import citation_diagnosis  # noqa: E402
from claimgate.audit.diagnosis.nearest_passage import PassageIndex  # noqa: E402
from claimgate.audit.index.build import build_corpus_index  # noqa: E402
from claimgate.audit.matching.audit import audit_quote  # noqa: E402
from claimgate.audit.text.negation import NEGATION_WORDS  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[1].parent / "shared/bench/arxiv_abstracts.json"
SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
ELLIPSES = ["...", "…", ". . .", "[...]", "[…]"]
MISATTRIBUTION_STRIDE = 7
NEGATION_RE = re.compile(r"\b(?:" + "|".join(sorted(NEGATION_WORDS)) + r")\b|n['’]t\b", re.IGNORECASE)

FLIPS = {
    "improves": "degrades", "improve": "degrade", "improved": "degraded", "increase": "decrease",
    "increases": "decreases", "outperforms": "underperforms", "outperform": "underperform",
    "better": "worse", "higher": "lower", "lower": "higher", "more": "less", "less": "more",
    "best": "worst", "large": "small", "small": "large", "strong": "weak", "significantly": "marginally",
    "effective": "ineffective", "reduces": "increases", "reduce": "increase", "faster": "slower",
    "robust": "fragile", "accurate": "inaccurate", "consistently": "rarely", "superior": "inferior",
}  # fmt: skip
HEDGES = ["may", "might", "often", "can", "could", "usually", "typically", "generally", "likely", "possibly",
          "potentially", "largely", "mostly", "sometimes", "frequently", "approximately", "nearly", "partially",
          "relatively", "somewhat"]  # fmt: skip
SYNONYMS = {
    "method": "approach", "approach": "method", "significant": "substantial", "improve": "enhance",
    "improves": "enhances", "show": "demonstrate", "shows": "demonstrates", "use": "employ", "uses": "employs",
    "novel": "new", "new": "novel", "results": "findings", "propose": "present", "present": "propose",
    "models": "systems", "model": "system", "task": "problem", "tasks": "problems", "performance": "accuracy",
    "large": "big", "achieves": "attains", "framework": "architecture", "evaluate": "assess",
    "data": "information", "study": "investigate", "introduce": "present", "existing": "current",
}  # fmt: skip
AUXILIARIES = {"is", "are", "was", "were", "can", "could", "does", "do", "did", "will", "would", "should",
               "may", "might", "has", "have"}  # fmt: skip
HONEST = ["exact", "smart_typography", "wrapped_whitespace", "upper_case", "inner_7_words", "ligatures",
          "soft_hyphens", "hyphen_line_break", "cyrillic_lookalikes", "nbsp", "ellipsis", "bracket_sic"]  # fmt: skip
BAD = ["flipped_word_or_reversed_span", "frankenquote", "misattributed", "number_changed", "not_inserted",
       "hedge_dropped", "near_synonym", "elision_drops_negation"]  # fmt: skip


def bare(word: str) -> str:
    return re.sub(r"^\W+|\W+$", "", word).lower()


def replace_word(words: list[str], table: dict[str, str]) -> list[str] | None:
    for k, w in enumerate(words):
        b = bare(w)
        if b in table:
            out = list(words)
            new = table[b]
            out[k] = w.replace(b, new) if b in w else w.replace(b.capitalize(), new.capitalize())
            return out
    return None


def honest_case(mode: str, sent: str, k: int) -> str | None:
    words = sent.split()
    if mode == "exact":
        return sent
    if mode == "smart_typography":
        s = re.sub(r'"([^"]*)"', "“\\1”", sent).replace("'", "’").replace(" - ", " — ").replace("...", "…")
        return f"“{s}”"
    if mode == "wrapped_whitespace":
        return "".join(w + ("\n" if i % 6 == 5 else "  ") for i, w in enumerate(words)).strip()
    if mode == "upper_case":
        return sent.upper()
    if mode == "inner_7_words":
        return " ".join(words[2:9]) if len(words) >= 11 else None
    if mode == "ligatures":
        s = sent
        for a, b in (("ffi", "ﬃ"), ("ffl", "ﬄ"), ("ff", "ﬀ"), ("fi", "ﬁ"), ("fl", "ﬂ")):
            s = s.replace(a, b)
        return s if s != sent else None
    if mode == "soft_hyphens":
        out = [w[: len(w) // 2] + "\u00ad" + w[len(w) // 2 :] if w.isalpha() and len(w) >= 8 else w for w in words]
        return " ".join(out) if out != words else None
    if mode == "hyphen_line_break":
        for i, w in enumerate(words):
            if w.isalpha() and len(w) >= 8:
                return " ".join(words[:i] + [w[: len(w) // 2] + "-\n" + w[len(w) // 2 :]] + words[i + 1 :])
        return None
    if mode == "cyrillic_lookalikes":
        return sent.replace("o", "\u043e").replace("e", "\u0435")
    if mode == "nbsp":
        return sent.replace(" ", "\u00a0")
    if mode == "ellipsis":
        if len(words) < 12 or NEGATION_RE.search(" ".join(words[4:-4])):
            return None
        return " ".join(words[:4]) + f" {ELLIPSES[k % len(ELLIPSES)]} " + " ".join(words[-4:])
    if mode == "bracket_sic":
        return " ".join(words[:4] + ["[sic]"] + words[4:])
    raise ValueError(mode)


def bad_case(mode: str, sents: list[str], j: int, k: int) -> str | None:
    sent = sents[j]
    words = sent.split()
    if mode == "flipped_word_or_reversed_span":
        flipped = replace_word(words, FLIPS)
        if flipped is not None:
            return " ".join(flipped)
        if len(words) < 8:
            return None
        return " ".join(words[:3] + words[3:7][::-1] + words[7:])
    if mode == "frankenquote":
        if j + 1 >= len(sents):
            return None
        other = sents[j + 1].split()
        return " ".join(words[: len(words) // 2] + other[len(other) // 2 :])
    if mode == "number_changed":
        m = re.search(r"\d+(?:\.\d+)?", sent)
        if not m:
            return None
        num = m.group()
        last = num[-1]
        changed = num[:-1] + ("8" if last == "9" else str(int(last) + 1))
        return sent[: m.start()] + changed + sent[m.end() :]
    if mode == "not_inserted":
        for i, w in enumerate(words):
            if bare(w) in AUXILIARIES and i + 1 < len(words) and bare(words[i + 1]) != "not":
                return " ".join(words[: i + 1] + ["not"] + words[i + 1 :])
        return " ".join(words[:3] + ["not"] + words[3:])
    if mode == "hedge_dropped":
        for i, w in enumerate(words):
            if bare(w) in HEDGES and w.isalpha():
                return " ".join(words[:i] + words[i + 1 :])
        return None
    if mode == "near_synonym":
        swapped = replace_word(words, SYNONYMS)
        return " ".join(swapped) if swapped else None
    raise ValueError(mode)


def negation_elisions(sent: str, k: int) -> list[str]:
    """Quotes of ``sent`` that elide exactly one negation word.

    Inner: ``before ... after`` (>= 4 words either side). Edge: ``... after`` (the
    negation just before a leading ellipsis) and ``before ...`` (just after a trailing
    one), >= 4 words kept.
    """
    words = sent.split()
    out = []
    for i, w in enumerate(words):
        if NEGATION_RE.fullmatch(bare(w)) or re.search(r"n['’]t\W*$", w.lower()):
            before, after = words[max(0, i - 6) : i], words[i + 1 : i + 7]
            mark = ELLIPSES[(k + i) % len(ELLIPSES)]
            if len(before) >= 4 and len(after) >= 4:
                out.append(" ".join(before) + f" {mark} " + " ".join(after))
            if len(after) >= 4:
                out.append(f"{mark} " + " ".join(after))
            if len(before) >= 4:
                out.append(" ".join(before) + f" {mark}")
    return out


def squash(text: str) -> str:
    return " ".join(text.casefold().split())


def build_cases(docs: dict[str, str]) -> list[dict]:
    ids = sorted(docs)
    cases: list[dict] = []
    for n, doc_id in enumerate(ids):
        all_sents = SENTENCE_SPLIT.split(docs[doc_id])
        sents = [s for s in all_sents if len(s) > 60]
        for j, sent in enumerate(sents[:2]):
            k = 2 * n + j
            for mode in HONEST:
                q = honest_case(mode, sent, k)
                if q is not None:
                    cases.append({"mode": mode, "kind": "honest", "quote": q, "cited": doc_id})
            words = sent.split()
            if len(words) >= 12 and NEGATION_RE.search(" ".join(words[4:-4])):
                q = " ".join(words[:4]) + f" {ELLIPSES[k % len(ELLIPSES)]} " + " ".join(words[-4:])
                cases.append({"mode": "elision_drops_negation", "kind": "bad", "quote": q, "cited": doc_id})
            other = ids[(n + MISATTRIBUTION_STRIDE) % len(ids)]
            cases.append({"mode": "misattributed", "kind": "bad", "quote": sent, "cited": other, "true": doc_id})
            for mode in BAD:
                if mode in ("misattributed", "elision_drops_negation"):
                    continue
                q = bad_case(mode, sents, j, k)
                if q is not None:
                    cases.append({"mode": mode, "kind": "bad", "quote": q, "cited": doc_id})
        for i, sent in enumerate(all_sents):
            for q in negation_elisions(sent, n + i):
                cases.append({"mode": "elision_drops_negation", "kind": "bad", "quote": q, "cited": doc_id})
    return cases


DOCS: dict[str, str] = {}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    args = ap.parse_args()
    docs = json.loads(args.corpus.read_text(encoding="utf-8"))
    DOCS.update(docs)
    t0 = time.perf_counter()
    index = build_corpus_index(docs)
    t_build = time.perf_counter() - t0
    cases = build_cases(docs)
    stats: dict[str, dict] = defaultdict(lambda: defaultdict(int))
    squashed = {d: squash(t) for d, t in docs.items()}
    passages = PassageIndex(index)
    t_diagnose = 0.0
    t0 = time.perf_counter()
    for case in cases:
        st = stats[case["mode"]]
        if case["kind"] == "bad" and case["mode"] != "elision_drops_negation" and case["mode"] != "misattributed":
            if squash(case["quote"]) in squashed[case["cited"]]:
                st["dropped"] += 1  # the edit left a quote that is still verbatim: not a bad case
                continue
        r = audit_quote(case["quote"], case["cited"], index)
        st["n"] += 1
        st[r["verdict"]] += 1
        st["reason:" + r["reason"]] += 1
        if case["mode"] == "misattributed" and r["verdict"] == "misattributed" and case["true"] in r["matched_doc_ids"]:
            st["named_true_source"] += 1
        if case["kind"] == "bad":
            t1 = time.perf_counter()
            diagnosis = citation_diagnosis(case["quote"], case["cited"], r, passages)
            t_diagnose += time.perf_counter() - t1
            if diagnosis is not None:
                st["kind:" + diagnosis["kind"]] += 1
    t_audit = time.perf_counter() - t0 - t_diagnose

    print(
        f"corpus: {len(docs)} abstracts, {sum(map(len, docs.values())):,} characters; "
        f"index built in {t_build:.2f} s; {sum(s['n'] for s in stats.values())} cases audited in {t_audit:.2f} s; "
        f"rejected bad cases diagnosed in {t_diagnose:.2f} s\n"
    )
    print("| mode | kind | n | found | rate | main verdict/reason of the others | diagnosis kinds | dropped |")
    print("|---|---|---:|---:|---:|---|---|---:|")
    tot = {"honest": [0, 0], "bad": [0, 0]}
    for kind, modes in (("honest", HONEST), ("bad", BAD)):
        for mode in modes:
            st = stats[mode]
            n, found = st["n"], st["found"]
            if kind == "honest":
                bad_n = n - found
                rate = f"FPR {bad_n / n:.4f}" if n else "-"
            else:
                bad_n = n - found
                rate = f"detected {bad_n / n:.4f}" if n else "-"
            tot[kind][0] += n
            tot[kind][1] += bad_n
            reasons = sorted(
                ((v, k[7:]) for k, v in st.items() if k.startswith("reason:") and k != "reason:verbatim_match"),
                reverse=True,
            )
            note = ", ".join(f"{r} {v}" for v, r in reasons[:2])
            if mode == "misattributed":
                note += f"; true source named in {st['named_true_source']}/{n}"
            kinds = sorted(((v, k[5:]) for k, v in st.items() if k.startswith("kind:")), key=lambda x: (-x[0], x[1]))
            diagnosed = ", ".join(f"{k} {v}" for v, k in kinds) or "-"
            print(f"| {mode} | {kind} | {n} | {found} | {rate} | {note} | {diagnosed} | {st['dropped']} |")
    hn, hfp = tot["honest"]
    bn, bdet = tot["bad"]
    print()
    print("| measure | claimgate | published gate |")
    print("|---|---:|---:|")
    print(f"| detection rate (bad citations caught) | {bdet / bn:.4f} ({bdet}/{bn}) | 1.0000 (1,221) |")
    print(f"| false-positive rate (honest quotes rejected) | {hfp / hn:.4f} ({hfp}/{hn}) | 0.1721 (3,371) |")
    edge_policies(index, stats, hn, hfp)
    return 0


def edge_cases(docs: dict[str, str]) -> list[dict]:
    """Quotes that start right after a deciding word or a negation (``fewer than | 5% of runs fail``)."""
    out = []
    for doc_id in sorted(docs):
        for sent in SENTENCE_SPLIT.split(docs[doc_id]):
            words = sent.split()
            for i, w in enumerate(words[:-6]):
                if bare(w) in EDGE_WORDS:
                    out.append({"quote": " ".join(words[i + 1 : i + 9]), "cited": doc_id})
                    break
    return out


#: Deciding words and negators a quote may start right after (the edge benchmark's cases).
EDGE_WORDS = {"not", "no", "never", "than", "unless", "except", "only", "most", "least", "over", "under", "below",
              "above", "more", "less", "fewer", "without"}  # fmt: skip


def edge_policies(index, stats, hn: int, hfp: int) -> None:
    """Both policies for a quote at a deciding word (docs/audit-rules.md, "Deciding words"), in one table."""
    warned_honest = sum(stats[m]["reason:verbatim_match_at_deciding_word"] for m in HONEST)
    edge = edge_cases(DOCS)
    verdicts = [audit_quote(c["quote"], c["cited"], index) for c in edge]
    warned_edge = sum(r["reason"] == "verbatim_match_at_deciding_word" for r in verdicts)
    print()
    print("A quote starting or ending right at a deciding word or negation (an edge without an ellipsis):")
    print()
    print("| policy | honest quotes refused (FPR) | edge quotes flagged or refused |")
    print("|---|---:|---:|")
    print(
        f"| `found` with the `verbatim_match_at_deciding_word` warning (chosen) | {hfp / hn:.4f} ({hfp}/{hn}); "
        f"{warned_honest} warned | {warned_edge}/{len(edge)} warned |"
    )
    print(
        f"| `not_found` | {(hfp + warned_honest) / hn:.4f} ({hfp + warned_honest}/{hn}) | "
        f"{warned_edge}/{len(edge)} refused |"
    )


if __name__ == "__main__":
    sys.exit(main())
