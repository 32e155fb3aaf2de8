"""Extracted page text kept between runs, beside the corpus index (``--cache DIR``).

Why this module exists: a warm audit loads its corpus index from the cache, but it still had to parse
every HTML, PDF, Markdown and reStructuredText page again to get the text the index was built from. Here
each page's extracted text is stored once, keyed by the SHA-256 of the file's bytes, the extractor, its
rules' version and its parser's version, so a warm run reads it back instead of parsing. Rules:
docs/documents.md, "Extracted text cache".

What it refuses to do: run code from the cache or trust it. Entries are JSON (the text, the hidden
ranges) and, for a rendered page, a ``.npy`` array of its map read with ``allow_pickle=False``; an
entry that does not read back whole and consistent (another key, other lengths, a damaged file) is
extracted again and rewritten. A cache never changes a result: the text is the extractor's own.
Entries are written atomically (a private temporary renamed over the entry) but not flushed to
disk one by one (see :func:`_write_entry`).
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import io
import json
import os
import tempfile
from array import array
from collections.abc import Callable
from importlib import metadata
from pathlib import Path

import numpy as np

from claimgate.errors import OutputError
from claimgate.io.markdown_text import EXTRACTOR_VERSION as MARKDOWN_VERSION
from claimgate.io.rst_text import EXTRACTOR_VERSION as RST_VERSION
from claimgate.io.visible_text import PdfPages, VisibleText

#: Version of this module's file layout; part of every key.
CACHE_FORMAT = 1
#: Folder of the entries inside the cache folder.
FOLDER = "extracted"
#: Per extractor: its rules' version and the distribution whose version also keys an entry.
EXTRACTOR_VERSIONS = {
    "markdown": (MARKDOWN_VERSION, "markdown-it-py"),
    "rst": (RST_VERSION, "docutils"),
    "html": ("html-4", "lxml"),  # 2: lxml's event parser; 3: a raised or lowered number keeps its mark; 4: del out
    "html_main": ("html-main-3", "lxml"),  # HTML in main-content mode; 2, 3: as html-3, html-4
    "pdf": ("pdf-2", "pypdf"),  # 2: page starts kept
}

Extracted = tuple[str, VisibleText | PdfPages | None]


@functools.cache  # once per process: the parser loaded in memory does not change either (~1 ms a call)
def _library_version(name: str) -> str:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return "absent"


def entry_key(raw: bytes, extractor: str) -> str:
    """The SHA-256 (hex) naming a page's entry: file bytes, extractor, its version, its parser's version."""
    rules, library = EXTRACTOR_VERSIONS[extractor]
    head = f"claimgate-extracted-text\n{CACHE_FORMAT}\n{extractor}\n{rules}\n{_library_version(library)}\n"
    return hashlib.sha256(head.encode() + raw).hexdigest()


def _read(folder: Path, key: str, raw_text: str | None) -> Extracted | None:
    try:
        record = json.loads((folder / f"{key}.json").read_text(encoding="utf-8"))
        if record.get("key") != key or not isinstance(record.get("text"), str):
            return None
        text = record["text"]
        if "pages" in record:
            starts = tuple(int(s) for s in record["pages"])
            if any(not 0 <= s <= len(text) for s in starts) or list(starts) != sorted(starts):
                return None
            return text, PdfPages(starts)
        if not record.get("mapped"):
            return text, None
        with open(folder / f"{key}.npy", "rb") as handle:
            places = np.load(handle, allow_pickle=False)
        if raw_text is None or places.shape != (2, len(text)) or places.dtype.kind != "i":
            return None
        hidden = tuple((int(a), int(b), str(kind)) for a, b, kind in record["hidden"])
        starts, ends = _int64s(places[0]), _int64s(places[1])
        return text, VisibleText(raw_text, text, starts, ends, hidden, record["extractor"])
    except (OSError, ValueError, KeyError, TypeError):  # missing, damaged or foreign: extract again
        return None


def _int64s(values: np.ndarray) -> array:
    """An ``array("q")`` of a row of the map, copied as bytes (no Python int per character)."""
    out = array("q")
    out.frombytes(values.astype(np.int64, copy=False).tobytes())
    return out


def _write_entry(path: Path, data: bytes) -> None:
    """``data`` into ``path`` atomically: a private temporary beside it (``0o600``), renamed over it.

    The cache folder and its ``extracted`` folder are created ``0o700`` when missing.

    Lighter than :func:`claimgate.io.atomic.write_atomic`, which scans the folder for stale
    temporaries and fsyncs on every write (quadratic in the pages of a site, and a disk flush
    per page): an entry is a cache, so a torn one after a crash only reads back as damaged and
    is extracted again. ``OutputError`` when the file system refuses, as ``write_atomic``.
    """
    temporary = None
    try:
        path.parent.parent.mkdir(mode=0o700, parents=True, exist_ok=True)  # the cache folder, as the index's
        path.parent.mkdir(mode=0o700, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.replace(temporary, path)
    except BaseException as exc:
        if temporary is not None:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
        if isinstance(exc, OSError):
            raise OutputError(f"cannot write {path}: {exc.strerror or exc}") from None
        raise


def _write(folder: Path, key: str, extractor: str, extracted: Extracted) -> None:
    text, visible = extracted
    record: dict = {"key": key, "extractor": extractor, "text": text, "mapped": isinstance(visible, VisibleText)}
    if isinstance(visible, PdfPages):
        record["pages"] = list(visible.starts)
    elif visible is not None:
        record["hidden"] = [list(h) for h in visible.hidden]
        places = np.stack([np.asarray(visible.starts, np.int64), np.asarray(visible.ends, np.int64)])
        if len(visible.raw) < 1 << 31:  # offsets into the page: int32 halves the entry (read back as int64)
            places = places.astype(np.int32)
        buffer = io.BytesIO()
        np.save(buffer, places.reshape(2, len(text)), allow_pickle=False)
        _write_entry(folder / f"{key}.npy", buffer.getvalue())
    _write_entry(folder / f"{key}.json", json.dumps(record, ensure_ascii=False).encode("utf-8", "backslashreplace"))


def cached_extract(
    raw: bytes, extractor: str, cache_dir: str | Path | None, extract: Callable[[], Extracted], raw_text: str | None
) -> Extracted:
    """``extract()`` of one page (``(text, VisibleText | None)``), through the cache folder ``cache_dir``.

    ``raw_text`` is the page decoded (the ``VisibleText.raw`` of a rendered page), ``None`` for a PDF.
    Without ``cache_dir``, or for an extractor with no entry (``text``: nothing to save), ``extract()``
    is called. A refusal ``extract()`` raises is never stored. Writes are atomic (``io.atomic``).
    """
    if cache_dir is None or extractor not in EXTRACTOR_VERSIONS:
        return extract()
    folder = Path(cache_dir) / FOLDER
    key = entry_key(raw, extractor)
    found = _read(folder, key, raw_text)
    if found is not None:
        return found
    extracted = extract()
    _write(folder, key, extractor, extracted)
    return extracted
