"""Folders of pages as an audit corpus: Markdown, plain text, reStructuredText, HTML and PDF.

Why: the citation audit checks quotes against documents; real documentation lives in a folder of pages,
not in a hand-made ``{doc_id: text}`` JSON. This module turns a folder into the same mapping, one document
per file, and records which extractor produced each text, so a span (in characters of the extracted text)
can be traced back to how that text was obtained.

What it refuses to do: guess. A regular file whose extension has no extractor (``CNAME``, ``conf.py``,
an image) is skipped and counted, never read; a file that cannot be read or decoded is refused
(``unreadable_document``), and one such file refuses the whole corpus, naming it: an audit against a
silently partial corpus would call real quotes ``not_found``. The rules are in docs/documents.md.

- ``.md``, ``.markdown``: the rendered text (``io.markdown_text``), extractor ``markdown``;
  ``.rst``: the rendered text (``io.rst_text``), extractor ``rst``; both keep a map back to the file as
  written (``io.visible_text.VisibleText``), so spans slice the file, not the rendered text.
- ``.txt``: the file's text as written (strict UTF-8, one leading byte-order mark dropped), extractor ``text``.
- ``.html``, ``.htm``: the visible text (``html_visible_text``), extractor ``html``.
- ``.pdf``: the text of every page through ``pypdf`` (optional extra ``claimgate[pdf]``), extractor ``pdf``.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

import pandas as pd

from claimgate.errors import IngestionError
from claimgate.io.corpus_file import refuse_empty_corpus
from claimgate.io.extraction_cache import cached_extract
from claimgate.io.files import NotRegularFileError, TooLargeError, file_kind, open_regular_beneath, read_capped
from claimgate.io.html_text import MAX_HTML_DEPTH, html_visible_text  # noqa: F401  (re-exported)
from claimgate.io.markdown_text import markdown_visible_text
from claimgate.io.pdf_text import (  # noqa: F401  (MAX_PDF_* and pdf_text re-exported)
    MAX_PDF_PAGE_CHARS,
    MAX_PDF_PAGES,
    MAX_PDF_TEXT_CHARS,
    pdf_text,
    pdf_text_and_pages,
)
from claimgate.io.rst_text import rst_visible_text
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES
from claimgate.io.visible_text import PdfPages, VisibleText

#: Extractor name for each supported file extension (lower case).
EXTRACTORS = {
    ".md": "markdown",
    ".markdown": "markdown",
    ".txt": "text",
    ".rst": "rst",
    ".html": "html",
    ".htm": "html",
    ".pdf": "pdf",
}

#: Columns of ``read_document_folder``'s frame, in order; every column has dtype ``str`` but ``source_map``.
DOCUMENT_COLUMNS = ("doc_id", "path", "extractor", "text", "source_map")
#: Extractors whose text is rendered from markup, with a map back to the file (``VisibleText``).
RENDERED_EXTRACTORS = {"markdown": markdown_visible_text, "rst": rst_visible_text}

DEFAULT_GLOB = "**/*"


def extractor_of(path: str | Path, default: str | None = None) -> str | None:
    """The extractor of a page at ``path``, by its extension in lower case (``EXTRACTORS``), else ``default``.

    The one place a page's extractor is picked: a folder skips a file with none (``default`` ``None``), a
    pinned manifest reads such a file as plain text (``default`` ``"text"``); docs/documents.md, "Extractors".
    """
    return EXTRACTORS.get(os.path.splitext(str(path))[1].lower(), default)


def frame_source_maps(frame: pd.DataFrame) -> dict:
    """``{doc_id: VisibleText | PdfPages}`` of a documents frame (``DOCUMENT_COLUMNS``), pages with a map only."""
    return {d: m for d, m in zip(frame["doc_id"], frame["source_map"]) if m is not None}


def frame_parts(frame: pd.DataFrame) -> tuple[dict[str, str], dict[str, str], dict]:
    """``({doc_id: text}, {doc_id: extractor}, frame_source_maps(frame))`` of a documents frame."""
    return (
        dict(zip(frame["doc_id"], frame["text"])),
        dict(zip(frame["doc_id"], frame["extractor"])),
        frame_source_maps(frame),
    )


def document_text(raw: bytes, extractor: str, doc_id: str) -> str:
    """The text of one document from its raw bytes with ``extractor`` (see ``EXTRACTORS``).

    Text, Markdown, reStructuredText and HTML files must be strict UTF-8 (one leading byte-order mark
    dropped): raises ``IngestionError`` ``unreadable_document`` naming the document and the byte otherwise.
    """
    return document_extract(raw, extractor, doc_id)[0]


def document_extract(
    raw: bytes, extractor: str, doc_id: str, cache_dir: str | Path | None = None, main_content: bool = False
) -> tuple[str, VisibleText | PdfPages | None]:
    """``(text, source_map)`` of one document: ``source_map`` maps a rendered page's characters back to
    the file as written (``markdown``, ``rst``), or gives a PDF's page starts (``PdfPages``), ``None``
    for the others. Raises as ``document_text``.
    With ``cache_dir`` an HTML, PDF, Markdown or reStructuredText page's extraction is read from, or
    stored in, that folder (``io.extraction_cache``, keyed by the bytes and the extractor's version).
    ``main_content``: an HTML page's chrome is dropped (``html_text.html_visible_text``).
    """
    if extractor == "pdf":
        return cached_extract(raw, extractor, cache_dir, lambda: pdf_text_and_pages(raw, doc_id), None)
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise IngestionError("unreadable_document", f"{doc_id}: not UTF-8 at byte {exc.start}") from None
    if extractor == "text":
        return text, None
    key = "html_main" if extractor == "html" and main_content else extractor
    return cached_extract(raw, key, cache_dir, lambda: _rendered(text, extractor, doc_id, main_content), text)


def _rendered(text: str, extractor: str, doc_id: str, main_content: bool) -> tuple[str, VisibleText | None]:
    """The extraction of a decoded HTML, Markdown or reStructuredText page."""
    if extractor == "html":
        try:
            return html_visible_text(text, main_content), None
        except IngestionError as exc:  # a bound of the HTML reader: name the document
            raise IngestionError(exc.reason, f"{doc_id}: {exc.detail}") from None
    render = RENDERED_EXTRACTORS[extractor]
    try:
        visible = render(text)
    except IngestionError as exc:  # a bound of the reader (Markdown nested too deep): name the document
        raise IngestionError(exc.reason, f"{doc_id}: {exc.detail}") from None
    except (RecursionError, ValueError, TypeError, IndexError, KeyError, AttributeError) as exc:  # parser faults
        raise IngestionError("unreadable_document", f"{doc_id}: cannot be rendered ({type(exc).__name__})") from None
    return visible.text, visible


def _patterns(patterns: str | Sequence[str] | None, default: tuple[str, ...]) -> tuple[str, ...]:
    """One pattern or several as a tuple (``None`` or empty: ``default``)."""
    if isinstance(patterns, str):
        patterns = (patterns,)
    return tuple(p for p in patterns or () if p) or default


def _self_and_parents(relative: Path) -> list[str]:
    """``a/b/c.md``, ``a/b``, ``a``: the path and each folder holding it, with ``/`` separators."""
    return [relative.as_posix(), *(p.as_posix() for p in relative.parents if p.parts)]


def _globbed(root: Path, pattern: str) -> list[Path]:
    """Every path ``root.glob(pattern)`` lists; ``invalid_corpus`` for a pattern pathlib cannot use.

    pathlib refuses an absolute pattern (``NotImplementedError``) and a malformed one (``ValueError``);
    either matches no file of the folder (docs/documents.md, "Which files").
    """
    try:
        return list(root.glob(pattern))
    except (NotImplementedError, ValueError):
        detail = f"no file under {root} matches {pattern!r} (a pattern relative to the folder is needed)"
        raise IngestionError("invalid_corpus", detail) from None


def document_paths(
    corpus_dir: str | Path, glob: str | Sequence[str] = DEFAULT_GLOB, exclude: str | Sequence[str] = ()
) -> list[tuple[str, Path]]:
    """``(doc_id, path)`` of every file under ``corpus_dir`` matching a pattern of ``glob``, sorted by ``doc_id``.

    ``glob`` and ``exclude`` are one pattern or several (``Path.glob`` patterns, relative to
    ``corpus_dir``): a file is listed when some ``glob`` pattern matches it and no ``exclude`` pattern
    does (a pattern matching a folder, such as ``_build/**`` or ``_build``, leaves out everything in it).
    ``doc_id`` is the path relative to ``corpus_dir`` with ``/`` separators (``1.4.0/guide.md``).
    Files and folders whose name starts with ``.`` are skipped. Raises ``IngestionError``:
    ``invalid_corpus`` when ``corpus_dir`` is not a folder or the patterns match no file (an absolute
    pattern, or one pathlib cannot use, matches none; when files matched and ``exclude`` left out every
    one, the detail gives their count and the patterns that left them out),
    ``path_outside_root`` for a symbolic link that resolves outside ``corpus_dir``,
    ``not_a_regular_file`` for a matching entry that is neither a file nor a folder (a FIFO, a
    socket, a device, a dangling link or a link loop: ``entry_kind``), so no page is left out
    without a word; the first refused entry in ``doc_id`` order is named.
    """
    root = Path(corpus_dir)
    if not root.is_dir():
        raise IngestionError("invalid_corpus", f"corpus folder not found: {root}")
    globs = _patterns(glob, (DEFAULT_GLOB,))
    excluded_by = {
        pattern: {p.relative_to(root).as_posix() for p in _globbed(root, pattern)} for pattern in _patterns(exclude, ())
    }
    excluded = set().union(*excluded_by.values())
    left_out: set[str] = set()  # files a glob matched that an exclude pattern left out
    resolved_root = root.resolve()
    found: dict[str, Path] = {}
    refused: dict[str, IngestionError] = {}  # the first in doc_id order is raised, whatever the listing order
    for path in (path for pattern in globs for path in _globbed(root, pattern)):
        relative = path.relative_to(root)
        if any(part.startswith(".") for part in relative.parts):
            continue
        doc_id = relative.as_posix()
        if doc_id in found:
            continue
        if any(p in excluded for p in _self_and_parents(relative)):
            if path.is_file():
                left_out.add(doc_id)
            continue
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
    refuse_empty_corpus(found, _none_found(root, globs, left_out, excluded_by))
    return sorted(found.items())


def _none_found(root: Path, globs: tuple[str, ...], left_out: set[str], excluded_by: dict[str, set[str]]) -> str:
    """Why a folder gave no file: none matches ``globs``, or every match was left out by the exclude
    patterns named (those that left out a matched file, or a folder holding one)."""
    matched = ", ".join(repr(g) for g in globs)
    if not left_out:
        return f"no file under {root} matches {matched}"
    named = [
        pattern
        for pattern, hits in excluded_by.items()
        if any(p in hits for doc_id in left_out for p in _self_and_parents(Path(doc_id)))
    ]
    files = "file" if len(left_out) == 1 else "files"
    return (
        f"{len(left_out)} {files} under {root} match {matched}, and all were excluded by "
        f"{', '.join(repr(p) for p in named)}"
    )


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
    corpus_dir: str | Path,
    glob: str | Sequence[str] = DEFAULT_GLOB,
    max_document_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    exclude: str | Sequence[str] = (),
    cache_dir: str | Path | None = None,
    html_main_content: bool = False,
) -> pd.DataFrame:
    """Every document of a folder corpus, one row per page in ``doc_id`` order (files as ``document_paths``).

    Columns: ``doc_id`` (path relative to ``corpus_dir``, ``/`` separators), ``path`` (the file),
    ``extractor`` (``markdown``, ``rst``, ``text``, ``html`` or ``pdf``; see ``EXTRACTORS``) and ``text``
    (the extracted text, which quotes are matched against), all dtype ``str``; ``source_map`` (object:
    the ``VisibleText`` of a ``markdown`` or ``rst`` page, whose spans are moved back into the file as
    written; the ``PdfPages`` of a PDF, whose spans gain their page numbers; else ``None``).
    A regular file whose extension has no extractor is not read: its ``doc_id``
    is listed in ``frame.attrs["skipped"]`` (sorted). With ``cache_dir`` each page's extraction is kept
    in that folder between runs (``document_extract``; docs/documents.md, "Extracted text cache").
    ``html_main_content``: HTML pages are read in main-content mode (navigation, banners, asides out).
    Raises ``IngestionError`` naming the first
    file refused, in ``doc_id`` order: ``unsupported_document`` (a PDF without the ``pdf`` extra),
    ``invalid_corpus`` (no page with an extractor at all), ``unreadable_document`` (cannot be read,
    not UTF-8, a broken PDF),
    ``document_too_large`` (over ``max_document_bytes``), and the refusals of ``document_paths``.
    Each page is opened as a pinned source is (``io.files.open_regular_beneath``: its resolved path
    checked to be inside the folder, then opened following no link and without blocking, and checked
    once open), so a page swapped after the listing is refused too: for a link leading outside,
    ``path_outside_root``; for a FIFO, socket or device, ``not_a_regular_file``.
    """
    rows = []
    skipped = []
    resolved_root = os.path.realpath(corpus_dir)
    for doc_id, path in document_paths(corpus_dir, glob, exclude):
        extractor = extractor_of(path)
        if extractor is None:
            skipped.append(doc_id)  # CNAME, Makefile, conf.py, an image: not a page, never read
            continue
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
        extracted = document_extract(raw, extractor, doc_id, cache_dir, html_main_content)
        rows.append((doc_id, str(path), extractor, *extracted))
    refuse_empty_corpus(rows, f"no page under {corpus_dir} has an extractor ({', '.join(sorted(EXTRACTORS))})")
    frame = pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS))
    frame = frame.astype({c: "str" for c in DOCUMENT_COLUMNS if c != "source_map"})
    frame.attrs["skipped"] = skipped
    return frame
