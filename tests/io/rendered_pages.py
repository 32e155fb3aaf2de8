"""Helpers for the rendered-page tests: audit a folder page and check a span against the raw file."""

from __future__ import annotations

import html
import re

from claimgate.api import Audit

WORD = re.compile(r"[^\W_]+")  # letters and digits: markup such as _ is not a word


def words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


def without_hidden(raw: str, start: int, end: int, hidden: list[dict]) -> str:
    """``raw[start:end]`` with every hidden range inside it (a span's ``elided``) cut out (a space each)."""
    pieces, at = [], start
    for item in sorted(hidden, key=lambda h: h["start"]):
        pieces.append(raw[at : item["start"]] + " ")
        at = max(at, item["end"])
    pieces.append(raw[at:end])
    return "".join(pieces)


def assert_only_markup_between(raw: str, span: dict, quote: str) -> None:
    """Slicing the raw file at ``span`` gives the quoted words, with only markup between them."""
    assert raw[span["start"] : span["end"]] == span["text"]
    kept = html.unescape(without_hidden(raw, span["start"], span["end"], span["elided"]))  # &amp; spells &
    assert words(kept) == words(quote), (kept, quote)
    first, last = words(quote)[0], words(quote)[-1]
    assert words(span["text"])[0] == first and words(span["text"])[-1] == last


def audit_page(folder, name: str, text: str, quotes: list[str]) -> list[dict]:
    """Write ``text`` as ``folder/name``, audit ``quotes`` cited to it, return the rows as dicts."""
    (folder / name).write_text(text, encoding="utf-8")
    audit = Audit.from_corpus(folder)
    citations = [{"citation_id": f"c{i}", "doc_id": name, "quote": q} for i, q in enumerate(quotes)]
    return audit.check(citations).to_dict("records")
