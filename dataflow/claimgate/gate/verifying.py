"""Checking every pin of a manifest without running a case (``claimgate verify``, docs/gate-rules.md "Pinning").

The checks are the gate's own, called from ``io.sources`` (``manifest_document``,
``manifest_entry_problem``, ``SourceReader``): one home for each rule, so whatever the gate would
refuse a manifest for, ``verify_manifest`` reports. Writing a manifest is ``gate.pinning``.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from claimgate.errors import IngestionError
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES, SourceReader, manifest_document, manifest_entry_problem


@dataclass
class VerifyReport:
    """What ``verify_manifest`` found: how many entries it ``checked`` and every ``problems`` refusal."""

    checked: int
    problems: list[IngestionError]


def verify_manifest(manifest_path: str | Path, max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES) -> VerifyReport:
    """Check every pin of a manifest without running a case; collect every problem, in manifest order.

    Each entry gets the gate's checks, the same functions the gate's reader calls
    (``manifest_entry_problem``, then ``io.sources.SourceReader.read``: missing file, outside
    the folder, ``duplicate_source_path`` for the file of an earlier entry, too large, hash,
    UTF-8); an entry's first problem, in the gate's order, is reported and the next entry is
    checked. ``corpus_too_large`` is the gate's run limit, not a pin's, and is not checked
    here. A manifest that cannot be read at all is one problem (``invalid_manifest``). Never
    raises ``IngestionError``.
    """
    try:
        document = manifest_document(manifest_path)
    except IngestionError as exc:
        return VerifyReport(checked=0, problems=[exc])
    reader = SourceReader(Path(manifest_path).resolve().parent, max_source_bytes, max_corpus_bytes=None)
    problems: list[IngestionError] = []
    seen: set[str] = set()
    for position, entry in enumerate(document["sources"]):
        problem = manifest_entry_problem(entry, position, seen)
        if problem is None:
            try:
                reader.read(entry)
            except IngestionError as exc:
                problem = exc
        if problem is not None:
            problems.append(problem)
    return VerifyReport(checked=len(document["sources"]), problems=problems)
