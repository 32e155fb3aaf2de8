"""Loading nodes of the citation audit (Hamilton): documents and the citation table.

Documents come from a pinned manifest (``document_source="manifest"``: the same
``load_manifest → verified_sources`` nodes as the gate, hashes checked) or from a
plain corpus file ``{doc_id: text}`` (``document_source="corpus"``).
"""

from __future__ import annotations

import pandas as pd
from hamilton.function_modifiers import config

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


def citation_rows(citations_path: str) -> pd.DataFrame:
    """The whole citation table (``tables.citation_table_frame``), one row per citation."""
    return citation_table_frame(read_citation_rows(citations_path))
