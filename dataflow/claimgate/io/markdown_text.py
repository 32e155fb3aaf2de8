"""Rendered text of a Markdown page, each visible character mapped back to the file as written.

Why this module exists: a Markdown page is read as rendered, so an honest quote of what the reader
sees is found (``sensible [limits](config.md#limits) on every pool`` reads "sensible limits on every
pool"), while its spans still slice the file as written (``io.visible_text``). Parsed by
``markdown-it-py`` (CommonMark) with tables and strikethrough enabled and the footnote and MyST role
plugins of ``mdit-py-plugins`` (a role shows as Sphinx shows it, ``io.sphinx_roles``); markdown-it
gives lines for blocks only, so each piece of text is placed in its block's lines in order
(``visible_text.align``). Rules: docs/documents.md, "Rendered Markdown and reStructuredText".

What is visible: text, emphasis and link text (targets out), inline code (backticks out), code
blocks and fences (their info string out), headings, list items, table cells (one line per cell, row
by row), footnote bodies (at the end, as rendered), text inside raw HTML blocks. Left out and
recorded as hidden: tags (``<br>`` ends a line), comments and directive comments (``<!-- @… -->``, and
MyST's ``% @…`` comment lines), footnote markers (``[^3]``), link targets and images.
"""

from __future__ import annotations

import re
from array import array

from claimgate.errors import IngestionError
from claimgate.io.sphinx_roles import role_display, role_places
from claimgate.io.visible_text import VisibleText, VisibleTextBuilder, align, struck_tag

#: Version of this extractor's rules: part of the extracted-text cache key.
EXTRACTOR_VERSION = "markdown-7"  # 6: a raised or lowered number keeps its mark (10^6); 7: struck text out

# Block tokens whose end ends a line of visible text.
_LINE_BLOCKS = frozenset(
    {"paragraph", "heading", "th", "td", "tr", "list_item", "blockquote", "footnote", "table", "dt", "dd"}
)
_TAG = re.compile(r"<!--.*?(?:-->|$)|<[^>]*>", re.DOTALL)
_DIRECTIVE_COMMENT = re.compile(r"<!--\s*@")
_BREAK_TAG = re.compile(r"<br\s*/?>", re.IGNORECASE)
# A MyST comment line holding a directive: the whole line, without its line break.
_MYST_DIRECTIVE_LINE = re.compile(r"^% @[^\r\n]*", re.MULTILINE)

#: Block levels a Markdown page may nest (``document_too_deep`` past it): a block quote is one level, a list
#: two (the list and its item). markdown-it stops reading a page silently at its ``maxNesting`` (20 in
#: CommonMark's preset: ten lists deep dropped the rest of the page), so the limit is raised to this and a
#: page reaching it is refused, never read in part. Each level costs markdown-it about three Python stack
#: frames, so 128 stays well inside the interpreter's recursion limit; real pages nest a few levels.
MAX_MARKDOWN_NESTING = 128
#: Block tokens whose content markdown-it reads one level further in (where the limit cuts a page).
_CONTAINERS = frozenset({"blockquote_open", "list_item_open", "footnote_open", "footnote_reference_open"})

_PARSER = None


def _parser():
    global _PARSER
    if _PARSER is None:
        from markdown_it import MarkdownIt
        from mdit_py_plugins.footnote import footnote_plugin
        from mdit_py_plugins.myst_role import myst_role_plugin

        parser = MarkdownIt("commonmark", {"maxNesting": MAX_MARKDOWN_NESTING})
        parser = parser.enable(["table", "strikethrough"]).use(footnote_plugin, inline=False)
        _PARSER = parser.use(myst_role_plugin)  # {meth}`~pool.Pool.close`, read as Sphinx shows it
    return _PARSER


def _tokens(text: str) -> list:
    """markdown-it's block tokens of ``text``, or ``IngestionError`` ``document_too_deep`` when a block quote,
    list item or footnote opens at the last level markdown-it reads (``MAX_MARKDOWN_NESTING``): its content,
    and in a list the rest of the page, would be dropped without a word."""
    tokens = _parser().parse(text)
    if any(t.level >= MAX_MARKDOWN_NESTING - 1 and t.type in _CONTAINERS for t in tokens):
        raise IngestionError("document_too_deep", f"Markdown nested {MAX_MARKDOWN_NESTING} block levels deep or more")
    return tokens


def _normalized(raw: str) -> tuple[str, list[int] | None, tuple[tuple[int, int, str], ...]]:
    """markdown-it's view of ``raw``, its offsets in ``raw`` and the raw ranges it leaves out.

    ``\r\n`` and ``\r`` are read as ``\n``. A MyST directive comment line (``% @…`` at the start of a
    line, the gate's ``myst_comment`` form) is left out, its line break kept: MyST shows no comment, and a
    comment line ends its paragraph there. Its raw range is returned as hidden (``directive``).
    """
    hidden = tuple((m.start(), m.end(), "directive") for m in _MYST_DIRECTIVE_LINE.finditer(raw))
    if "\r" not in raw and not hidden:
        return raw, None, ()
    dropped = iter(hidden)
    skip = next(dropped, None)
    out: list[str] = []
    offsets: list[int] = []
    i = 0
    while i < len(raw):
        if skip is not None and i == skip[0]:
            i = skip[1]
            skip = next(dropped, None)
            continue
        offsets.append(i)
        if raw[i] == "\r":
            out.append("\n")
            i += 2 if raw.startswith("\r\n", i) else 1
        else:
            out.append(raw[i])
            i += 1
    offsets.append(len(raw))
    return "".join(out), offsets, hidden


class _Reader:
    """One page's walk over markdown-it's tokens, in the coordinates of the normalized text."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.out = VisibleTextBuilder(text, "markdown")
        self.line_starts = [0]
        for match in re.finditer("\n", text):
            self.line_starts.append(match.end())
        self.line_cursor: dict[int, int] = {}

    def line_end(self, k: int) -> int:
        """Offset of line ``k``'s line break (or the end of the text)."""
        return self.line_starts[k + 1] - 1 if k + 1 < len(self.line_starts) else len(self.text)

    def place_lines(self, content: str, first_line: int) -> tuple[list[int], list[int]]:
        """Start and end in the text of every character of ``content``, its lines placed from ``first_line``."""
        starts: list[int] = []
        ends: list[int] = []
        k = first_line
        for i, line in enumerate(content.split("\n")):
            if i:
                at = self.line_end(k)
                starts.append(at)
                ends.append(min(at + 1, len(self.text)))
                k += 1
            if k >= len(self.line_starts):
                at = len(self.text)
                starts += [at] * len(line)
                ends += [at] * len(line)
                continue
            col, stop = self.line_cursor.get(k, self.line_starts[k]), self.line_end(k)
            found = self.text.find(line, col, stop) if line else -1
            if found >= 0:
                starts += range(found, found + len(line))
                ends += range(found + 1, found + len(line) + 1)
                self.line_cursor[k] = found + len(line)
            elif line:
                places, self.line_cursor[k] = align(line, self.text, col, stop, escapes=False)  # raw lines
                starts += places[0::2]
                ends += places[1::2]
        return starts, ends

    def inline(self, token) -> None:
        """The visible text of one block's inline content (its children tokens, in order)."""
        src = token.content
        starts, ends = self.place_lines(src, token.map[0] if token.map else 0)
        starts.append(ends[-1] if ends else (self.line_starts[token.map[0]] if token.map else 0))
        ends.append(starts[-1])

        struck: list[int] = []  # open strikethroughs (``~~``, ``<del>``, ``<s>``): where each starts in ``src``

        def emit(chars: str, places: list[int]) -> None:
            if struck:  # struck-through text is not what the page says: hidden as a whole at its close
                return
            for i in range(0, len(places), 2):
                a, b = places[i], places[i + 1]
                char = chars[i // 2]
                if b > a:
                    self.out.add(char, starts[a], ends[b - 1])
                else:
                    self.out.add(char, starts[a], starts[a])

        def hide(a: int, b: int, kind: str) -> None:
            if b > a:
                self.out.hide(starts[a], ends[b - 1], kind)

        cur = 0
        link_stack: list[str] = []
        scripts: list[tuple[str, int]] = []  # open <sup>/<sub> tags: (name, visible position)
        for child in token.children or []:
            kind = child.type
            if kind == "text":
                chars = child.content
                places, cur = align(chars, src, cur, len(src), entities=True)
                emit(chars, places)
            elif kind == "code_inline":
                cur = _after(src, child.markup, cur)
                chars = child.content  # a code span holds its backslashes as written
                places, cur = align(chars, src, cur, len(src), escapes=False)
                emit(chars, places)
                cur = _after(src, child.markup, cur)
            elif kind == "myst_role":
                cur = self.myst_role(child, src, cur, emit, hide)
            elif kind in ("softbreak", "hardbreak"):
                found = src.find("\n", cur)
                at = found if found >= 0 else cur
                self.out.add("\n", starts[at], ends[at] if found >= 0 else starts[at])
                cur = at + 1 if found >= 0 else cur
            elif kind == "html_inline":
                found = src.find(child.content, cur)
                at = found if found >= 0 else cur
                end = at + len(child.content) if found >= 0 else cur
                is_comment = child.content.startswith("<!--")
                hide(at, end, _comment_kind(child.content) if is_comment else "tag")
                if _BREAK_TAG.fullmatch(child.content):
                    self.out.add("\n", starts[at], starts[at])
                self.out.script_tag(child.content, scripts)
                struck_tag(child.content, at, end, struck, hide)
                cur = end
            elif kind == "link_open":
                link_stack.append(child.markup)
                cur = _after(src, "<" if child.markup == "autolink" else "[", cur)
            elif kind == "link_close":
                markup = link_stack.pop() if link_stack else ""
                if markup == "autolink":
                    cur = _after(src, ">", cur)
                elif markup != "linkify":
                    cur = _after(src, "]", cur)
                    end = _target_end(src, cur)
                    hide(cur, end, "link_target")
                    cur = end
            elif kind == "image":
                start = src.find("![", cur)
                if start >= 0:
                    end = _target_end(src, _bracket_end(src, start + 1))
                    hide(start, end, "image")
                    cur = end
            elif kind == "footnote_ref":
                start = src.find("[^", cur)
                if start >= 0:
                    end = _after(src, "]", start)
                    hide(start, end, "footnote_ref")
                    cur = end
            elif kind == "s_open":  # ``~~``
                found = src.find(child.markup, cur)
                struck.append(found if found >= 0 else cur)
                cur = _after(src, child.markup, cur)
            elif kind == "s_close":
                cur = _after(src, child.markup, cur)
                if struck:
                    hide(struck.pop(), cur, "deleted")
            elif kind.endswith(("_open", "_close")) and child.markup:
                cur = _after(src, child.markup, cur)

    def myst_role(self, child, src: str, cur: int, emit, hide) -> int:
        """A MyST role (``{name}`text```) as Sphinx shows it (``io.sphinx_roles``); the offset after it."""
        name = child.meta.get("name", "")
        start = src.find("{" + name + "}", cur)
        if start < 0:
            return cur
        text = start + len(name) + 2  # the opening backticks, then the role's text (as the plugin reads it)
        while text < len(src) and src[text] == "`":
            text += 1
        run = text - start - len(name) - 2
        close = src.find("`" * run, text + 1)
        end = close + run if close >= 0 else len(src)
        core, suffix = role_display(name.lower(), child.content)
        hidden, places = role_places(src, start, end, core, core + suffix)
        if not places:  # a role whose text markdown-it changed (a line break read as a space): placed in order
            hidden, places = [(start, text)], align(core + suffix, src, text, end, escapes=False)[0]
        for a, b in hidden:
            hide(a, b, "role")
        emit(core + suffix, places)
        return end

    def code(self, token) -> None:
        """A fence or an indented code block: its text as written, the fence lines out."""
        first = token.map[0] + (1 if token.type == "fence" else 0)
        content = token.content[:-1] if token.content.endswith("\n") else token.content
        starts, ends = self.place_lines(content, first)
        for char, a, b in zip(content, starts, ends):
            self.out.add(char, a, b)
        self.out.line_break()

    def html_block(self, token) -> None:
        """A raw HTML block: comments and tags hidden, the text between them visible."""
        start = self.line_starts[token.map[0]]
        end = self.line_starts[token.map[1]] if token.map[1] < len(self.line_starts) else len(self.text)
        at = start
        scripts: list[tuple[str, int]] = []
        struck: list[int] = []  # open <del>, <s>, <strike>: where each starts
        for match in _TAG.finditer(self.text, start, end):
            if not struck:
                self._block_text(at, match.start())
            tag = match.group()
            self.out.hide(match.start(), match.end(), _comment_kind(tag) if tag.startswith("<!--") else "tag")
            if _BREAK_TAG.fullmatch(tag):
                self.out.line_break()
            self.out.script_tag(tag, scripts)
            struck_tag(tag, match.start(), match.end(), struck, self.out.hide)
            at = match.end()
        if struck:
            self.out.hide(struck[0], end, "deleted")
        else:
            self._block_text(at, end)
        self.out.line_break()

    def _block_text(self, start: int, end: int) -> None:
        for i in range(start, end):
            char = self.text[i]
            if char.isspace():
                self.out.space()
            else:
                self.out.add(char, i, i + 1)

    def read(self) -> VisibleText:
        for token in _tokens(self.text):
            kind = token.type
            if kind == "inline":
                self.inline(token)
            elif kind in ("fence", "code_block"):
                self.code(token)
            elif kind == "html_block":
                self.html_block(token)
            elif kind.endswith("_close") and kind[: -len("_close")] in _LINE_BLOCKS:
                self.out.line_break()
        return self.out.build()


def _comment_kind(comment: str) -> str:
    return "directive" if _DIRECTIVE_COMMENT.match(comment) else "comment"


def _after(src: str, markup: str, cur: int) -> int:
    """The offset after the next ``markup`` in ``src`` from ``cur`` (``cur`` when there is none)."""
    found = src.find(markup, cur) if markup else -1
    return found + len(markup) if found >= 0 else cur


def _bracket_end(src: str, start: int) -> int:
    """The offset after the ``]`` closing the ``[`` at ``start`` (nesting and escapes respected)."""
    depth, i = 0, start
    while i < len(src):
        char = src[i]
        if char == "\\":
            i += 2
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(src)


def _target_end(src: str, cur: int) -> int:
    """The offset after a link's target at ``cur``: ``(dest "title")``, ``[ref]``, or none (``cur``)."""
    if cur < len(src) and src[cur] == "[":
        return _bracket_end(src, cur)
    if cur < len(src) and src[cur] == "(":
        depth, i, quote = 0, cur, None
        while i < len(src):
            char = src[i]
            if char == "\\":
                i += 2
                continue
            if quote:
                quote = None if char == quote else quote
            elif char in "\"'" and depth == 1:
                quote = char
            elif char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
                if depth == 0:
                    return i + 1
            i += 1
        return len(src)
    return cur


def markdown_visible_text(raw: str) -> VisibleText:
    """The rendered text of a Markdown page (``raw``, decoded) with its map back to ``raw``.

    ``text`` ends every line with ``\\n``; ``starts``/``ends`` are character offsets in ``raw`` (a
    ``\\r\\n`` line break is both its characters). markdown-it reads every text as Markdown; raises
    ``IngestionError`` ``document_too_deep`` only for a page nesting blocks ``MAX_MARKDOWN_NESTING`` levels
    deep, which it would read in part. Rules: docs/documents.md, "Rendered Markdown and reStructuredText"
    and "Refusals".
    """
    text, offsets, dropped = _normalized(raw)
    read = _Reader(text).read()
    if offsets is None:
        return read
    return VisibleText(
        raw,
        read.text,
        array("q", (offsets[a] for a in read.starts)),
        # A left-out line follows a line break only, so only a line break's end reaches over one.
        array("q", (offsets[b] for b in read.ends)),
        tuple(sorted({*((offsets[a], offsets[b], kind) for a, b, kind in read.hidden), *dropped})),
        read.extractor,
    )
