"""The prose a claim belongs to, for the prepared request (schema ``[directives] context = true``).

Why: a directive says *what* the contract is; a model asked to describe it needs the
docs' own words around it. Each claim of a schema that asks gets ``context``: a span
``{"start", "end", "text"}`` (character offsets into the pinned text,
``text[start:end] == context["text"]``) of the **paragraph** holding the directive
(the run of non-blank lines around it), or, when that paragraph holds no prose (a
directive alone between blank lines, a comment block), of its **section**: from the
heading at or before the directive (a Markdown ``#`` heading, or a reStructuredText
title with its underline) up to the next heading, trailing blank lines left out
(docs/gate-rules.md, "Context"). Nothing in it decides a case.
"""

from __future__ import annotations

import re

from claimgate.textlines import LINE_TERMINATORS

_ATX = re.compile(r" {0,3}#{1,6}(?:[ \t]|\Z)")
_UNDERLINE = re.compile(r"([=\-~^\"'`*+#:.])\1+[ \t]*\Z")
#: Lines that are comment markers, not prose (the multi-line HTML comment, an empty RST comment).
_MARKERS = ("<!--", "-->", "..", "%")


def _headings(lines: list[str]) -> list[int]:
    """Indexes of the lines that start a heading (a Markdown ATX line, or an RST title over its underline)."""
    starts = []
    for i, line in enumerate(lines):
        if _ATX.match(line):
            starts.append(i)
        elif (
            i + 1 < len(lines)
            and line.strip()
            and _UNDERLINE.match(lines[i + 1])
            and len(lines[i + 1].rstrip()) >= len(line.rstrip())
            and not _UNDERLINE.match(line)
        ):
            starts.append(i - 1 if i > 0 and lines[i - 1].rstrip() == lines[i + 1].rstrip() else i)
    return starts


def context_span(text: str, offset: int, prefix: str) -> dict:
    """``{"start", "end", "text"}`` of the paragraph (or section) holding character ``offset`` of ``text``.

    ``prefix`` is the schema's: a line holding it, or only a comment marker, is not prose.
    """
    raw = text.splitlines(keepends=True)
    lines = [line.rstrip(LINE_TERMINATORS) for line in raw]
    starts, position = [], 0
    for line in raw:
        starts.append(position)
        position += len(line)
    here = max(i for i, s in enumerate(starts) if s <= offset) if starts else 0
    first = last = here
    while first > 0 and lines[first - 1].strip():
        first -= 1
    while last + 1 < len(lines) and lines[last + 1].strip():
        last += 1

    def prose(line: str) -> bool:
        return bool(line.strip()) and prefix not in line and line.strip() not in _MARKERS

    if not any(prose(line) for line in lines[first : last + 1]):
        headings = _headings(lines)
        first = max([h for h in headings if h <= here], default=0)
        following = [h for h in headings if h > here]
        last = (following[0] - 1) if following else len(lines) - 1
        while last > first and not lines[last].strip():
            last -= 1
    start, end = starts[first], starts[last] + len(lines[last])
    return {"start": start, "end": end, "text": text[start:end]}
