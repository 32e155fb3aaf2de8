"""What a reader sees of a page, with a map from every visible character back to the file as written.

Why this module exists: a Markdown or reStructuredText page is audited as rendered (link text without
its target, inline code without its backticks, no tags, footnote markers or directive comments), but
its spans must still slice the file as written, with 1-based lines in it. The extractors
(``io.markdown_text``, ``io.rst_text``) build a :class:`VisibleText` through :class:`VisibleTextBuilder`;
the audit matches quotes against ``VisibleText.text`` and maps each span back with
:meth:`VisibleText.raw_span`. Rules: docs/documents.md, "Rendered Markdown and reStructuredText".

What it refuses to do: invent positions. A visible character the file does not hold as written (an
added ``()`` after a function role, a line break between table cells) maps to an empty range where it
would be, so a span never reaches past the characters that are really in the file.
"""

from __future__ import annotations

import bisect
import html
import re
from array import array
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cached_property

from claimgate.textlines import LineIndex

#: A character reference as Markdown reads it (``&amp;``, ``&#35;``, ``&#x23;``).
_ENTITY = re.compile(r"&(?:#[0-9]{1,7}|#[xX][0-9a-fA-F]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});")
#: Elements whose text a page marks as struck out, no longer said (docs/documents.md, "Struck-through text").
DELETED_ELEMENTS = frozenset({"del", "s", "strike"})
#: An HTML tag of one of them, opening or closing (``<del>``, ``</s>``).
DELETED_TAG = re.compile(r"<(/?)(del|s|strike)(?:\s[^<>]*)?>", re.IGNORECASE)
#: An HTML superscript or subscript tag, opening or closing (``<sup>``, ``</sub>``).
SCRIPT_TAG = re.compile(r"<(/?)(sup|sub)(?:\s[^<>]*)?>", re.IGNORECASE)
#: What a raised or lowered number is written after: ``^`` (an exponent, ``10^6``) and ``_`` (an index,
#: ``H_2O``), as the normalizer writes ``⁶`` and ``₂`` (docs/audit-rules.md, "Numbers").
_SCRIPT_MARKS = {"sup": ("^", re.compile(r"[+\-\u2212]?[0-9]+")), "sub": ("_", re.compile(r"[0-9]+"))}


def struck_tag(tag: str, start: int, end: int, struck: list[int], hide) -> None:
    """A tag met in a page's text at ``[start, end)``: ``<del>``, ``<s>`` or ``<strike>`` opens struck-through
    text (``start`` pushed on ``struck``), its closing tag hides all of it, tags included, as ``deleted``
    (``hide(start, end, "deleted")``); other tags do nothing (docs/documents.md, "Struck-through text")."""
    match = DELETED_TAG.fullmatch(tag)
    if match is not None and not match.group(1):
        struck.append(start)
    elif match is not None and struck:
        hide(struck.pop(), end, "deleted")


def script_mark(kind: str, content: str) -> str:
    """The mark a superscript (``kind`` ``"sup"``) or subscript (``"sub"``) showing ``content`` is read with:
    ``"^"`` / ``"_"`` when ``content`` is a number (a superscript may carry a sign), else ``""``.

    A page's ``10<sup>6</sup>`` shows a raised 6, which plain text would read as ``106``: written
    ``10^6`` it is the number the page shows, equal to ``10⁶`` and never to ``106`` (docs/documents.md,
    "Superscripts and subscripts in markup"). Other content (``1<sup>st</sup>``, a footnote's ``[1]``)
    is shown as written.
    """
    mark, number = _SCRIPT_MARKS.get(kind, ("", None))
    return mark if number is not None and number.fullmatch(content) else ""


@dataclass(frozen=True, eq=False)
class VisibleText:
    """One page's visible text and, per visible character, the raw characters it comes from.

    ``raw``: the file as written (decoded). ``text``: what a reader sees, lines ended by ``\\n``.
    ``starts``/``ends`` (``array('q')``, one entry per character of ``text``): the character range
    ``raw[starts[i]:ends[i]]`` that shows as ``text[i]`` (empty for a character the file does not hold).
    ``hidden``: ``(start, end, kind)`` raw ranges left out that carry content (``directive``,
    ``comment``, ``tag``, ``footnote_ref``, ``link_target``, ``image``, ``role``: a role's name and the
    part of its target it does not show, ``deleted``: struck-through text), in file order. ``extractor``:
    ``markdown`` or ``rst``.
    """

    raw: str
    text: str
    starts: array
    ends: array
    hidden: tuple[tuple[int, int, str], ...]
    extractor: str

    @cached_property
    def lines(self) -> LineIndex:
        """Line numbers of the raw file (1-based)."""
        return LineIndex(self.raw)

    def raw_span(self, start: int, end: int) -> tuple[int, int]:
        """The raw character range ``[a, b)`` holding visible characters ``start:end`` (``start < end``)."""
        if start >= end:
            at = self.starts[start] if start < len(self.starts) else len(self.raw)
            return at, at
        first = min(self.starts[start:end])
        last = max(self.ends[start:end])
        return first, max(first, last)

    @cached_property
    def _by_raw_start(self) -> tuple:
        """``(sorted raw starts, visible index of each)``: the visible characters ordered by where they start
        in the file (stable, so equal starts keep reading order); built once per page, on first use."""
        import numpy as np

        starts = np.asarray(self.starts, dtype=np.int64)
        order = np.argsort(starts, kind="stable")
        return starts[order], order

    def visible_span(self, start: int, end: int) -> tuple[int, int]:
        """The visible character range ``[i, j)`` that raw characters ``start:end`` show.

        ``i`` is the first and ``j - 1`` the last visible character (in reading order) whose raw range
        starts inside ``start:end``, so ``visible_span(*raw_span(a, b))`` holds ``a:b``'s characters that
        the file holds; ``(i, i)`` when none starts there (``i``: the first visible character starting at or
        after ``start``, else the text's length). Offsets are characters of ``text`` and ``raw``.
        """
        sorted_starts, order = self._by_raw_start
        lo, hi = (int(x) for x in sorted_starts.searchsorted([start, end], side="left"))
        if lo >= hi:
            at = int(order[lo]) if lo < len(order) else len(self.text)
            return at, at
        chosen = order[lo:hi]
        return int(chosen.min()), int(chosen.max()) + 1

    def hidden_within(self, start: int, end: int) -> list[dict]:
        """The hidden ranges lying inside raw characters ``start:end``: ``{kind, start, end, text}`` each."""
        return [
            {"kind": kind, "start": a, "end": b, "text": self.raw[a:b]}
            for a, b, kind in self.hidden
            if a >= start and b <= end and a < b
        ]


@dataclass(frozen=True)
class PdfPages:
    """Where each page of a PDF's extracted text starts: ``starts[k]`` is page ``k + 1``'s first character.

    A page with no text starts where the next one does (it adds no character), so pages keep their
    numbers in the file (1-based) whatever pages are empty.
    """

    starts: tuple[int, ...]

    def page_of(self, offset: int) -> int:
        """The 1-based page holding extracted character ``offset`` (1 for a PDF with no page)."""
        return max(1, bisect.bisect_right(self.starts, offset))


class VisibleTextBuilder:
    """Collects visible characters with their raw ranges; ``build()`` gives the :class:`VisibleText`."""

    def __init__(self, raw: str, extractor: str) -> None:
        self.raw = raw
        self.extractor = extractor
        self._chars: list[str] = []
        self.starts = array("q")
        self.ends = array("q")
        self.hidden: list[tuple[int, int, str]] = []

    def add(self, char: str, start: int, end: int) -> None:
        """One visible character shown for ``raw[start:end]``."""
        self._chars.append(char)
        self.starts.append(start)
        self.ends.append(end)

    def line_break(self) -> None:
        """End the current line (nothing when the text is empty or already ends a line)."""
        if self._chars and self._chars[-1] != "\n":
            at = self.ends[-1]
            self.add("\n", at, at)

    def space(self) -> None:
        """A separating space, where the text does not already end in white space."""
        if self._chars and not self._chars[-1].isspace():
            at = self.ends[-1]
            self.add(" ", at, at)

    def position(self) -> int:
        """How many visible characters are there so far (where the next one goes)."""
        return len(self._chars)

    def mark_script(self, kind: str, since: int) -> None:
        """The characters added since :meth:`position` was ``since`` are a superscript (``kind`` ``"sup"``) or a
        subscript (``"sub"``): put :func:`script_mark`'s mark before them (an empty raw range: the file does
        not hold it) when they are a number."""
        mark = script_mark(kind, "".join(self._chars[since:])) if since < len(self._chars) else ""
        if mark:
            at = self.starts[since]
            self._chars.insert(since, mark)
            self.starts.insert(since, at)
            self.ends.insert(since, at)

    def script_tag(self, tag: str, scripts: list[tuple[str, int]]) -> None:
        """An HTML tag met in a page's text: a ``<sup>``/``<sub>`` opens a superscript or subscript (pushed on
        ``scripts`` with :meth:`position`), its closing tag marks it (:meth:`mark_script`); others do nothing."""
        match = SCRIPT_TAG.fullmatch(tag)
        if match is None:
            return
        name = match.group(2).lower()
        if not match.group(1):
            scripts.append((name, self.position()))
        elif scripts and scripts[-1][0] == name:
            self.mark_script(name, scripts.pop()[1])

    def hide(self, start: int, end: int, kind: str) -> None:
        """Record ``raw[start:end]`` as content left out of the visible text (``kind``: see ``VisibleText``)."""
        if start < end:
            self.hidden.append((start, end, kind))

    def build(self) -> VisibleText:
        """The visible text, lines ended by ``\\n``, with its map and hidden ranges in file order."""
        self.line_break()
        return VisibleText(
            self.raw, "".join(self._chars), self.starts, self.ends, tuple(sorted(set(self.hidden))), self.extractor
        )


def align(
    text: str, source: str, cursor: int, limit: int, *, entities: bool = False, escapes: bool = True
) -> tuple[list[int], int]:
    """Place each character of ``text`` in ``source[cursor:limit]``, in order.

    Returns ``(places, cursor)``: ``places`` holds two entries per character (start and end in
    ``source``) and ``cursor`` where the next search starts. A character is placed at its next
    occurrence; with ``escapes`` (text its parser unescaped, as Markdown prose) a backslash escape
    (``\\*`` for ``*``) and, with ``entities``, a character reference (``&amp;`` for ``&``) are placed
    whole; white space in ``text`` takes one white-space character of ``source`` when one is next, else
    an empty range; a character not found gets an empty range. Pass ``escapes=False`` for text shown as
    written (code, literal blocks), where a backslash is only itself: ``\\\\`` there is two characters.
    """
    places: list[int] = []
    for char in text:
        if escapes and cursor + 1 < limit and source[cursor] == "\\" and source[cursor + 1] == char:
            places += (cursor, cursor + 2)
            cursor += 2
            continue
        if entities and cursor < limit and source[cursor] == "&":
            entity = _ENTITY.match(source, cursor, limit)
            if entity and html.unescape(entity.group()) == char:
                places += (cursor, entity.end())
                cursor = entity.end()
                continue
        if char.isspace():
            if cursor < limit and source[cursor].isspace():
                places += (cursor, cursor + 1)
                cursor += 1
            else:
                places += (cursor, cursor)
            continue
        found = source.find(char, cursor, limit)
        if found < 0:
            places += (cursor, cursor)
        else:
            places += (found, found + 1)
            cursor = found + 1
    return places, cursor


def raw_spans(spans: list[dict], maps: Mapping[str, VisibleText | PdfPages]) -> list[dict]:
    """``spans`` (``{doc_id, start, end, start_line, end_line, text, ...}`` in visible characters) moved
    into the files as written, for the documents that have a ``VisibleText`` in ``maps``; a span of a
    document with ``PdfPages`` keeps its offsets and gains ``page`` and ``end_page`` (1-based pages of its
    first and last character); other spans are returned as is.

    A moved span keeps its keys: ``start``/``end`` become character offsets in the raw file (the range
    holding its visible characters), ``start_line``/``end_line`` 1-based lines of the raw file, ``text``
    the raw slice ``raw[start:end]`` (markup included); it gains ``elided``: the hidden ranges inside it
    (``{kind, start, end, text}``: a directive comment, a tag, a footnote marker, a link target…).
    """
    if not maps:
        return spans
    moved = []
    for span in spans:
        visible = maps.get(span.get("doc_id"))
        if isinstance(visible, PdfPages):
            last = max(span["start"], span["end"] - 1)
            moved.append({**span, "page": visible.page_of(span["start"]), "end_page": visible.page_of(last)})
            continue
        if visible is None:
            moved.append(span)
            continue
        start, end = visible.raw_span(span["start"], span["end"])
        start_line, end_line = visible.lines.span_lines(start, end)
        moved.append(
            {
                **span,
                "start": start,
                "end": end,
                "start_line": start_line,
                "end_line": end_line,
                "text": visible.raw[start:end],
                "elided": visible.hidden_within(start, end),
            }
        )
    return moved


def raw_diagnosis(diagnosis: dict | None, maps: Mapping[str, VisibleText | PdfPages]) -> dict | None:
    """A near-miss diagnosis moved into the file as written, as ``raw_spans`` moves a row's spans.

    ``diagnosis`` is the audit's (``{kind, nearest, shared_tokens, quote_tokens, edits}``; ``None`` or a dict
    without ``nearest`` is returned as is). When the nearest passage's document has a ``VisibleText`` in
    ``maps``, ``nearest`` is moved by ``raw_spans`` and each edit's ``source_span`` (``[start, end]``,
    visible characters) becomes raw character offsets, so both slice the file as written; a quote's own
    ``quote_span`` is unchanged (it indexes the quote). See docs/documents.md.
    """
    nearest = diagnosis.get("nearest") if isinstance(diagnosis, dict) else None
    visible = maps.get(nearest.get("doc_id")) if isinstance(nearest, dict) and maps else None
    if not isinstance(visible, VisibleText):
        return diagnosis if visible is None else {**diagnosis, "nearest": raw_spans([nearest], maps)[0]}
    edits = [
        {**edit, "source_span": list(visible.raw_span(*edit["source_span"]))} if "source_span" in edit else edit
        for edit in diagnosis.get("edits", [])
    ]
    return {**diagnosis, "nearest": raw_spans([nearest], maps)[0], "edits": edits}
