"""The answer splitter: a generated answer's text cut into claims, deterministically.

Why: an answer is accepted or refused claim by claim, so where a claim ends must not depend
on a model or a locale. The rules are few and stated as data here (docs/answer-rules.md,
"Splitting an answer into claims"):

1. A fenced code block (a line opening with three or more backticks or tildes, to the line
   that closes it, ``closes_fence``, or to the end of the text) is one claim of kind ``code``,
   never split.
2. Other lines form blocks: a blank line ends a block; a heading line (``#`` to ``######``
   and a space) is a block of its own (kind ``heading``); a list item line (``-``, ``*``,
   ``+`` or ``1.``/``1)`` and a space) starts a new block (kind ``list_item``); any other
   line continues the block it follows (a soft-wrapped paragraph, kind ``sentence``).
3. A block is cut after a run of ``.``, ``!`` or ``?`` (with any closing quotes or brackets
   and any citation markers ``[1]`` after it) followed by white space, unless the word the
   period ends is an abbreviation of ``ABBREVIATIONS`` or a one-letter initial, the next
   character is a lower-case letter, or the point lies inside inline code (backticks). A
   period inside a word (``4.1``, ``1.2.0``, ``config.toml``) is never followed by white
   space, so decimals, versions and file names stay whole.
4. A piece with no letter or digit outside its citation markers (a lone bullet, a marker on a
   line of its own) is not a claim.

Offsets are characters (code points) of the answer text, end exclusive; a claim's text is
its piece with surrounding white space trimmed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

#: Words ending in a period that never end a sentence (compared case-insensitively).
ABBREVIATIONS = frozenset(
    s.lower()
    for s in (
        "e.g.",
        "i.e.",
        "etc.",
        "vs.",
        "cf.",
        "al.",
        "approx.",
        "ca.",
        "viz.",
        "resp.",
        "incl.",
        "esp.",
        "Dr.",
        "Mr.",
        "Mrs.",
        "Ms.",
        "Prof.",
        "Sr.",
        "Jr.",
        "St.",
        "Inc.",
        "Ltd.",
        "Co.",
        "Corp.",
        "Fig.",
        "Figs.",
        "No.",
        "Nos.",
        "Vol.",
        "Ch.",
        "Sec.",
        "Eq.",
        "p.",
        "pp.",
        "ed.",
        "eds.",
        "U.S.",
        "U.K.",
        "a.m.",
        "p.m.",
        "min.",
        "max.",
        "v.",
        "ver.",
    )
)
#: A fence line opening a code block (CommonMark): up to 3 spaces, then 3 or more backticks or tildes.
FENCE = re.compile(r"^( {0,3})(`{3,}|~{3,})")


def closes_fence(line: str, fence: str) -> bool:
    """Whether ``line`` closes the code block ``fence`` opened (its run of backticks or tildes): up to 3
    spaces, a run of the same character at least as long, then nothing but spaces (CommonMark)."""
    stripped = line.rstrip("\r\n")
    run = len(stripped) - len(stripped.lstrip(" "))
    body = stripped[run:].rstrip(" \t")
    return run <= 3 and len(body) >= len(fence) and body == fence[0] * len(body)


#: A heading line.
HEADING = re.compile(r"^ {0,3}#{1,6}\s")
#: A list item's marker at a line start (the marker is not cut as a sentence end).
LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
#: A citation marker in an answer's text: ``[1]`` or ``[1, 2]``.
MARKER = re.compile(r"\[(\d+(?:\s*,\s*\d+)*)\]")
#: A candidate sentence end: terminal punctuation, closers, markers, then the white space that follows.
SENTENCE_END = re.compile(r"[.!?]+[\"'’”)\]]*(?:\s*\[\d+(?:\s*,\s*\d+)*\])*(?=\s)")
#: A one-letter initial (``J.``) or any word ending in a period: what stands before a candidate end.
LAST_WORD = re.compile(r"(\S+)$")
INITIAL = re.compile(r"^\(?[A-Za-z]\.$")


@dataclass(frozen=True)
class Piece:
    """One claim's place in the answer: ``start``/``end`` (characters, end exclusive), ``kind``, ``text``."""

    start: int
    end: int
    kind: str
    text: str


def _code_spans(text: str) -> list[tuple[int, int]]:
    """Inline code spans (a run of backticks to the next run of the same length) as ``(start, end)``."""
    spans = []
    for match in re.finditer(r"(`+)(.+?)\1", text, flags=re.S):
        spans.append((match.start(), match.end()))
    return spans


def _blocks(text: str) -> list[tuple[int, int, str]]:
    """``(start, end, kind)`` of every code block and text block, in text order (rules 1 and 2)."""
    blocks: list[tuple[int, int, str]] = []
    open_block: list | None = None  # [start, end, kind]
    fence: tuple[int, str] | None = None  # (start, fence characters) of an open code block
    position = 0
    for line in text.splitlines(keepends=True):
        start, end = position, position + len(line.rstrip("\r\n"))
        position += len(line)
        if fence is not None:
            if closes_fence(line, fence[1]):
                blocks.append((fence[0], end, "code"))
                fence = None
            continue
        opened = FENCE.match(line)
        if opened or not line.strip() or HEADING.match(line) or LIST_ITEM.match(line):
            if open_block is not None:
                blocks.append(tuple(open_block))
                open_block = None
        if opened:
            fence = (start, opened.group(2))
        elif HEADING.match(line):
            blocks.append((start, end, "heading"))
        elif LIST_ITEM.match(line):
            open_block = [start, end, "list_item"]
        elif line.strip():
            if open_block is None:
                open_block = [start, end, "sentence"]
            else:
                open_block[1] = end
    if fence is not None:  # an unclosed fence runs to the end of the text
        blocks.append((fence[0], len(text.rstrip("\r\n")), "code"))
    if open_block is not None:
        blocks.append(tuple(open_block))
    return sorted(blocks)


def _ends(text: str, start: int, end: int) -> list[int]:
    """Where the block ``text[start:end]`` is cut (rule 3): offsets just after each sentence end."""
    block = text[start:end]
    skip = LIST_ITEM.match(block)
    first = skip.end() if skip else 0
    code = _code_spans(block)
    cuts = []
    for match in SENTENCE_END.finditer(block, first):
        point = match.end()
        if any(a < match.start() < b for a, b in code):
            continue
        word = LAST_WORD.search(block[first : match.start() + 1])
        word_text = word.group(1).lower() if word else ""
        word_text = word_text.lstrip("(\"'“‘")
        if word_text in ABBREVIATIONS or INITIAL.match(word_text):
            continue
        rest = block[point:].lstrip()
        if not rest or rest[0].islower():
            continue
        cuts.append(start + point)
    return cuts


def _trimmed(text: str, start: int, end: int, kind: str) -> Piece | None:
    """The piece ``text[start:end]`` with white space trimmed, or None when it holds no letter or digit."""
    piece = text[start:end]
    left = len(piece) - len(piece.lstrip())
    right = len(piece.rstrip())
    if not any(ch.isalnum() for ch in MARKER.sub("", piece)):
        return None
    return Piece(start + left, start + right, kind, piece[left:right])


def split_claims(text: str) -> list[Piece]:
    """The answer's claims in text order (the rules of the module docstring).

    ``text`` is the answer (``str``; an empty or blank text gives ``[]``). Each ``Piece`` has
    ``start``/``end`` in characters of ``text`` and ``kind`` ``sentence``, ``list_item``,
    ``heading`` or ``code``; pieces of one list item after its first sentence keep ``list_item``.
    """
    pieces: list[Piece] = []
    for start, end, kind in _blocks(text):
        cuts = [] if kind in ("code", "heading") else _ends(text, start, end)
        for a, b in zip([start, *cuts], [*cuts, end]):
            piece = _trimmed(text, a, b, kind)
            if piece is not None:
                pieces.append(piece)
    return pieces


def markers(text: str) -> list[str]:
    """The citation markers of ``text`` in order, each once (``"[1, 2] … [1]"`` gives ``["1", "2"]``)."""
    found: list[str] = []
    for match in MARKER.finditer(text):
        for number in re.split(r"\s*,\s*", match.group(1)):
            if number not in found:
                found.append(number)
    return found
