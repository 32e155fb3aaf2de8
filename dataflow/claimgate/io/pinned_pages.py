"""A pinned manifest's sources as an audit corpus: each page read as a reader sees it, like a folder's.

Why this module exists: a pinned Markdown or reStructuredText page was audited as written, so an honest
quote of what the reader sees (link text without its target, a role as Sphinx shows it, no directive
comment between the words) was refused on a manifest and found on a folder. Here each pinned file goes
through the folder's own extractors (``io.documents.document_extract``, picked by
``io.documents.extractor_of``; a file whose extension has none is plain text), with a map back to the
file as written, so spans and 1-based lines still slice the pinned file. Rules: docs/documents.md,
"Pinned pages".

What it refuses to do: trust bytes before their pin. Every check of ``io.sources.SourceReader`` runs
first, in manifest order, and the SHA-256 is taken of the bytes as written, before any extraction; a
page that is not UTF-8 is ``invalid_encoding`` as for the gate (a PDF is read from its bytes). The gate
itself never reads these frames: it reads the directives of the file as written (``verified_sources``).
"""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from claimgate.io.documents import DOCUMENT_COLUMNS, document_extract, extractor_of
from claimgate.io.sources import DEFAULT_MAX_CORPUS_BYTES, DEFAULT_MAX_SOURCE_BYTES, SourceReader, source_text

#: The extractor of a pinned file whose extension has none in ``io.documents.EXTRACTORS``.
PINNED_DEFAULT_EXTRACTOR = "text"


def read_pinned_documents(
    manifest: dict,
    max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
    max_corpus_bytes: int | None = DEFAULT_MAX_CORPUS_BYTES,
    cache_dir: str | Path | None = None,
    html_main_content: bool = False,
) -> pd.DataFrame:
    """Every pinned source of ``manifest`` (``io.sources.read_manifest``) extracted, one row per source.

    Rows in manifest order; the columns of ``io.documents.DOCUMENT_COLUMNS``: ``doc_id`` (the
    ``source_id``), ``path`` (the manifest's path, relative to its folder), ``extractor`` (``markdown``,
    ``rst``, ``html``, ``pdf``, or ``text`` for any other extension), ``text`` (what the audit matches
    against), all dtype ``str``; ``source_map`` (object: the ``VisibleText`` of a Markdown or
    reStructuredText page, whose spans are moved back into the file as written, in characters of the
    decoded file and its 1-based lines; a PDF's ``PdfPages``; else ``None``). ``cache_dir`` and
    ``html_main_content`` as for a folder (``io.documents.document_extract``).

    Raises ``IngestionError`` for the first source refused, in manifest order: the checks of
    ``io.sources.SourceReader`` on the bytes as written (``missing_source``, ``path_outside_root``,
    ``duplicate_source_path``, ``source_too_large``, ``corpus_too_large``, ``hash_mismatch``), then
    ``invalid_encoding`` (a page other than a PDF that is not UTF-8), then the extractor's own
    (``unreadable_document``, ``unsupported_document`` for a PDF without the ``pdf`` extra,
    ``document_too_large``, ``document_too_deep``).
    """
    reader = SourceReader(manifest["root"], max_source_bytes, max_corpus_bytes)
    rows = []
    for entry in manifest["sources"]:
        raw = reader.read_bytes(entry)  # hash checked on the bytes as written, before any extraction
        extractor = extractor_of(entry["path"], PINNED_DEFAULT_EXTRACTOR)
        if extractor != "pdf":
            source_text(entry, raw)  # invalid_encoding, as the gate refuses the same file
        text, source_map = document_extract(raw, extractor, entry["source_id"], cache_dir, html_main_content)
        rows.append((entry["source_id"], entry["path"], extractor, text, source_map))
    frame = pd.DataFrame(rows, columns=list(DOCUMENT_COLUMNS))
    return frame.astype({c: "str" for c in DOCUMENT_COLUMNS if c != "source_map"})
