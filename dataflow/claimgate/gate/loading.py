"""Loading nodes (Hamilton): manifest, verified sources, claim schema, case table.

Only this module's nodes touch files; the helpers they call live in
``sources.py``, ``schema.py`` and ``tables.py``. Decision nodes in ``gate.py`` see
only the frames and objects returned here, so they can be tested on frames built in
a test.
"""

from __future__ import annotations

import pandas as pd

from claimgate.gate.schema import ClaimSchema, load_schema
from claimgate.io.sources import (
    DEFAULT_MAX_CORPUS_BYTES,
    DEFAULT_MAX_SOURCE_BYTES,
    read_manifest,
    read_source_texts,
    sources_frame,
)
from claimgate.io.tables import case_table_frame, read_case_rows


def load_manifest(manifest_path: str) -> dict:
    """The manifest, shape-checked: ``{"root": Path, "sources": [five-field entries]}``."""
    return read_manifest(manifest_path)


def verified_sources(
    load_manifest: dict,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    max_corpus_bytes: int = DEFAULT_MAX_CORPUS_BYTES,
) -> pd.DataFrame:
    """Every pinned source read and verified, one row per source in manifest order.

    Columns (all dtype ``str``): ``source_id, version, path, url, sha256,
    document_revision, text``. Limits in bytes: ``max_source_bytes`` per file,
    ``max_corpus_bytes`` for all files together. Raises ``IngestionError`` for the
    first file that fails (``sources.read_source_texts``, including
    ``duplicate_source_path``): the whole run is refused.
    """
    entries = load_manifest["sources"]
    texts = read_source_texts(load_manifest["root"], entries, max_source_bytes, max_corpus_bytes)
    return sources_frame([{**entry, "text": text} for entry, text in zip(entries, texts)])


def claim_schema(schema_path: str = "") -> ClaimSchema:
    """The validated claim schema (``""`` means Quill's ``fixtures/quill_schema.toml``)."""
    return load_schema(schema_path or None)


def case_rows(cases_path: str) -> pd.DataFrame:
    """The whole case table (``tables.case_table_frame``: position, case_id, request, case_problem)."""
    return case_table_frame(read_case_rows(cases_path))
