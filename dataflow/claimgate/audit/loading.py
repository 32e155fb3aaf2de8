"""Loading nodes of the citation audit (Hamilton): documents and the citation table.

Documents come from a pinned manifest (``document_source="manifest"``: the same
``load_manifest → verified_sources`` nodes as the gate, hashes checked) or from a
plain corpus file ``{doc_id: text}`` (``document_source="corpus"``) or a folder of pages
(``document_source="folder"``: ``io.documents``, one document per file, see docs/documents.md).
"""

from __future__ import annotations

import pandas as pd
from hamilton.function_modifiers import config

from claimgate.io.documents import DEFAULT_GLOB, read_document_folder
from claimgate.io.sources import DEFAULT_MAX_CORPUS_BYTES, DEFAULT_MAX_SOURCE_BYTES, read_corpus
from claimgate.io.tables import citation_table_frame, read_citation_rows


@config.when(document_source="manifest")
def source_documents__manifest(verified_sources: pd.DataFrame) -> dict:
    """Original text of every pinned source, keyed by source id (manifest order)."""
    return dict(zip(verified_sources["source_id"], verified_sources["text"]))


@config.when(document_source="corpus")
def source_documents__corpus(
    corpus_path: str,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    max_corpus_bytes: int = DEFAULT_MAX_CORPUS_BYTES,
) -> dict:
    """Original text of every document of a corpus file ``{doc_id: text}`` (file order).

    Limits in bytes: ``max_source_bytes`` per document (``document_too_large``),
    ``max_corpus_bytes`` for the file (``corpus_too_large``); see ``sources.read_corpus``.
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
def source_maps(folder_documents: pd.DataFrame) -> dict:
    """``{doc_id: VisibleText | PdfPages}``: rendered pages' spans go back into the file, PDF spans get pages."""
    return {d: m for d, m in zip(folder_documents["doc_id"], folder_documents["source_map"]) if m is not None}


@config.when(document_source="folder")
def source_documents__folder(folder_documents: pd.DataFrame) -> dict:
    """Extracted text of every document of a folder, keyed by its relative path (``doc_id`` order)."""
    return dict(zip(folder_documents["doc_id"], folder_documents["text"]))


def citation_rows(citations_path: str) -> pd.DataFrame:
    """The whole citation table (``tables.citation_table_frame``), one row per citation."""
    return citation_table_frame(read_citation_rows(citations_path))
