"""Where an audit's documents come from: a corpus file, a manifest's pins, a folder of pages, or an index.

``execution.drivers.run_audit`` takes one of these (``Documents``); the command line names the first three
from its options, ``Audit`` passes the ``IndexedCorpus`` it built once. Plain frozen records, no logic.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # a type only: naming the documents (``recheck --corpus-dir``) imports no Hamilton
    from hamilton import driver


@dataclass(frozen=True)
class CorpusFile:
    """An audit's documents from a corpus JSON file ``{doc_id: text}``."""

    path: str | Path


@dataclass(frozen=True)
class PinnedManifest:
    """An audit's documents from the pinned sources of a manifest (``doc_id`` = ``source_id``)."""

    path: str | Path


@dataclass(frozen=True)
class DocumentFolder:
    """An audit's documents from a folder of pages; ``glob`` selects its files (``None``: every file).

    ``glob`` and ``exclude`` are one pattern or a tuple of them (a file matching an ``exclude`` is left out).
    """

    path: str | Path
    glob: str | tuple | None = None
    exclude: tuple = ()
    html_main_content: bool = False  # HTML pages without navigation, banners, asides (docs/documents.md)


@dataclass(frozen=True)
class IndexedCorpus:
    """Documents indexed once (``Audit``): ``{doc_id: text}``, their extractors, the index, the driver."""

    documents: dict
    extractors: dict | None
    index: object
    driver: driver.Driver
    source_maps: dict | None = None  # {doc_id: VisibleText} of rendered pages: spans go back into the file


#: Where an audit's documents come from.
Documents = CorpusFile | PinnedManifest | DocumentFolder | IndexedCorpus
