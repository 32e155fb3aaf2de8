"""Rendered text of a reStructuredText page, each visible character mapped back to the file as written.

Why this module exists: a reStructuredText page is read as Sphinx shows it, so ``:meth:`~pool.Pool.close```
is quoted as ``close()`` and ``:data:`0.5``` as ``0.5``, while spans still slice the file as written
(``io.visible_text``). Parsed by ``docutils`` into its document tree (file inclusion and raw output
switched off, no message printed); the roles and directives of Sphinx that docs use are read the way
Sphinx renders them (the tables below; the roles' in ``io.sphinx_roles``). docutils gives lines for
blocks only, so each piece of text is placed in the file in order, an inline element within its own
markup (``visible_text.align``). Rules: docs/documents.md, "Rendered Markdown and reStructuredText".

What is visible: text, titles, emphasis, literals (backticks out), link text (targets out), roles,
literal and code blocks, list items, table cells (one line per cell paragraph, row by row), footnote
bodies, the content of admonitions and of Sphinx's version and see-also directives. Left out and
recorded as hidden: comments and directive comments (``.. @…``), footnote and citation markers, link
targets, substitution definitions, images, and the directives that show no text of the page (``toctree``,
``index``, autodoc's).
"""

from __future__ import annotations

import io
import re

from claimgate.io.rst_references import linear_reader_class
from claimgate.io.sphinx_roles import CODE_ROLES, FUNCTION_ROLES, TEXT_ROLES, role_display, role_places
from claimgate.io.visible_text import VisibleText, VisibleTextBuilder, align

__all__ = ["CODE_ROLES", "FUNCTION_ROLES", "TEXT_ROLES", "role_display", "rst_visible_text"]  # roles: io.sphinx_roles

#: Version of this extractor's rules: part of the extracted-text cache key.
EXTRACTOR_VERSION = "rst-3"  # 3: a raised or lowered number keeps its mark (10^6); unknown roles shown

#: Sphinx directives whose content is shown (their own generated labels are not in the file).
CONTENT_DIRECTIVES = ("seealso", "only", "hlist", "centered", "glossary", "tab", "tabs", "card", "dropdown",
                      "grid")  # fmt: skip
#: Sphinx's version notes: the text after the version and the content are shown ("Added in version" is not).
VERSION_DIRECTIVES = ("versionadded", "versionchanged", "deprecated", "versionremoved")
#: Sphinx directives shown as their content's code (a doctest's session).
CODE_DIRECTIVES = ("code-block", "sourcecode", "doctest", "testcode", "testoutput", "ipython", "jupyter-execute")
#: Sphinx directives that show no text of the page.
SILENT_DIRECTIVES = (
    "toctree", "index", "currentmodule", "module", "py:module", "py:currentmodule", "highlight",
    "automodule", "autoclass", "autofunction", "automethod", "autodata", "autoattribute", "autoexception",
    "autosummary", "literalinclude", "tabularcolumns", "sectionauthor", "codeauthor", "moduleauthor",
    "testsetup", "testcleanup", "include", "raw", "image", "figure", "only-html", "meta", "contents",
)  # fmt: skip
#: Sphinx object descriptions: the signature is shown as code, then the content.
DESCRIPTION_DIRECTIVES = ("function", "class", "method", "attribute", "data", "exception", "decorator",
                          "py:function", "py:class", "py:method", "py:attribute", "py:data", "py:exception",
                          "py:decorator", "py:property", "envvar", "option", "describe", "object")  # fmt: skip

_SETTINGS = {
    "report_level": 5,
    "halt_level": 5,
    "file_insertion_enabled": False,
    "raw_enabled": False,
    "_disable_config": True,
    "input_encoding": "unicode",
    "syntax_highlight": "none",
    # docutils (0.21+) reports a line over 10,000 characters as a severe error and then yields an empty
    # document: a page with one long URL or table row was read as no text at all. The page is already
    # bounded in bytes (``--max-source-bytes``), and docutils' slow inline cases grow with the length of a
    # paragraph, not of a line, so the line limit is lifted rather than the page silently emptied.
    "line_length_limit": 1 << 62,
}
_REGISTERED = False
#: What may stand between the text placed so far and the next inline element: white space, escapes,
#: and a list item's bullet or enumerator (``*``, ``-``, ``1.``, ``(a)``, ``#.``) or a line block's ``|``.
#: An interpreted text with a role docutils does not know (a Sphinx domain's or an extension's:
#: ``:variable:`CMAKE_X` ``, ``:cmake:command:`if` ``), as docutils keeps it in a ``problematic`` node.
_UNKNOWN_ROLE = re.compile(r":(?P<name>[A-Za-z0-9][A-Za-z0-9_.+:-]*):`(?P<text>[^`]+)`", re.DOTALL)
_LEAD = re.compile(r"[\s\\]*(?:(?:[-*+\u2022|]|\(?(?:[0-9]+|[a-zA-Z]|[ivxlcdmIVXLCDM]+|#)[.)])\s+)?[\s\\]*")


def _register() -> None:
    """Teach docutils the Sphinx roles and directives above (once per process)."""
    global _REGISTERED
    if _REGISTERED:
        return
    from docutils import nodes
    from docutils.parsers.rst import Directive, directives, roles
    from docutils.utils import unescape

    def make_role(code: bool):
        def role(name, rawtext, text, lineno, inliner, options=None, content=None):
            core, suffix = role_display(name.lower(), unescape(text))
            node = (nodes.literal if code else nodes.inline)(rawtext, core + suffix)
            node["cg_core"] = core
            return [node], []

        return role

    for name in FUNCTION_ROLES + CODE_ROLES:
        roles.register_local_role(name, make_role(True))
    for name in TEXT_ROLES:
        roles.register_local_role(name, make_role(False))

    class AnyOptions(dict):
        """Every option accepted, its value kept as written (Sphinx's options are not docutils')."""

        def __missing__(self, key):
            return directives.unchanged

        def __contains__(self, key):
            return True

    class Sphinxish(Directive):
        """A Sphinx directive as docutils sees it: an optional argument, any option, any content."""

        optional_arguments = 1
        final_argument_whitespace = True
        has_content = True
        option_spec = AnyOptions()

    class Content(Sphinxish):
        def run(self):
            node = nodes.container()
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class Silent(Sphinxish):
        def run(self):
            return [nodes.comment("", "")]

    class Code(Sphinxish):
        def run(self):
            text = "\n".join(self.content)
            node = nodes.literal_block(text, text)
            node["cg_line"] = self.content_offset + 1  # its first line of code (1-based)
            return [node]

    class Described(Sphinxish):
        required_arguments = 1
        optional_arguments = 0

        def run(self):
            node = nodes.container()
            signature = self.arguments[0]
            node += nodes.paragraph(signature, "", nodes.literal(signature, signature))
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    class Version(Sphinxish):
        required_arguments = 1

        def run(self):
            node = nodes.container()
            if len(self.arguments) > 1:
                inline, messages = self.state.inline_text(self.arguments[1], self.lineno)
                node += nodes.paragraph(self.arguments[1], "", *inline)
            self.state.nested_parse(self.content, self.content_offset, node)
            return [node]

    for name in VERSION_DIRECTIVES:
        directives.register_directive(name, Version)
    for name in CONTENT_DIRECTIVES:
        directives.register_directive(name, Content)
    for name in SILENT_DIRECTIVES:
        directives.register_directive(name, Silent)
    for name in DESCRIPTION_DIRECTIVES:
        directives.register_directive(name, Described)
    for name in CODE_DIRECTIVES:
        directives.register_directive(name, Code)
    directives.register_directive("code", Code)
    _REGISTERED = True


class _Reader:
    """One page's walk over the docutils tree, placing text in the file in order."""

    def __init__(self, raw: str) -> None:
        from docutils import nodes

        self.nodes = nodes
        self.raw = raw
        self.out = VisibleTextBuilder(raw, "rst")
        self.cursor = 0
        self.line_starts = [0] + [m.end() for m in re.finditer(r"\r\n|\r|\n", raw)]
        n = nodes
        self.skip = (n.system_message, n.substitution_definition, n.target, n.raw, n.image, n.label, n.pending)
        self.hidden = {n.footnote_reference: "footnote_ref", n.citation_reference: "footnote_ref", n.image: "image"}
        self.lines = (n.paragraph, n.title, n.literal_block, n.term, n.entry, n.list_item, n.field_name, n.line,
                      n.rubric, n.caption, n.attribution, n.doctest_block, n.subtitle, n.option_string)  # fmt: skip
        self.inlines = (n.literal, n.emphasis, n.strong, n.reference, n.title_reference, n.inline, n.subscript,
                        n.superscript, n.abbreviation, n.acronym, n.problematic)  # fmt: skip

    def at_line(self, node) -> None:
        """Move the cursor to the start of ``node``'s line when docutils knows it and it lies ahead."""
        line = getattr(node, "line", None) if isinstance(node, self.nodes.paragraph) else None
        if isinstance(node, self.nodes.Element) and "cg_line" in node:
            line = node["cg_line"]
        if line:
            start = self.line_starts[min(line - 1, len(self.line_starts) - 1)]
            self.cursor = max(self.cursor, start)

    def locate(self, rawsource: str, limit: int, inline: bool = True) -> int:
        """Where ``rawsource`` (an element as written) starts at the cursor, or -1.

        An inline element must come next (only white space or a backslash before it), so a later
        element with the same spelling is never taken for it; a block may come after other text.
        """
        if not rawsource:
            return -1
        found = self.raw.find(rawsource, self.cursor, limit)
        if found < 0 or (inline and not _LEAD.fullmatch(self.raw, self.cursor, found)):
            return -1
        return found

    def text(self, text: str, limit: int) -> None:
        """Place a text node's characters (``text`` as docutils holds it: ``\\x00`` marks an escape).

        docutils unescapes prose only: each backslash escape of the file is a ``\\x00`` before the
        character it escapes, while literal text (inline literals, literal, code and doctest blocks)
        holds its backslashes as written. So a ``\\x00`` is placed at the file's next backslash, the
        escaped character shown for the escape whole (``\\*`` for ``*``), and an escaped space or
        line break shows nothing, as in docutils; every other character, a backslash too, is itself.
        """
        pieces = text.split("\x00")
        self._plain(pieces[0], limit)
        for piece in pieces[1:]:
            slash = self.raw.find("\\", self.cursor, limit)
            if slash < 0:  # never in a docutils tree: the escape is placed as plain text
                self._plain(piece, limit)
                continue
            self.cursor = min(slash + 2, limit)
            if piece[:1] in (" ", "\n"):
                piece = piece[1:]
            elif piece:
                self.out.add(piece[0], slash, self.cursor)
                piece = piece[1:]
            self._plain(piece, limit)

    def _plain(self, text: str, limit: int) -> None:
        places, self.cursor = align(text, self.raw, self.cursor, limit, escapes=False)
        for i, char in enumerate(text):
            self.out.add(char, places[2 * i], places[2 * i + 1])

    def walk(self, node, limit: int) -> None:
        n = self.nodes
        if isinstance(node, n.Text):
            self.text(str(node), limit)
            return
        if isinstance(node, n.comment):
            self.comment(node, limit)
            return
        kind = self.hidden.get(type(node))
        if kind is not None or isinstance(node, self.skip):
            found = self.locate(node.rawsource, limit, isinstance(node.parent, n.TextElement))
            if found >= 0:
                self.out.hide(found, found + len(node.rawsource), kind or "link_target")
                self.cursor = found + len(node.rawsource)
            return
        if isinstance(node, self.inlines):
            found = self.locate(node.rawsource, limit)
            if found >= 0:
                end = found + len(node.rawsource)
                core = node.get("cg_core")
                unknown = _UNKNOWN_ROLE.fullmatch(node.rawsource) if isinstance(node, n.problematic) else None
                if core is not None:
                    self.role(core, node.astext(), found, end)
                elif unknown is not None:  # a role docutils does not know: shown as Sphinx shows a text role
                    core, suffix = role_display(unknown["name"].lower(), unknown["text"])
                    self.role(core, core + suffix, found, end)
                else:
                    self.cursor = found
                    since = self.out.position()
                    for child in node.children:
                        self.walk(child, end)
                    if isinstance(node, (n.superscript, n.subscript)):  # ``10\ :sup:`6``` reads ``10^6``
                        self.out.mark_script("sup" if isinstance(node, n.superscript) else "sub", since)
                    if isinstance(node, n.reference):  # `text <target>`_: the target is markup
                        target = self.raw.find("<", self.cursor, end)
                        if target >= 0:
                            self.out.hide(target, self.raw.rfind(">", target, end) + 1, "link_target")
                self.cursor = end
                return
        self.at_line(node)
        for child in node.children:
            self.walk(child, limit)
        if isinstance(node, self.lines):
            self.out.line_break()

    def role(self, core: str, shown: str, start: int, end: int) -> None:
        """A role written ``raw[start:end]`` as Sphinx shows it (``shown``: ``core`` and an added suffix): its
        core placed in its markup, an added ``()`` mapped to nothing."""
        hidden, places = role_places(self.raw, start, end, core, shown)
        if not places:
            self.cursor = start
            self.text(shown, end)
            return
        for a, b in hidden:  # the role's name and what ``~`` or a title leaves out
            self.out.hide(a, b, "role")
        for i, char in enumerate(shown):
            self.out.add(char, places[2 * i], places[2 * i + 1])

    def comment(self, node, limit: int) -> None:
        """A comment (``..`` then text) is hidden; one whose text starts with ``@`` is a directive comment."""
        body = node.astext()
        first = body.split("\n", 1)[0].strip()
        pattern = re.compile(r"\.\.[ \t]+" + re.escape(first)) if first else None
        match = pattern.search(self.raw, self.cursor, limit) if pattern else None
        if match is None:
            return
        end = match.end()
        rest = body[len(first) :].strip()
        if rest:
            last = rest.rsplit("\n", 1)[-1].strip()
            found = self.raw.find(last, end, limit)
            end = found + len(last) if found >= 0 else end
        self.out.hide(match.start(), end, "directive" if body.lstrip().startswith("@") else "comment")
        self.cursor = end

    def read(self) -> VisibleText:
        from docutils.core import publish_doctree

        settings = {**_SETTINGS, "warning_stream": io.StringIO()}
        tree = publish_doctree(self.raw, reader=linear_reader_class()(), settings_overrides=settings)
        for child in tree.children:
            self.walk(child, len(self.raw))
        return self.out.build()


def rst_visible_text(raw: str) -> VisibleText:
    """The rendered text of a reStructuredText page (``raw``, decoded) with its map back to ``raw``.

    ``text`` ends every line with ``\\n``; ``starts``/``ends`` are character offsets in ``raw``. A role
    docutils does not know shows its text as a text role does (its name hidden); an unknown directive is
    left out of the text, as its error message is; nothing is printed and nothing raised. Rules:
    docs/documents.md, "Rendered Markdown and reStructuredText".
    """
    _register()
    return _Reader(raw).read()
