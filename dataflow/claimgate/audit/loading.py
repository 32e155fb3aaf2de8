"""Loading nodes of the citation audit (Hamilton): documents and the citation table.

Documents come from a pinned manifest (``document_source="manifest"``: the same ``load_manifest``
node as the gate, then ``pinned_documents``: hashes checked on the bytes as written, each page read as
a folder's page is, see docs/documents.md, "Pinned pages") or from a plain corpus file ``{doc_id: text}``
(``document_source="corpus"``) or a folder of pages (``document_source="folder"``: ``io.documents``,
one document per file, see docs/documents.md).
"""

from __future__ import annotations

import pandas as pd
from hamilton.function_modifiers import config

from claimgate.io.corpus_file import read_corpus, refuse_empty_corpus
from claimgate.io.documents import DEFAULT_GLOB, frame_source_maps, read_document_folder
from claimgate.io.pinned_pages import read_pinned_documents
from claimgate.io.sources import DEFAULT_MAX_CORPUS_BYTES, DEFAULT_MAX_SOURCE_BYTES
from claimgate.io.tables import citation_table_frame, read_citation_rows


@config.when(document_source="manifest")
def pinned_documents(
    load_manifest: dict,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    max_corpus_bytes: int = DEFAULT_MAX_CORPUS_BYTES,
    cache_dir: str | None = None,
    html_main_content: bool = False,
) -> pd.DataFrame:
    """Every pinned source verified (SHA-256 of the bytes as written) and extracted, in manifest order.

    Columns of ``io.documents.DOCUMENT_COLUMNS`` (``doc_id`` is the ``source_id``): ``doc_id, path,
    extractor, text`` (str), ``source_map`` (object); ``io.pinned_pages.read_pinned_documents``. Limits in
    bytes; raises its ``IngestionError`` (``hash_mismatch``…): the whole run is refused, and
    ``invalid_corpus`` for a manifest that pins no source (``io.corpus_file.refuse_empty_corpus``: an audit
    over no document would call every quote ``not_found``; the gate accepts such a manifest).
    """
    frame = read_pinned_documents(load_manifest, max_source_bytes, max_corpus_bytes, cache_dir, html_main_content)
    refuse_empty_corpus(frame, "the manifest pins no source")
    return frame


@config.when(document_source="manifest")
def source_documents__manifest(pinned_documents: pd.DataFrame) -> dict:
    """Extracted text of every pinned source, keyed by source id (manifest order)."""
    return dict(zip(pinned_documents["doc_id"], pinned_documents["text"]))


@config.when(document_source="manifest")
def source_maps__manifest(pinned_documents: pd.DataFrame) -> dict:
    """``{source_id: VisibleText | PdfPages}``: a rendered pinned page's spans go back into the file as pinned."""
    return frame_source_maps(pinned_documents)


@config.when(document_source="corpus")
def source_documents__corpus(
    corpus_path: str,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    max_corpus_bytes: int = DEFAULT_MAX_CORPUS_BYTES,
) -> dict:
    """Original text of every document of a corpus file ``{doc_id: text}`` (file order).

    Limits in bytes: ``max_source_bytes`` per document (``document_too_large``),
    ``max_corpus_bytes`` for the file (``corpus_too_large``); see ``io.corpus_file.read_corpus``.
    """
    return read_corpus(corpus_path, max_source_bytes, max_corpus_bytes)


@config.when(document_source="folder")
def folder_documents(
    corpus_dir: str,
    corpus_glob: str | list = DEFAULT_GLOB,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    corpus_exclude: str | list = (),
    cache_dir: str | None = None,
    html_main_content: bool = False,
) -> pd.DataFrame:
    """Every page of the folder matching ``corpus_glob`` and no ``corpus_exclude`` pattern, extracted.

    Columns of ``documents.read_document_folder``: ``doc_id, path, extractor, text`` (str), ``source_map``
    (object); files with no extractor are listed in ``attrs["skipped"]``. With ``cache_dir`` (the index
    cache's folder) each page's extracted text is kept there too (``io.extraction_cache``).
    ``html_main_content``:
    HTML pages without their navigation chrome (docs/documents.md, "Extractors").
    """
    return read_document_folder(corpus_dir, corpus_glob, max_source_bytes, corpus_exclude, cache_dir, html_main_content)


@config.when(document_source="folder")
def source_maps__folder(folder_documents: pd.DataFrame) -> dict:
    """``{doc_id: VisibleText | PdfPages}``: rendered pages' spans go back into the file, PDF spans get pages."""
    return frame_source_maps(folder_documents)


@config.when(document_source="folder")
def source_documents__folder(folder_documents: pd.DataFrame) -> dict:
    """Extracted text of every document of a folder, keyed by its relative path (``doc_id`` order)."""
    return dict(zip(folder_documents["doc_id"], folder_documents["text"]))


def citation_rows(citations_path: str) -> pd.DataFrame:
    """The whole citation table (``tables.citation_table_frame``), one row per citation."""
    return citation_table_frame(read_citation_rows(citations_path))
