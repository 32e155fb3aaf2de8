"""Folders of pages as an audit corpus: Markdown, plain text, reStructuredText, HTML and PDF.

Why: the citation audit checks quotes against documents; real documentation lives in a folder of pages,
not in a hand-made ``{doc_id: text}`` JSON. This module turns a folder into the same mapping, one document
per file, and records which extractor produced each text, so a span (in characters of the extracted text)
can be traced back to how that text was obtained.

What it refuses to do: guess. A file whose extension has no extractor is refused
(``unsupported_document``), a file that cannot be read or decoded is refused (``unreadable_document``),
and one such file refuses the whole corpus, naming it: an audit against a silently partial corpus would
call real quotes ``not_found``. The rules are in docs/documents.md.

- ``.md``, ``.markdown``, ``.txt``, ``.rst``: the file's text as written (strict UTF-8, one leading byte-order
  mark dropped), extractor ``text``.
- ``.html``, ``.htm``: the visible text (``html_visible_text``), extractor ``html``.
- ``.pdf``: the text of every page through ``pypdf`` (optional extra ``claimgate[pdf]``), extractor ``pdf``.
"""

from __future__ import annotations

import errno
import io
import logging
import os
import re
import stat
from pathlib import Path

import pandas as pd

from claimgate.errors import IngestionError
from claimgate.io.files import NotRegularFileError, TooLargeError, file_kind, open_regular_beneath, read_capped
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES

#: Extractor name for each supported file extension (lower case).
EXTRACTORS = {
    ".md": "text",
    ".markdown": "text",
    ".txt": "text",
    ".rst": "text",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}

#: Columns of ``read_document_folder``'s frame, in order; every column has dtype ``str``.
DOCUMENT_COLUMNS = ("doc_id", "path", "extractor", "text")

DEFAULT_GLOB = "**/*"

#: Elements an HTML page may nest inside one another (``document_too_deep`` past it). libxml2 matches each
#: end tag against every open element, so a page's parse time grows with its size times its depth: the
#: bound keeps a crafted page (1,024 open elements, then 16 MiB of stray end tags) to about 25 s; real pages
#: nest a few dozen deep, and 1,000 nested inline elements are read.
MAX_HTML_DEPTH = 1024

#: Entries a PDF's page tree may list (``document_too_large`` past it): pages, each as often as it is
#: listed, and the nodes grouping them. A 600 KB page tree listing one page 100,000 times took 48 s and
#: 2.2 GB; counted before pypdf flattens the tree, such a file is refused at once.
MAX_PDF_PAGES = 10_000
#: Characters of text one PDF page may give, and a whole PDF (``document_too_large`` past either): a
#: dense printed page holds about 5,000; a page drawing one form thousands of times holds millions.
MAX_PDF_PAGE_CHARS = 1_000_000
MAX_PDF_TEXT_CHARS = 16 * 1024 * 1024

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


def html_visible_text(markup: str) -> str:
    """The text a browser shows for ``markup``: one string, lines ended by ``\\n``.

    Parsed by ``lxml`` (libxml2's HTML parser: tolerant of broken markup, in time linear in the page's
    size), whose events are read as they come (``_VisibleText``): no tree is built and nothing recurses,
    so a page nested any number of elements deep is read whole. Character references are decoded
    (``&amp;`` is ``&``, ``&nbsp;`` a space); ``script``, ``style``, ``template``, ``noscript`` and the
    ``head`` (with its ``title``) are dropped, as are comments and processing instructions; white space
    inside a line collapses to one space, except in ``pre``, whose line breaks are kept; block elements
    (``p``, ``div``, ``li``, ``h1``…, ``tr``, ``td``…) and ``br`` end a line. Spaces at the start and end
    of each line are dropped, and so are empty lines. An empty or invisible page gives ``""``.
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
    target = _VisibleText()
    parser = etree.HTMLParser(encoding="utf-8", huge_tree=True, target=target)
    pieces = etree.fromstring(data, parser)
    lines = (line.strip(" \t\r\f\v\xa0") for line in "".join(pieces).split("\n"))
    return "".join(f"{line}\n" for line in lines if line)


class _VisibleText:
    """An ``lxml`` parser target collecting the visible text of a page as pieces (``html_visible_text``).

    Text between two tags may arrive in several ``data`` calls; it is held in ``pending`` and
    white space is collapsed over the whole run at the next tag, as one text node would be.
    """

    def __init__(self) -> None:
        self.pieces: list[str] = []
        self.pending: list[str] = []
        self.open: list[tuple[bool, bool]] = []  # per open element: (hidden, in pre), inherited by children
        self.hidden = self.in_pre = False

    def _flush(self) -> None:
        if self.pending:
            text = "".join(self.pending)
            self.pending.clear()
            self.pieces.append(text if self.in_pre else _INLINE_WHITESPACE.sub(" ", text))

    def start(self, tag: str, attrib: object) -> None:
        self._flush()
        if len(self.open) >= MAX_HTML_DEPTH:
            raise IngestionError("document_too_deep", f"HTML nested deeper than {MAX_HTML_DEPTH} elements")
        self.open.append((self.hidden, self.in_pre))
        name = tag.lower()
        if self.hidden or name in _HIDDEN_ELEMENTS:
            self.hidden = True
            return
        if name == "br" or name in _BLOCK_ELEMENTS:
            self.pieces.append("\n")
        self.in_pre = self.in_pre or name == "pre"

    def end(self, tag: str) -> None:
        self._flush()
        if not self.hidden and tag.lower() in _BLOCK_ELEMENTS:
            self.pieces.append("\n")
        self.hidden, self.in_pre = self.open.pop() if self.open else (False, False)

    def data(self, text: str) -> None:
        if not self.hidden:
            self.pending.append(text)

    def close(self) -> list[str]:
        self._flush()
        return self.pieces


def pdf_text(raw: bytes, doc_id: str) -> str:
    """The text of every page of a PDF, pages in order, each ending with ``\\n``.

    Extracted by ``pypdf`` (the optional extra ``pip install 'claimgate[pdf]'``). Raises
    ``IngestionError``: ``unsupported_document`` when ``pypdf`` is not installed,
    ``unreadable_document`` when the file is not a PDF pypdf can read (whatever pypdf raises), or is
    encrypted with a password, ``document_too_deep`` when its objects nest deeper than pypdf can recurse,
    ``document_too_large`` when its page tree lists more than ``MAX_PDF_PAGES`` entries or a page gives
    more than ``MAX_PDF_PAGE_CHARS`` characters (the whole file more than ``MAX_PDF_TEXT_CHARS``).
    """
    try:
        from pypdf import PdfReader
        from pypdf.errors import PyPdfError
    except ImportError:
        raise IngestionError(
            "unsupported_document", f"{doc_id}: reading PDF needs the optional extra: pip install 'claimgate[pdf]'"
        ) from None
    # pypdf logs repairs of damaged files as warnings; the refusal below is the one line that counts.
    pypdf_logger = logging.getLogger("pypdf")
    level = pypdf_logger.level
    pypdf_logger.setLevel(logging.CRITICAL)
    try:
        reader = PdfReader(io.BytesIO(raw))
        if reader.is_encrypted and not reader.decrypt(""):
            raise IngestionError("unreadable_document", f"{doc_id}: the PDF is encrypted with a password")
        listed = pdf_page_tree_entries(reader, MAX_PDF_PAGES)
        if listed > MAX_PDF_PAGES:
            raise IngestionError("document_too_large", f"{doc_id}: the PDF lists more than {MAX_PDF_PAGES} pages")
        pages = _bounded_page_texts(reader, doc_id)
    except IngestionError:
        raise
    except RecursionError:  # objects nested hundreds deep (arrays in a content stream): pypdf recurses
        raise IngestionError("document_too_deep", f"{doc_id}: the PDF nests objects too deeply to read") from None
    except (PyPdfError, ValueError, KeyError, TypeError, AttributeError, IndexError) as exc:  # broken files
        raise IngestionError("unreadable_document", f"{doc_id}: not a readable PDF ({type(exc).__name__})") from None
    except Exception as exc:  # anything else pypdf raises on a hostile file refuses this document, never a traceback
        raise IngestionError("unreadable_document", f"{doc_id}: not a readable PDF ({type(exc).__name__})") from None
    finally:
        pypdf_logger.setLevel(level)
    return "".join(page if page.endswith("\n") else f"{page}\n" for page in pages if page)


def pdf_page_tree_entries(reader: object, limit: int) -> int:
    """Entries of the page tree of ``reader`` (a ``pypdf.PdfReader``), counting no further than ``limit + 1``.

    Pages count as often as they are listed, and so do the ``/Pages`` nodes grouping them, so a tree that
    lists one node many times cannot make the count small while pypdf's flattening copies every listing.
    Walked with an explicit stack; a node listed inside itself (a cycle) is not entered again (pypdf
    refuses such a file when it flattens the tree). Entries that are not dictionaries are not counted.
    """
    from pypdf.generic import DictionaryObject

    root = reader.trailer["/Root"].get_object()["/Pages"].get_object()
    if not isinstance(root, DictionaryObject):
        return 0
    entries = 0
    path: set[int] = {id(root)}  # the /Pages nodes from the root to the one being listed
    stack = [(id(root), iter(_pdf_kids(root)))]
    while stack:
        node_id, kids = stack[-1]
        kid = next(kids, None)
        if kid is None:
            stack.pop()
            path.discard(node_id)
            continue
        node = kid.get_object()
        if not isinstance(node, DictionaryObject):
            continue
        entries += 1
        if entries > limit:
            break
        if "/Kids" in node and id(node) not in path:
            path.add(id(node))
            stack.append((id(node), iter(_pdf_kids(node))))
    return entries


def _pdf_kids(node: object) -> list:
    kids = node.get("/Kids")
    kids = kids.get_object() if kids is not None else None
    return list(kids) if isinstance(kids, list) else []


class _PdfTextLimit(Exception):
    """Raised from pypdf's text visitor once a page, or the file, has given more text than allowed."""


def _bounded_page_texts(reader: object, doc_id: str) -> list[str]:
    """The text of each page of ``reader``, stopping (``document_too_large``) past the text bounds.

    pypdf hands each run of text to ``visitor_text`` as it extracts it, so a page that would give
    millions of characters is stopped while it is read, not after its text is built.
    """
    total = 0
    pages = []
    for number, page in enumerate(reader.pages, start=1):
        seen = [0]  # characters this page has given so far

        def visit(text: str, *_: object, seen: list = seen, before: int = total) -> None:
            seen[0] += len(text)
            if seen[0] > MAX_PDF_PAGE_CHARS or before + seen[0] > MAX_PDF_TEXT_CHARS:
                raise _PdfTextLimit

        try:
            text = page.extract_text(visitor_text=visit) or ""
        except _PdfTextLimit:
            text = ""
        page_chars = max(seen[0], len(text))
        if page_chars > MAX_PDF_PAGE_CHARS:
            detail = f"page {number} of the PDF gives more than {MAX_PDF_PAGE_CHARS} characters of text"
            raise IngestionError("document_too_large", f"{doc_id}: {detail}")
        if total + page_chars > MAX_PDF_TEXT_CHARS:
            detail = f"the PDF gives more than {MAX_PDF_TEXT_CHARS} characters of text"
            raise IngestionError("document_too_large", f"{doc_id}: {detail}")
        total += len(text)
        pages.append(text)
    return pages


def document_text(raw: bytes, extractor: str, doc_id: str) -> str:
    """The text of one document from its raw bytes with ``extractor`` (``text``, ``html`` or ``pdf``).

    ``text`` and ``html`` files must be strict UTF-8 (one leading byte-order mark dropped): raises
    ``IngestionError`` ``unreadable_document`` naming the document and the byte otherwise.
    """
    if extractor == "pdf":
        return pdf_text(raw, doc_id)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestionError("unreadable_document", f"{doc_id}: not UTF-8 at byte {exc.start}") from None
    if extractor != "html":
        return text
    try:
        return html_visible_text(text)
    except IngestionError as exc:  # a bound of the HTML reader: name the document
        raise IngestionError(exc.reason, f"{doc_id}: {exc.detail}") from None


def document_paths(corpus_dir: str | Path, glob: str = DEFAULT_GLOB) -> list[tuple[str, Path]]:
    """``(doc_id, path)`` of every file under ``corpus_dir`` matching ``glob``, sorted by ``doc_id``.

    ``doc_id`` is the path relative to ``corpus_dir`` with ``/`` separators (``1.4.0/guide.md``).
    Files and folders whose name starts with ``.`` are skipped. Raises ``IngestionError``:
    ``invalid_corpus`` when ``corpus_dir`` is not a folder or ``glob`` matches no file (an absolute
    pattern, or one pathlib cannot use, matches none),
    ``path_outside_root`` for a symbolic link that resolves outside ``corpus_dir``,
    ``not_a_regular_file`` for a matching entry that is neither a file nor a folder (a FIFO, a
    socket, a device, a dangling link or a link loop: ``entry_kind``), so no page is left out
    without a word; the first refused entry in ``doc_id`` order is named.
    """
    root = Path(corpus_dir)
    if not root.is_dir():
        raise IngestionError("invalid_corpus", f"corpus folder not found: {root}")
    resolved_root = root.resolve()
    found: dict[str, Path] = {}
    refused: dict[str, IngestionError] = {}  # the first in doc_id order is raised, whatever the listing order
    pattern = glob or DEFAULT_GLOB
    try:  # pathlib refuses an absolute pattern (NotImplementedError) and a malformed one (ValueError)
        listed = list(root.glob(pattern))
    except (NotImplementedError, ValueError):
        raise IngestionError(
            "invalid_corpus", f"no file under {root} matches {pattern!r} (a pattern relative to the folder is needed)"
        ) from None
    for path in listed:
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        doc_id = relative.as_posix()
        if not path.is_file():
            # A folder is walked, not read; anything else would be a page silently left out.
            kind = entry_kind(path)
            if kind is not None:
                refused[doc_id] = IngestionError("not_a_regular_file", f"{doc_id} is {kind}, not a page")
            continue
        if not path.resolve().is_relative_to(resolved_root):
            refused[doc_id] = IngestionError("path_outside_root", f"{doc_id} resolves outside {root}")
            continue
        found[doc_id] = path
    if refused:
        raise refused[min(refused)]
    if not found:
        raise IngestionError("invalid_corpus", f"no file under {root} matches {pattern!r}")
    return sorted(found.items())


def entry_kind(path: Path) -> str | None:
    """What a folder entry that is not a regular file is (``a FIFO (named pipe)``, ``a socket``,
    ``a device``, ``a symbolic link to nothing``, ``a symbolic link loop``), or ``None`` for a folder
    (or a link to one) and for an entry gone since it was listed.
    """
    try:
        mode = os.stat(path).st_mode  # links followed: a link to a FIFO is a FIFO
    except FileNotFoundError:
        try:
            return "a symbolic link to nothing" if stat.S_ISLNK(os.lstat(path).st_mode) else None
        except OSError:
            return None
    except OSError as exc:
        return "a symbolic link loop" if exc.errno == errno.ELOOP else f"unreadable ({exc.strerror or exc})"
    return None if stat.S_ISDIR(mode) else file_kind(mode)


def read_document_folder(
    corpus_dir: str | Path, glob: str = DEFAULT_GLOB, max_document_bytes: int = DEFAULT_MAX_SOURCE_BYTES
) -> pd.DataFrame:
    """Every document of a folder corpus, one row per file in ``doc_id`` order.

    Columns (all dtype ``str``): ``doc_id`` (path relative to ``corpus_dir``, ``/`` separators), ``path``
    (the file), ``extractor`` (``text``, ``html`` or ``pdf``; see ``EXTRACTORS``) and ``text`` (the
    extracted text; audit spans are character offsets into it). Raises ``IngestionError`` naming the first
    file refused, in ``doc_id`` order: ``unsupported_document`` (no extractor for its extension, or PDF
    without the ``pdf`` extra), ``unreadable_document`` (cannot be read, not UTF-8, a broken PDF),
    ``document_too_large`` (over ``max_document_bytes``), and the refusals of ``document_paths``.
    Each page is opened as a pinned source is (``io.files.open_regular_beneath``: its resolved path
    checked to be inside the folder, then opened following no link and without blocking, and checked
    once open), so a page swapped after the listing is refused too: for a link leading outside,
    ``path_outside_root``; for a FIFO, socket or device, ``not_a_regular_file``.
    """
    rows = []
    resolved_root = os.path.realpath(corpus_dir)
    for doc_id, path in document_paths(corpus_dir, glob):
        extractor = EXTRACTORS.get(path.suffix.lower())
        if extractor is None:
            supported = ", ".join(sorted(EXTRACTORS))
            raise IngestionError("unsupported_document", f"{doc_id}: no extractor for this file type (use {supported})")
        # Opened as a pinned source is, not by path: a page swapped after the listing for a link
        # leading outside, or for a FIFO, is refused here instead of being read or waited on.
        try:
            resolved = os.path.realpath(path, strict=True)
        except OSError as exc:
            raise IngestionError("unreadable_document", f"{doc_id}: {exc.strerror or exc}") from None
        if os.path.commonpath([resolved_root, resolved]) != resolved_root or resolved == resolved_root:
            raise IngestionError("path_outside_root", f"{doc_id} resolves outside {corpus_dir}")
        try:
            fd, info = open_regular_beneath(resolved_root, os.path.relpath(resolved, resolved_root))
        except NotRegularFileError:
            kind = entry_kind(path) or "no longer a file"
            raise IngestionError("not_a_regular_file", f"{doc_id} is {kind}, not a page") from None
        except OSError as exc:  # ELOOP, ENOTDIR: a folder of its path swapped for a link while opening
            raise IngestionError("unreadable_document", f"{doc_id}: {exc.strerror or exc}") from None
        try:
            if info.st_size > max_document_bytes:
                raise TooLargeError(max_document_bytes)
            raw = read_capped(fd, max_document_bytes)  # never read more than the limit into memory
        except TooLargeError:
            raise IngestionError("document_too_large", f"{doc_id}: more than {max_document_bytes} bytes") from None
        except OSError as exc:
            raise IngestionError("unreadable_document", f"{doc_id}: {exc.strerror or exc}") from None
        finally:
            os.close(fd)
        rows.append((doc_id, str(path), extractor, document_text(raw, extractor, doc_id)))
    return pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS)).astype({c: "str" for c in DOCUMENT_COLUMNS})
