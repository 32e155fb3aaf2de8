"""The public verbatim-citation gate's cached-scan method, as a standalone script (a baseline, not claimgate).

Why it exists: the citation audit's speed target is stated against this method, timed
as a whole process. It imports nothing from claimgate. Method: normalize every
document once (Unicode NFKC, case fold, every run of white space collapsed to one
space), then for each citation normalize the quote the same way and ``str.find`` it
in the cited document and, on a miss, in every other document (in sorted id order).

Verdicts: ``found`` (in the cited document), ``misattributed`` (only elsewhere),
``not_found``; a quote with an ellipsis (``...`` or ``…``) or of fewer than 4 words is
not accepted as well-formed by this method and is written ``unsupported``.

Usage: ``python benchmarks/public_gate_baseline.py CORPUS.json CITATIONS.jsonl OUT.jsonl``
(corpus ``{doc_id: text}``; citations with ``citation_id``, ``doc_id``, ``quote``).
Writes one JSON line ``{citation_id, verdict}`` per citation, in input order.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata

_SPACE = re.compile(r"\s+")


def normalized(text: str) -> str:
    """NFKC, case fold, white space collapsed (the public gate's normalization)."""
    return _SPACE.sub(" ", unicodedata.normalize("NFKC", text).casefold()).strip()


def main(argv: list[str]) -> int:
    corpus_path, citations_path, out_path = argv
    with open(corpus_path, encoding="utf-8") as handle:
        corpus = json.load(handle)
    ids = sorted(corpus)
    docs = {doc_id: normalized(corpus[doc_id]) for doc_id in ids}  # the cache: every document normalized once
    lines = []
    with open(citations_path, encoding="utf-8") as handle:
        for line in handle:
            if not line.strip():
                continue
            row = json.loads(line)
            quote = normalized(row["quote"])
            if "..." in quote or len(quote.split()) < 4:
                verdict = "unsupported"
            elif row["doc_id"] in docs and docs[row["doc_id"]].find(quote) >= 0:
                verdict = "found"
            elif any(docs[d].find(quote) >= 0 for d in ids if d != row["doc_id"]):
                verdict = "misattributed"
            else:
                verdict = "not_found"
            lines.append(json.dumps({"citation_id": row["citation_id"], "verdict": verdict}))
    with open(out_path, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + ("\n" if lines else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
