"""A real-prose corpus for the audit benchmarks: documents of real sentences, and citations of them.

Why it exists: the synthetic corpus (``claimgate.synthetic.audit_inputs``) is made of
lower-case pseudo-words, so it never reaches the rules real English sends documents
through (mixed case, ``#``, ``@``, URLs, e-mail addresses, footnote markers, negator
prefixes, fractions, symbols, other scripts). This corpus is made of sentences that ship
with this machine's Python, read offline and in a fixed order:

- the docstrings (module, class, function) of the standard library's ``.py`` files and of
  the installed packages :data:`PACKAGES`, read with :mod:`ast` (nothing is imported);
- the ``.rst``, ``.md`` and ``.txt`` files inside those packages' folders;
- the abstracts of ``../shared/bench/arxiv_abstracts.json`` when that file exists.

Paragraphs that look like code (doctest prompts, indented blocks, tables) are skipped;
the rest is split into sentences of 4 to 80 words, each kept once. Documents are about
:data:`DOC_CHARS` characters of consecutive sentences (wrapped at about 76 columns, a
blank line every few sentences); once the sentences are used up, further documents draw
them in an order shuffled by ``random.Random(seed + pass)``, so any number of documents
can be made (200,000 for the memory target). Which sentences there are depends on the
Python and package versions installed (stated by :func:`sources_note`); for one
installation the output is byte-identical run to run.

Citations (:func:`make_citations`, ``random.Random(seed + 1)``): of every ten, four are
verbatim spans of 8 to 20 words cited to their document (one of them with an ellipsis
``...`` over three words), three are verbatim spans cited to another document
(misattributed), three are changed spans (a word replaced by another of the corpus, a
word dropped, or ``not`` inserted), cited to their document.

Usage: ``python benchmarks/real_prose.py FOLDER [--docs 20000] [--citations 4000]``
writes ``FOLDER/corpus.json`` (``{doc_id: text}``) and ``FOLDER/citations.jsonl``
(``citation_id``, ``claim`` = the kind, ``doc_id``, ``quote``), the input formats of
``benchmarks/audit_speed.py``.
"""

from __future__ import annotations

import argparse
import ast
import json
import random
import re
import sys
import sysconfig
import warnings
from collections.abc import Iterator
from pathlib import Path

#: Installed packages whose docstrings and documentation files are read (when installed).
PACKAGES = ("pandas", "numpy", "pyarrow", "hamilton", "docutils", "hypothesis", "jinja2", "dask", "lxml")

#: Target characters per document.
DOC_CHARS = 1000

#: Where the shared folder's abstracts may be: beside the checkout (``../shared``) or, for a git worktree
#: under ``wt/``, beside its parent folder (``../../shared``); the first that exists is read.
ABSTRACT_PLACES = tuple(
    base / "shared" / "bench" / "arxiv_abstracts.json" for base in Path(__file__).resolve().parents[2:4]
)


def _abstracts() -> Path | None:
    return next((p for p in ABSTRACT_PLACES if p.is_file()), None)


_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(\[])")
_CODE_LINE = re.compile(r"^\s*(>>>|\.\.\.|\$ |In \[|Out\[|[-=~^`*+#]{3,}\s*$|\|)")
_SPACE = re.compile(r"\s+")


def _package_roots() -> list[Path]:
    """The standard library folder, then each installed package of :data:`PACKAGES`, in that order."""
    roots = [Path(sysconfig.get_paths()["stdlib"])]
    purelib = Path(sysconfig.get_paths()["purelib"])
    for name in PACKAGES:
        for base in (purelib, Path(sysconfig.get_paths()["platlib"])):
            if (base / name).is_dir():
                roots.append(base / name)
                break
    return roots


def sources_note() -> str:
    """Which Python and which package folders the sentences come from (for the benchmark's header)."""
    names = [p.name for p in _package_roots()[1:]]
    found = _abstracts()
    abstracts = f" + arXiv abstracts ({found})" if found else " (arXiv abstracts not found)"
    return f"Python {sys.version.split()[0]} standard library + {', '.join(names)}{abstracts}"


def _files(root: Path) -> Iterator[Path]:
    skip = ("site-packages", "test", "tests", "idlelib", "lib2to3", "__pycache__", "turtledemo", "ensurepip")
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).parts
        if any(part in skip for part in rel[:-1]):
            continue
        if path.suffix in (".py", ".rst", ".md", ".txt") and path.is_file():
            yield path


def _docstrings(source: str) -> Iterator[str]:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            doc = ast.get_docstring(node)
            if doc:
                yield doc


def _sentences(text: str) -> Iterator[str]:
    """Sentences of the prose paragraphs of ``text`` (white space collapsed)."""
    for paragraph in re.split(r"\n\s*\n", text):
        lines = paragraph.splitlines()
        if not lines or any(_CODE_LINE.match(line) for line in lines) or lines[0].startswith(("    ", "\t")):
            continue
        flat = _SPACE.sub(" ", paragraph).strip()
        for sentence in _SENTENCE_END.split(flat):
            words = sentence.split()
            letters = sum(c.isalpha() for c in sentence)
            if 4 <= len(words) <= 80 and letters >= 0.6 * len(sentence) and sentence[-1] in ".!?:)":
                if "unicode::" not in sentence:  # docutils' character-entity tables are no prose
                    yield sentence


def sentence_pool() -> list[str]:
    """Every distinct sentence of the sources, in a fixed order (file paths sorted, then the abstracts)."""
    seen: dict[str, None] = {}
    for root in _package_roots():
        for path in _files(root):
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            parts = _docstrings(text) if path.suffix == ".py" else [text]
            for part in parts:
                for sentence in _sentences(part):
                    seen.setdefault(sentence, None)
    found = _abstracts()
    if found is not None:
        abstracts = json.loads(found.read_text(encoding="utf-8"))
        for key in sorted(abstracts):
            for sentence in _sentences(abstracts[key]):
                seen.setdefault(sentence, None)
    return list(seen)


def _wrapped(sentences: list[str], rng: random.Random) -> str:
    """The sentences as paragraphs wrapped at about 76 columns, a blank line every 3 to 5 sentences."""
    lines: list[str] = []
    line = ""
    until_break = rng.randint(3, 5)
    for sentence in sentences:
        for word in sentence.split():
            if line and len(line) + 1 + len(word) > 76:
                lines.append(line)
                line = word
            else:
                line = f"{line} {word}" if line else word
        until_break -= 1
        if until_break == 0:
            lines.append(line + "\n")
            line = ""
            until_break = rng.randint(3, 5)
    if line:
        lines.append(line)
    return "\n".join(lines).rstrip("\n") + "\n"


def make_corpus(n_docs: int, seed: int = 0, pool: list[str] | None = None) -> dict[str, str]:
    """``{doc_id: text}``: ``n_docs`` documents of about :data:`DOC_CHARS` characters of real sentences."""
    pool = sentence_pool() if pool is None else pool
    if not pool:
        raise RuntimeError("no sentences found in the standard library or the installed packages")
    rng = random.Random(seed)
    docs: dict[str, str] = {}
    order = list(range(len(pool)))
    at, passes = 0, 0
    for k in range(n_docs):
        chosen: list[str] = []
        size = 0
        while size < DOC_CHARS:
            if at == len(order):
                passes += 1
                order = list(range(len(pool)))
                random.Random(seed + passes).shuffle(order)
                at = 0
            sentence = pool[order[at]]
            at += 1
            chosen.append(sentence)
            size += len(sentence) + 1
        docs[f"doc{k:06d}"] = _wrapped(chosen, rng)
    return docs


def make_citations(n: int, docs: dict[str, str], seed: int = 0) -> list[tuple[str, str, str]]:
    """``(kind, quote, cited doc_id)``: 40% verbatim, 30% misattributed, 30% changed (see the module docstring)."""
    rng = random.Random(seed + 1)
    ids = sorted(docs)
    words_of: dict[str, list[str]] = {}
    out = []
    for c in range(n):
        r = c % 10
        doc_id = rng.choice(ids)
        words = words_of.setdefault(doc_id, docs[doc_id].split())
        length = rng.randint(8, 20)
        i = rng.randrange(0, max(1, len(words) - length - 8))
        piece = words[i : i + length]
        if r == 3:
            out.append(("verbatim", " ".join(words[i : i + 5]) + " ... " + " ".join(words[i + 8 : i + 13]), doc_id))
        elif r < 4:
            out.append(("verbatim", " ".join(piece), doc_id))
        elif r < 7:
            other = rng.choice(ids)
            while other == doc_id and len(ids) > 1:
                other = rng.choice(ids)
            out.append(("misattributed", " ".join(piece), other))
        else:
            at = len(piece) // 2
            edit = r - 7
            if edit == 0:
                other = words_of.setdefault(ids[(c * 7919) % len(ids)], docs[ids[(c * 7919) % len(ids)]].split())
                replacement = rng.choice(other)
                piece = [*piece[:at], replacement if replacement != piece[at] else "zyzzyva", *piece[at + 1 :]]
            elif edit == 1:
                piece = piece[:at] + piece[at + 1 :]
            else:
                piece = [*piece[:at], "not", *piece[at:]]
            out.append(("changed", " ".join(piece), doc_id))
    return out


def write_inputs(folder: Path, n_docs: int, n_citations: int, seed: int = 0) -> dict[str, str]:
    """Write ``corpus.json`` and ``citations.jsonl`` of the real-prose shape into ``folder``; returns the corpus."""
    docs = make_corpus(n_docs, seed)
    (folder / "corpus.json").write_text(json.dumps(docs, ensure_ascii=False), encoding="utf-8")
    with open(folder / "citations.jsonl", "w", encoding="utf-8") as handle:
        for i, (kind, quote, doc_id) in enumerate(make_citations(n_citations, docs, seed)):
            row = {"citation_id": f"c{i}", "claim": kind, "doc_id": doc_id, "quote": quote}
            handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    return docs


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("folder", type=Path)
    ap.add_argument("--docs", type=int, default=20_000)
    ap.add_argument("--citations", type=int, default=4_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    docs = write_inputs(args.folder, args.docs, args.citations, args.seed)
    print(f"{sources_note()}: {len(docs):,} documents, {sum(map(len, docs.values())) / 1e6:.1f} M characters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
