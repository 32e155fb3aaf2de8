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

A second table (rows :data:`HARDER`, their own random stream, so the first table's rows stay as
they were) adds the API docstrings of installed packages, their ``.md``/``.rst`` files and package
descriptions, and harder shapes per kind: elisions of 1-3 words near the quote's start or end, of
one short function word, in two places, of a whole parenthetical or comma clause, and in API text
with code tokens; stitches of uneven or short (five-word) pieces, of one sentence's halves
swapped, of the next sentence before this one, of the paragraph's last sentence, of another
document's sentence, with a joining word added, with one word changed, and of API text; the
last number changed or a digit added; ``is`` written ``isn't``; a word added or two replaced; four
words replaced and two dropped. A last table totals every row per kind.

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
from claimgate.audit.diagnosis.kinds import DIAGNOSIS_KINDS, NUMBER_WORDS, is_number  # noqa: E402
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
    return bool(_PLAIN.match(word)) and word not in NEGATION_WORDS and word not in _DECIDING and not is_number(word)


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


#: The harder shapes (rows added after the first table), named by the kind they should be diagnosed as.
HARDER = {
    "elision_near_start": "unmarked_elision",
    "elision_near_end": "unmarked_elision",
    "elision_function_word": "unmarked_elision",
    "elision_two_places": "unmarked_elision",
    "elision_parenthetical": "unmarked_elision",
    "elision_comma_clause": "unmarked_elision",
    "elision_api_doc": "unmarked_elision",
    "stitch_uneven": "stitched",
    "stitch_short_pieces": "stitched",
    "stitch_halves_swapped": "stitched",
    "stitch_next_first": "stitched",
    "stitch_other_paragraph": "stitched",
    "stitch_other_document": "stitched",
    "stitch_joining_word": "stitched",
    "stitch_light_edit": "stitched",
    "stitch_api_doc": "stitched",
    "number_last_changed": "number_changed",
    "number_word_changed": "number_changed",
    "number_digit_added": "number_changed",
    "negation_contracted": "negation_changed",
    "light_edit_word_added": "light_edit",
    "light_edit_two_words": "light_edit",
    "paraphrase_scattered": "paraphrase",
}
EXPECTED.update(HARDER)
#: Standard-library and installed modules whose docstrings are API text (code tokens, defaults, ``None``).
API_MODULES = ("json", "subprocess", "shutil", "tempfile", "zipfile", "logging", "argparse", "pandas.DataFrame",
               "pandas.Series", "numpy", "pyarrow.parquet", "hypothesis.strategies")  # fmt: skip
_JOINERS = ("and", "while", "which", "so", "but")
_SHORT = re.compile(r"^[a-z]{1,3}$")
_CODE = re.compile(r"[_`=()\[\]]|\w\.\w")


def free(word: str) -> bool:
    """A word an elision may drop: letters only (punctuation around it allowed), no negator, no number."""
    core = word.strip(",.;:()\"'")
    return core.isalpha() and core.lower() not in NEGATION_WORDS and not is_number(core.lower())


def package_docs(per_module: int = 30, files: int = 150) -> dict[str, str]:
    """Prose that ships with installed packages: API docstrings (the first ``per_module`` long ones of each of
    :data:`API_MODULES`), and the first ``files`` ``.md``/``.rst`` files and package descriptions (``METADATA``)."""
    out: dict[str, str] = {}
    for name in API_MODULES:
        module = pydoc.locate(name)
        found = 0
        for attr in sorted(dir(module)) if module is not None else ():
            obj = getattr(module, attr, None)
            doc = getattr(obj, "__doc__", None) if not attr.startswith("_") else None
            if isinstance(doc, str) and len(doc) > 300 and found < per_module:
                found += f"api:{name}.{attr}" not in out
                out.setdefault(f"api:{name}.{attr}", " ".join(doc.split()))
    site = Path(json.__file__).parent  # the standard library; installed packages below
    roots = sorted({Path(p) for p in sys.path if p.endswith("site-packages")})
    wanted = (".md", ".rst")
    paths = [f for root in roots for f in sorted(root.rglob("*")) if f.suffix in wanted or f.name == "METADATA"]
    for f in paths[:files]:
        text = f.read_text(encoding="utf-8", errors="replace")
        if f.name == "METADATA":
            text = text.split("\n\n", 1)[-1]  # the long description, after the headers
        if len(text) > 400 and site not in f.parents:
            out[f"file:{f.parent.name}/{f.name}"] = text
    return out


def _drop(words: list[str], lo: int, hi: int) -> str | None:
    return " ".join(words[:lo] + words[hi:]) if 0 < lo < hi < len(words) and all(map(free, words[lo:hi])) else None


def _stitch(first: list[str], second: list[str], a: int, b: int) -> str | None:
    """``first[:a]`` glued to ``second[b:]`` when both pieces have at least five words."""
    return " ".join(first[:a] + second[b:]) if a >= 5 and len(second) - b >= 5 else None


def harder_near_misses(sents: list[str], j: int, other: list[str], vocab: list[str], rng: random.Random) -> dict:
    """Near misses of sentence ``j`` in the harder shapes (:data:`HARDER`); ``other``: another document's sentences."""
    sent = sents[j]
    words = sent.split()
    w = len(words)
    n = 1 + rng.randrange(3)
    out = {
        "elision_near_start": _drop(words, 1, 1 + n),
        "elision_near_end": _drop(words, w - 1 - n, w - 1),
    }
    short = [i for i in range(1, w - 1) if _SHORT.match(words[i])]
    if short:
        i = rng.choice(short)
        out["elision_function_word"] = _drop(words, i, i + 1)
    if w >= 12:
        a, b = 2 + rng.randrange(w // 3), w // 2 + rng.randrange(w // 2 - 2)
        if free(words[a]) and free(words[b]) and b > a + 1:
            out["elision_two_places"] = " ".join(words[:a] + words[a + 1 : b] + words[b + 1 :])
    m = re.search(r" \(([^()]{3,80})\)", sent)
    if m and m.end() < len(sent) - 10 and not re.search(r"\d", m.group(1)) and all(map(free, m.group(1).split())):
        out["elision_parenthetical"] = sent[: m.start()] + sent[m.end() :]
    m = re.search(r", ([^,.;]{8,60}),", sent)
    if m and m.start() > 10 and all(map(free, m.group(1).split())):
        out["elision_comma_clause"] = sent[: m.start()] + sent[m.end() - 1 :]
    if _CODE.search(sent):
        inner = [i for i in range(2, w - 2) if free(words[i]) and not _CODE.search(words[i])]
        if inner:
            i = rng.choice(inner)
            out["elision_api_doc"] = _drop(words, i, min(i + n, w - 1))
    nxt = sents[j + 1].split() if j + 1 < len(sents) else []
    if len(nxt) >= 10 and w >= 10:
        out["stitch_uneven"] = _stitch(words, nxt, w // 3 + 1, len(nxt) // 3)
        out["stitch_short_pieces"] = _stitch(words, nxt, 5, len(nxt) - 5)
        out["stitch_next_first"] = _stitch(nxt, words, len(nxt) // 2, w // 2)
        out["stitch_joining_word"] = " ".join(words[: w // 2] + [rng.choice(_JOINERS)] + nxt[len(nxt) // 2 :])
        glued = words[: w // 2] + nxt[len(nxt) // 2 :]
        i = w // 2 + (len(nxt) - len(nxt) // 2) // 2
        if i < len(glued) - 1 and plain(glued[i]):
            out["stitch_light_edit"] = " ".join(glued[:i] + [rng.choice(vocab)] + glued[i + 1 :])
        if _CODE.search(sent) or _CODE.search(sents[j + 1]):
            out["stitch_api_doc"] = _stitch(words, nxt, w // 2, len(nxt) // 2)
    if w >= 12:
        out["stitch_halves_swapped"] = " ".join(words[w // 2 :] + words[: w // 2])
    far = sents[-1].split() if len(sents) > j + 3 else []
    if len(far) >= 10 and w >= 10:
        out["stitch_other_paragraph"] = _stitch(words, far, w // 2, len(far) // 2)
    if other and w >= 10 and len(other[0].split()) >= 10:
        theirs = other[0].split()
        out["stitch_other_document"] = _stitch(words, theirs, w // 2, len(theirs) // 2)
    nums = list(re.finditer(r"(?<![\w.])\d+(?![\w.])", sent))
    if nums:
        last = nums[-1]
        digit = str((int(last.group()[-1]) + 4) % 10)
        out["number_last_changed"] = sent[: last.start()] + last.group()[:-1] + digit + sent[last.end() :]
        first = nums[0]
        out["number_digit_added"] = sent[: first.end()] + "0" + sent[first.end() :]
    spelled = [i for i, x in enumerate(words) if x.isalpha() and is_number(x.lower())]
    if spelled:  # a number word replaced by another ("four weeks" for "five weeks")
        i = spelled[0]
        others = sorted(NUMBER_WORDS - {words[i].lower()})
        out["number_word_changed"] = " ".join(words[:i] + [rng.choice(others)] + words[i + 1 :])
    aux = [i for i in range(1, w - 2) if words[i] in ("is", "are", "can", "does", "do", "was", "has", "should")]
    if aux and not any(x.lower().strip(",.;") in NEGATION_WORDS for x in words):
        i = aux[0]
        out["negation_contracted"] = " ".join(words[:i] + [words[i] + "n't"] + words[i + 1 :])
    inner = [i for i in range(2, w - 2) if plain(words[i])]
    if len(inner) >= 4:
        i = rng.choice(inner)
        out["light_edit_word_added"] = " ".join(words[:i] + [rng.choice(vocab)] + words[i:])
        i = rng.choice(inner[:-1])
        if i + 1 in inner:
            out["light_edit_two_words"] = " ".join(words[:i] + rng.sample(vocab, 2) + words[i + 2 :])
    if w >= 16 and len(inner) >= 8:
        picks = sorted(rng.sample(inner, 6))
        edited = [rng.choice(vocab) if i in picks[:4] else x for i, x in enumerate(words) if i not in picks[4:]]
        out["paraphrase_scattered"] = " ".join(edited)
    return {kind: quote for kind, quote in out.items() if quote}


def measure(cases, index, passages) -> tuple[dict[str, Counter], Counter]:
    """Audit and diagnose ``[(row, doc_id, quote)]``: what each row was named, and the cases still verbatim."""
    named: dict[str, Counter] = {}
    dropped = Counter()
    for row, doc_id, quote in cases:
        result = audit_quote(quote, doc_id, index)
        if result["verdict"] == "found":
            dropped[row] += 1
            continue
        diagnosis = citation_diagnosis(quote, doc_id, result, passages)
        named.setdefault(row, Counter())[diagnosis["kind"] if diagnosis else "none"] += 1
    return named, dropped


def print_table(named: dict[str, Counter], dropped: Counter) -> None:
    print("| kind | near misses | named right | rate | named otherwise | dropped (still verbatim) |")
    print("|---|---:|---:|---:|---|---:|")
    for kind in named:
        total = sum(named[kind].values())
        right = named[kind][EXPECTED.get(kind, kind)]
        others = ", ".join(f"{k} {v}" for k, v in named[kind].most_common() if k != EXPECTED.get(kind, kind))
        print(f"| {kind} | {total} | {right} | {right / total:.3f} | {others} | {dropped[kind]} |")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--corpus", type=Path, default=DEFAULT_CORPUS)
    ap.add_argument("--sentences", type=int, default=3, help="sentences per document")
    args = ap.parse_args()
    docs = json.loads(args.corpus.read_text(encoding="utf-8"))
    docs.update(stdlib_docs())
    first_docs = dict(docs)  # the first table's documents: its rows stay as they were
    docs.update(package_docs())
    index = build_corpus_index(docs)
    passages = PassageIndex(index)
    vocab = sorted({w for text in first_docs.values() for w in text.lower().split() if plain(w)})
    rng, harder_rng = random.Random(19), random.Random(1919)
    cases, harder = [], []
    ids = sorted(docs)
    for n, doc_id in enumerate(ids):
        sents = [s for s in SENTENCE_SPLIT.split(docs[doc_id]) if len(s.split()) >= 8]
        theirs = [s for s in SENTENCE_SPLIT.split(docs[ids[(n + 7) % len(ids)]]) if len(s.split()) >= 8]
        for j in range(min(args.sentences, len(sents))):
            if doc_id in first_docs:
                cases += [(kind, doc_id, q) for kind, q in near_misses(sents, j, vocab, rng).items()]
            harder += [(kind, doc_id, q) for kind, q in harder_near_misses(sents, j, theirs, vocab, harder_rng).items()]
    named, dropped = measure(cases, index, passages)
    named = {kind: named[kind] for kind in [*DIAGNOSIS_KINDS, *named] if kind in named}
    print(f"corpus: {len(first_docs)} documents (arXiv abstracts and standard-library docstrings)\n")
    print_table(named, dropped)
    named2, dropped2 = measure(harder, index, passages)
    print(f"\nHarder shapes: {len(docs)} documents (the above, and {len(docs) - len(first_docs)} API docstrings, "
          "`.md`/`.rst` files and package descriptions of installed packages)\n")  # fmt: skip
    print_table({kind: named2[kind] for kind in HARDER if kind in named2}, dropped2)
    print("\nPer kind, every row (first table and harder shapes):\n")
    print("| kind | near misses | named right | rate |")
    print("|---|---:|---:|---:|")
    for kind in DIAGNOSIS_KINDS:
        rows = [(r, c) for table in (named, named2) for r, c in table.items() if EXPECTED.get(r, r) == kind]
        total = sum(sum(c.values()) for _, c in rows)
        if total:
            right = sum(c[kind] for _, c in rows)
            print(f"| {kind} | {total} | {right} | {right / total:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
