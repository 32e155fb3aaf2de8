"""Deterministic inputs for the citation audit at scale: a corpus of pseudo-word documents and citations.

Used by ``benchmarks/audit_scale.py`` (20,000 documents, 4,000 citations) and, at a
small size, by the tests. ``make_corpus`` writes ~1 KB documents of Zipf-distributed
pseudo-words with punctuation, numbers, line wraps, line-end hyphens, ligatures and
non-breaking spaces; ``make_citations`` draws 40% real and correctly cited quotes,
30% real but cited to the wrong document and 30% fabricated ones (a tenth of the
real quotes carry an ellipsis). Everything comes from ``random.Random(seed)``.
"""

from __future__ import annotations

import itertools
import random

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
