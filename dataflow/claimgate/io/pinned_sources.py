"""Loading nodes (Hamilton) for pinned sources, shared by the gate and the audit drivers.

``load_manifest → verified_sources``: the manifest is read and shape-checked, then
every listed file is read and checked against its SHA-256 before anything uses it.
The file handling lives in ``claimgate.io.sources``; these two nodes are the only
place either product's dataflow touches pinned files. The rules: docs/gate-rules.md,
"Manifest and sources".
"""

from __future__ import annotations

import pandas as pd

from claimgate.io.sources import (
    DEFAULT_MAX_CORPUS_BYTES,
    DEFAULT_MAX_SOURCE_BYTES,
    read_manifest,
    read_source_texts,
    sources_frame,
)


def load_manifest(manifest_path: str) -> dict:
    """The manifest, shape-checked: ``{"root": Path, "sources": [five-field entries]}``.

    Raises ``IngestionError`` (``invalid_manifest``, ``duplicate_source_id``,
    ``invalid_sha256``): the whole run is refused.
    """
    return read_manifest(manifest_path)


def verified_sources(
    load_manifest: dict,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    max_corpus_bytes: int = DEFAULT_MAX_CORPUS_BYTES,
) -> pd.DataFrame:
    """Every pinned source read and verified, one row per source in manifest order.

    Columns (all dtype ``str``): ``source_id, version, path, url, sha256,
    document_revision, text`` (``text`` decoded strict UTF-8, one leading byte-order
    mark dropped). Limits in bytes: ``max_source_bytes`` per file, ``max_corpus_bytes``
    for all files together. Raises ``IngestionError`` for the first file that fails
    (``sources.read_source_texts``: ``path_outside_root``, ``missing_source``,
    ``duplicate_source_path``, ``source_too_large``, ``corpus_too_large``,
    ``hash_mismatch``, ``invalid_encoding``): the whole run is refused.
    """
    entries = load_manifest["sources"]
    texts = read_source_texts(load_manifest["root"], entries, max_source_bytes, max_corpus_bytes)
    return sources_frame([{**entry, "text": text} for entry, text in zip(entries, texts)])
