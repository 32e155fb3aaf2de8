"""The text of a PDF page by page, bounded before it costs time or memory (``.pdf`` pages of a corpus folder).

Why a module of its own: pypdf (the ``pdf`` extra) reads the file, and a hostile PDF can make it slow, deep
or huge; the bounds below and their refusals (``document_too_large``, ``document_too_deep``,
``unreadable_document``, ``unsupported_document`` without the extra) live here, beside the reader they
guard. The rules are in docs/documents.md ("Extractors", "Refusals").
"""

from __future__ import annotations

import io
import logging

from claimgate.errors import IngestionError
from claimgate.io.visible_text import PdfPages

#: Entries a PDF's page tree may list (``document_too_large`` past it): pages, each as often as it is
#: listed, and the nodes grouping them. A 600 KB page tree listing one page 100,000 times took 48 s and
#: 2.2 GB; counted before pypdf flattens the tree, such a file is refused at once.
MAX_PDF_PAGES = 10_000
#: Characters of text one PDF page may give, and a whole PDF (``document_too_large`` past either): a
#: dense printed page holds about 5,000; a page drawing one form thousands of times holds millions.
MAX_PDF_PAGE_CHARS = 1_000_000
MAX_PDF_TEXT_CHARS = 16 * 1024 * 1024


def pdf_text(raw: bytes, doc_id: str) -> str:
    """The text of every page of a PDF, pages in order, each ending with ``\\n`` (raises as ``pdf_page_texts``)."""
    return pdf_text_and_pages(raw, doc_id)[0]


def pdf_text_and_pages(raw: bytes, doc_id: str) -> tuple[str, PdfPages]:
    """``pdf_text`` and where each page starts in it (``PdfPages``, 1-based page numbers of the file)."""
    pieces, starts, length = [], [], 0
    for page in pdf_page_texts(raw, doc_id):
        starts.append(length)
        if page:
            pieces.append(page if page.endswith("\n") else f"{page}\n")
            length += len(pieces[-1])
    return "".join(pieces), PdfPages(tuple(starts))


def pdf_page_texts(raw: bytes, doc_id: str) -> list[str]:
    """The text of each page of a PDF, in order (``""`` for a page with none).

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
    return pages


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
