"""Visible text of an HTML page: what a browser shows, read by lxml's event parser (no tree, no recursion).

Why this module exists: ``io.documents`` reads folders of pages; the HTML reader, its bounds and its
rules live here (docs/documents.md, "Extractors"), so a change to what counts as visible on an HTML page
is made in one place.
"""

from __future__ import annotations

import re

from claimgate.errors import IngestionError
from claimgate.io.visible_text import DELETED_ELEMENTS, script_mark

#: Elements an HTML page may nest inside one another (``document_too_deep`` past it). libxml2 matches each
#: end tag against every open element, so a page's parse time grows with its size times its depth: the
#: bound keeps a crafted page (1,024 open elements, then 16 MiB of stray end tags) to about 25 s; real pages
#: nest a few dozen deep, and 1,000 nested inline elements are read.
MAX_HTML_DEPTH = 1024

# Elements whose content is never shown on the page.
_HIDDEN_ELEMENTS = frozenset({"script", "style", "template", "noscript", "head", "title"})
# Elements that start and end a line of visible text.
_BLOCK_ELEMENTS = frozenset(
    {
        "address", "article", "aside", "blockquote", "caption", "dd", "details", "div", "dl", "dt",
        "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "li", "main", "nav", "ol", "p", "pre", "section", "summary", "table", "tbody",
        "td", "tfoot", "th", "thead", "tr", "ul",
    }
)  # fmt: skip
_INLINE_WHITESPACE = re.compile(r"\s+")
#: Main-content mode: elements that are page chrome, never content.
CHROME_ELEMENTS = frozenset({"nav", "aside"})
#: Main-content mode: elements that are page chrome outside a sectioning element (a page's banner and
#: footer; an ``article``'s or ``section``'s own ``header`` holds its title and stays).
PAGE_CHROME_ELEMENTS = frozenset({"header", "footer"})
SECTIONING_ELEMENTS = frozenset({"article", "section", "main", "blockquote", "details", "dialog", "fieldset",
                                 "figure", "td"})  # fmt: skip
#: Main-content mode: ARIA roles of page chrome (navigation, and the landmarks of the elements above).
CHROME_ROLES = frozenset({"navigation", "banner", "contentinfo", "complementary", "search"})


def html_visible_text(markup: str, main_content: bool = False) -> str:
    """The text a browser shows for ``markup``: one string, lines ended by ``\\n``.

    Parsed by ``lxml`` (libxml2's HTML parser: tolerant of broken markup, in time linear in the page's
    size), whose events are read as they come (``_VisibleText``): no tree is built and nothing recurses,
    so a page nested any number of elements deep is read whole. Character references are decoded
    (``&amp;`` is ``&``, ``&nbsp;`` a space); ``script``, ``style``, ``template``, ``noscript`` and the
    ``head`` (with its ``title``) are dropped, as are comments, processing instructions and struck-out text
    (``del``, ``s``, ``strike``: ``io.visible_text.DELETED_ELEMENTS``); white space
    inside a line collapses to one space, except in ``pre``, whose line breaks are kept; block elements
    (``p``, ``div``, ``li``, ``h1``…, ``tr``, ``td``…) and ``br`` end a line; a ``sup`` or ``sub`` holding a
    number is read after ``^`` / ``_`` (``10<sup>6</sup>`` is ``10^6``: ``io.visible_text.script_mark``).
    Spaces at the start and end of each line are dropped, and so are empty lines. An empty or invisible
    page gives ``""``.
    With ``main_content`` page chrome is dropped too: ``nav`` and ``aside`` (``CHROME_ELEMENTS``), a
    ``header`` or ``footer`` outside any sectioning element (``PAGE_CHROME_ELEMENTS``,
    ``SECTIONING_ELEMENTS``), and any element whose ARIA ``role`` is ``navigation``, ``banner``,
    ``contentinfo``, ``complementary`` or ``search`` (``CHROME_ROLES``); rules in docs/documents.md.
    Raises ``IngestionError`` ``document_too_deep`` for elements nested deeper than ``MAX_HTML_DEPTH``.
    """
    from lxml import etree

    data = markup.encode("utf-8", "surrogatepass")
    if not data.strip():
        return ""
    # Why lxml, and why a parser target rather than a tree: Python's ``html.parser`` (behind
    # beautifulsoup4) took quadratic time on crafted markup (40,000 repetitions of ``<a `` took 138 s);
    # libxml2 reads such pages, unclosed tags and comment or entity floods in linear time, but its tree
    # builder is quadratic in the attributes of one element (100,000 took 39 s) and silently drops
    # everything below 2,048 levels of nesting. Its parser events, read by a target, have neither
    # problem (tests/io/test_hostile_html.py). The markup goes in as UTF-8 bytes with the encoding
    # named, so a ``<meta charset>`` or an XML declaration cannot make it decode the text another way.
    target = _VisibleText(main_content)
    parser = etree.HTMLParser(encoding="utf-8", huge_tree=True, target=target)
    pieces = etree.fromstring(data, parser)
    lines = (line.strip(" \t\r\f\v\xa0") for line in "".join(pieces).split("\n"))
    return "".join(f"{line}\n" for line in lines if line)


class _VisibleText:
    """An ``lxml`` parser target collecting the visible text of a page as pieces (``html_visible_text``).

    Text between two tags may arrive in several ``data`` calls; it is held in ``pending`` and
    white space is collapsed over the whole run at the next tag, as one text node would be.
    """

    def __init__(self, main_content: bool = False) -> None:
        self.pieces: list[str] = []
        self.pending: list[str] = []
        # per open element: (hidden, in pre, in a sectioning element), inherited by children
        self.open: list[tuple[bool, bool, bool]] = []
        self.hidden = self.in_pre = self.sectioned = False
        self.main_content = main_content
        self.scripts: list[tuple[str, int]] = []  # open sup/sub elements: (name, index of their first piece)

    def _chrome(self, name: str, attrib) -> bool:
        """Whether an element is page chrome in main-content mode (``html_visible_text``)."""
        if name in CHROME_ELEMENTS or (name in PAGE_CHROME_ELEMENTS and not self.sectioned):
            return True
        roles = str(attrib.get("role") or "").lower().split()
        return any(role in CHROME_ROLES for role in roles)

    def _flush(self) -> None:
        if self.pending:
            text = "".join(self.pending)
            self.pending.clear()
            self.pieces.append(text if self.in_pre else _INLINE_WHITESPACE.sub(" ", text))

    def start(self, tag: str, attrib: object) -> None:
        self._flush()
        if len(self.open) >= MAX_HTML_DEPTH:
            raise IngestionError("document_too_deep", f"HTML nested deeper than {MAX_HTML_DEPTH} elements")
        self.open.append((self.hidden, self.in_pre, self.sectioned))
        name = tag.lower()
        if (
            self.hidden
            or name in _HIDDEN_ELEMENTS
            or name in DELETED_ELEMENTS
            or (self.main_content and self._chrome(name, attrib))
        ):
            self.hidden = True
            return
        self.sectioned = self.sectioned or name in SECTIONING_ELEMENTS
        if name == "br" or name in _BLOCK_ELEMENTS:
            self.pieces.append("\n")
        elif name in ("sup", "sub"):
            self.scripts.append((name, len(self.pieces)))
        self.in_pre = self.in_pre or name == "pre"

    def end(self, tag: str) -> None:
        self._flush()
        name = tag.lower()
        if not self.hidden and name in _BLOCK_ELEMENTS:
            self.pieces.append("\n")
        elif not self.hidden and self.scripts and self.scripts[-1][0] == name:
            first = self.scripts.pop()[1]  # a raised or lowered number is read with its mark (``10^6``)
            self.pieces.insert(first, script_mark(name, "".join(self.pieces[first:])))
        self.hidden, self.in_pre, self.sectioned = self.open.pop() if self.open else (False, False, False)

    def data(self, text: str) -> None:
        if not self.hidden:
            self.pending.append(text)

    def close(self) -> list[str]:
        self._flush()
        return self.pieces
