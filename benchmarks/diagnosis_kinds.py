"""Diagnosis kinds named right, per kind, on near misses generated from real sentences (a report, not a test).

Sentences: the arXiv abstracts of the shared folder's ``bench/`` and the docstrings of the
standard library's modules (text that ships with Python). For each sentence one near miss of
each kind is made, by a rule of that kind only:

- ``number_changed``: one number's last digit changed;
- ``negation_changed``: ``not`` inserted after an auxiliary, or a negator deleted;
- ``unmarked_elision``: one to three inner words deleted (no mark), none of them a number or negator;
- ``light_edit``: one inner word replaced by another word of the same corpus (no number, no negator);
- ``stitched``: the first half of the sentence glued to the second half of the next sentence;
  ``stitched_far``: the first half of the sentence two further on glued before this one's second half;
- ``unmarked_elision_long``: four to six inner words (no number, no negator) deleted;
- ``paraphrase``: five inner words replaced by five other corpus words;
- ``fabricated``: ten corpus words of other documents, none of this one's.

Each is audited against its source and diagnosed; a case whose audit is ``found`` (the edit left
verbatim text) is dropped. Prints per kind: cases, named right, rate, and what the others were
named. Rules: docs/audit-rules.md, "Diagnosis".
"""

from __future__ import annotations

import argparse
import json
import pydoc
import random
import re
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "dataflow"))

from claimgate.audit.diagnosis.diagnose import citation_diagnosis  # noqa: E402
from claimgate.audit.diagnosis.kinds import DIAGNOSIS_KINDS  # noqa: E402
from claimgate.audit.diagnosis.nearest_passage import PassageIndex  # noqa: E402
from claimgate.audit.index.build import build_corpus_index  # noqa: E402
from claimgate.audit.matching.audit import audit_quote  # noqa: E402
from claimgate.audit.text.negation import DECIDING_WORDS_BY_LANGUAGE, NEGATION_WORDS  # noqa: E402

DEFAULT_CORPUS = Path(__file__).resolve().parents[2] / "shared" / "bench" / "arxiv_abstracts.json"
SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
STDLIB_MODULES = ("json", "csv", "argparse", "pathlib", "difflib", "textwrap", "functools", "itertools",
                  "collections", "subprocess", "logging", "unittest", "shutil", "tempfile", "datetime", "decimal",
                  "fractions", "statistics", "random", "heapq", "bisect", "string", "re", "zipfile",
                  "tarfile")  # fmt: skip
AUXILIARIES = {"is", "are", "was", "were", "can", "could", "does", "do", "did", "will", "would", "should", "may",
               "might", "has", "have", "must"}  # fmt: skip
_DECIDING = {w for kinds in DECIDING_WORDS_BY_LANGUAGE.values() for ws in kinds.values() for p in ws for w in p.split()}
_PLAIN = re.compile(r"^[a-z]{3,}$")


#: Harder variants of a kind, named by the kind they should be diagnosed as.
EXPECTED = {"unmarked_elision_long": "unmarked_elision", "stitched_far": "stitched"}


def stdlib_docs() -> dict[str, str]:
    """Docstrings of standard-library modules and their public members: ``{module.member: text}``."""
    out: dict[str, str] = {}
    for name in STDLIB_MODULES:
        module = pydoc.locate(name)
        for attr in [None, *sorted(dir(module))]:
            obj = module if attr is None else getattr(module, attr, None)
            if attr is not None and attr.startswith("_"):
                continue
            doc = getattr(obj, "__doc__", None)
            if isinstance(doc, str) and len(doc) > 200 and (attr is None or getattr(obj, "__module__", "") == name):
                out[f"{name}.{attr}" if attr else name] = " ".join(doc.split())
    return out


def plain(word: str) -> bool:
    """A word free to edit: lower-case letters only, not a number, negator or deciding word."""
    return bool(_PLAIN.match(word)) and word not in NEGATION_WORDS and word not in _DECIDING


def near_misses(sents: list[str], j: int, vocab: list[str], rng: random.Random) -> dict[str, str]:
    """One near miss per kind of sentence ``j`` (a kind is left out where its rule does not apply)."""
    words = sents[j].split()
    out: dict[str, str] = {}
    inner = [i for i in range(2, len(words) - 2) if plain(words[i])]
    m = re.search(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])", sents[j])
    if m:
        num = m.group()
        out["number_changed"] = sents[j][: m.start()] + num[:-1] + str((int(num[-1]) + 3) % 10) + sents[j][m.end() :]
    aux = [i for i in range(1, len(words) - 3) if words[i].lower() in AUXILIARIES and words[i + 1] != "not"]
    negs = [i for i in range(1, len(words) - 1) if words[i].lower().strip(",.;") in NEGATION_WORDS]
    if negs:
        out["negation_changed"] = " ".join(words[: negs[0]] + words[negs[0] + 1 :])
    elif aux:
        out["negation_changed"] = " ".join(words[: aux[0] + 1] + ["not"] + words[aux[0] + 1 :])
    if len(inner) >= 3:
        k = rng.choice(inner[:-1])
        n = 1 + rng.randrange(min(3, sum(1 for i in range(k, k + 3) if i in inner)))
        if all(i in inner for i in range(k, k + n)):
            out["unmarked_elision"] = " ".join(words[:k] + words[k + n :])
        i = rng.choice(inner)
        new = rng.choice([w for w in vocab if w != words[i]])
        out["light_edit"] = " ".join(words[:i] + [new] + words[i + 1 :])
    long_run = [i for i in range(2, len(words) - 8) if all(plain(w) or w.isalpha() for w in words[i : i + 6])]
    if long_run:
        k = long_run[0]
        run = words[k : k + 4 + rng.randrange(3)]
        if not any(w.lower().strip(",.;") in NEGATION_WORDS or any(c.isdigit() for c in w) for w in run):
            out["unmarked_elision_long"] = " ".join(words[:k] + words[k + len(run) :])
    if j + 2 < len(sents) and len(words) >= 10:
        other = sents[j + 2].split()
        if len(other) >= 10:
            out["stitched_far"] = " ".join(other[: len(other) // 2] + words[len(words) // 2 :])
    if j + 1 < len(sents) and len(words) >= 10:
        other = sents[j + 1].split()
        if len(other) >= 10:
            out["stitched"] = " ".join(words[: len(words) // 2] + other[len(other) // 2 :])
    if len(words) >= 14 and len(inner) >= 5:
        picks = sorted(rng.sample(inner, 5))
        edited = list(words)
        for i in picks:
            edited[i] = rng.choice(vocab)
        out["paraphrase"] = " ".join(edited)
    own = {w.lower() for w in " ".join(sents).split()}
    out["fabricated"] = " ".join(rng.sample([w for w in vocab if w not in own], 10))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--sentences", type=int, default=3, help="sentences per document")
    args = ap.parse_args()
    docs = json.loads(args.corpus.read_text(encoding="utf-8"))
    docs.update(stdlib_docs())
    index = build_corpus_index(docs)
    passages = PassageIndex(index)
    vocab = sorted({w for text in docs.values() for w in text.lower().split() if plain(w)})
    rng = random.Random(19)
    named: dict[str, Counter] = {kind: Counter() for kind in DIAGNOSIS_KINDS}
    dropped = Counter()
    for doc_id in sorted(docs):
        sents = [s for s in SENTENCE_SPLIT.split(docs[doc_id]) if len(s.split()) >= 8]
        for j in range(min(args.sentences, len(sents))):
            for kind, quote in near_misses(sents, j, vocab, rng).items():
                result = audit_quote(quote, doc_id, index)
                if result["verdict"] == "found":
                    dropped[kind] += 1
                    continue
                diagnosis = citation_diagnosis(quote, doc_id, result, passages)
                named.setdefault(kind, Counter())[diagnosis["kind"] if diagnosis else "none"] += 1
    print(f"corpus: {len(docs)} documents (arXiv abstracts and standard-library docstrings)\n")
    print("| kind | near misses | named right | rate | named otherwise | dropped (still verbatim) |")
    print("|---|---:|---:|---:|---|---:|")
    for kind in named:
        total = sum(named[kind].values())
        if not total:
            continue
        right = named[kind][EXPECTED.get(kind, kind)]
        others = ", ".join(f"{k} {v}" for k, v in named[kind].most_common() if k != EXPECTED.get(kind, kind))
        print(f"| {kind} | {total} | {right} | {right / total:.3f} | {others} | {dropped[kind]} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
