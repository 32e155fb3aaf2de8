"""What the index build learns of a chunk of documents before any token gets its corpus-wide id.

Why this module exists: everything here depends on the chunk's texts alone (its tokens as strings, never
their ids in the corpus vocabulary), so it can be computed anywhere: in the build's own process, or in the
forked helper that normalizes a big corpus file's chunks ahead (:mod:`claimgate.audit.index.ahead`). The
build (:mod:`claimgate.audit.index.build`) then only numbers the tokens, in chunk order, and assembles.

What it refuses to do: hold a rule of its own. Negations are :func:`claimgate.audit.text.negation.negation_positions`'
rules for the scripts the array rules cover (found by token string, the same on any numbering), the
documents the array rules leave out go through :func:`claimgate.audit.text.reference.normalize_text_reference`,
and marks come from :mod:`claimgate.audit.text.marks`; the index equals the reference build's document for
document (tests/audit/index/test_index_build.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from claimgate.audit.index.types import elision_stops
from claimgate.audit.text.marks import bracket_texts, ellipsis_starts, fold_ellipses, has_footnote_marker
from claimgate.audit.text.negation import (
    _APOSTROPHES,
    NEGATION_TOKENS,
    is_none_literal,
    needs_token_scan,
    negation_positions,
    unchecked_script_positions,
)
from claimgate.audit.text.normalize import NormalizedChunk
from claimgate.audit.text.reference import NormalizedText, normalize_text_reference

#: The token strings the negation rules look up by identity.
_LOOKED_UP = (*sorted(NEGATION_TOKENS), "none", "t", "n")


@dataclass
class ChunkFacts:
    """A normalized chunk and what follows from its texts alone; document numbers are local (0 = the first).

    ``chunk.tokens`` is dictionary-encoded (``pyarrow.DictionaryArray``, first-seen order). ``negating``:
    chunk-wide token positions that negate by the array rules (int64, ascending). ``with_ellipsis``: documents
    holding an ellipsis of their own. ``brackets``: each bracketed document's brackets as written.
    ``references``: each document the array rules left out, as ``(its reference normalization, negations,
    elision stops or None when they are the negations)``. ``scanned``: each other document with a negator
    prefix or an unlisted script, as ``(negations, elision stops or None)`` from its reference tokens.
    ``footnoted``: documents holding a footnote marker fused to a word.
    """

    chunk: NormalizedChunk
    negating: np.ndarray
    with_ellipsis: set[int]
    brackets: dict[int, frozenset[str]]
    references: dict[int, tuple[NormalizedText, array, array | None]]
    scanned: dict[int, tuple[array, array | None]]
    footnoted: set[int]


class FactsAhead(Protocol):
    """Where the build may find a chunk's facts worked out elsewhere (``audit.index.ahead.ChunksAhead``)."""

    def facts(self, number: int, numbers: range, originals: list[str]) -> ChunkFacts | None:
        """Chunk ``number``'s facts (documents ``numbers``, texts ``originals``), or ``None``: not there."""

    def stop(self) -> None:
        """No more chunks are wanted."""


def _stops_or_none(negations: array, stops: array) -> array | None:
    return None if stops is negations else stops


def chunk_facts(chunk: NormalizedChunk) -> ChunkFacts:
    """The :class:`ChunkFacts` of ``chunk`` (as :func:`claimgate.audit.text.normalize.normalized_chunk` gives it)."""
    originals = chunk.originals
    if not isinstance(chunk.tokens, pa.DictionaryArray):
        chunk.tokens = chunk.tokens.dictionary_encode()
    dictionary, local_ids = chunk.tokens.dictionary, chunk.tokens.indices.to_numpy(zero_copy_only=False)
    found = pc.index_in(pa.array(_LOOKED_UP, dictionary.type), value_set=dictionary).to_pylist()
    ids_of = {token: i for token, i in zip(_LOOKED_UP, found, strict=True) if i is not None}
    string_of = lambda i: dictionary[i].as_py()  # noqa: E731
    spans = (chunk.starts, chunk.ends)
    negating = negating_positions(local_ids, spans, chunk.local_doc, chunk.first, originals, ids_of, string_of)
    with_ellipsis, brackets = chunk_marks(originals)
    references = {}
    for local in sorted(chunk.reference):
        normalized = normalize_text_reference(originals[local])
        negations = negation_positions(normalized)
        stops = elision_stops(negations, unchecked_script_positions(normalized))
        references[local] = (normalized, negations, _stops_or_none(negations, stops))
    scanned = {}
    for local, original in enumerate(originals):
        if local not in chunk.reference and needs_token_scan(original):
            normalized = normalize_text_reference(original)  # its tokens equal the array rules' (same rules)
            negations = negation_positions(normalized)
            stops = elision_stops(negations, unchecked_script_positions(normalized))
            scanned[local] = (negations, _stops_or_none(negations, stops))
    footnoted = {local for local, t in enumerate(originals) if local not in chunk.reference and has_footnote_marker(t)}
    return ChunkFacts(chunk, negating, with_ellipsis, brackets, references, scanned, footnoted)


def chunk_marks(originals: list[str]) -> tuple[set[int], dict[int, frozenset[str]]]:
    """``(documents with an ellipsis of their own, brackets by document)`` of a chunk, by local number.

    One search per alternative of the ellipsis pattern over the chunk's folded texts joined
    by NUL (no match holds a NUL, so none reaches across documents, even where a text holds
    a NUL itself); a match's document comes from the texts' lengths.
    """
    brackets = {local: bracket_texts(t) for local, t in enumerate(originals) if "[" in t}
    folded = [fold_ellipses(t) for t in originals]
    starts = ellipsis_starts("\x00".join(folded))  # each alternative scanned from its first character (marks.py)
    if not starts:
        return set(), brackets
    lengths = np.fromiter(map(len, folded), dtype=np.int64, count=len(folded))
    bases = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])
    return set((np.searchsorted(bases, starts, "right") - 1).tolist()), brackets


def negating_positions(
    ids: np.ndarray,
    starts_ends: tuple[np.ndarray, np.ndarray],
    doc_of_token: np.ndarray,
    first_token: np.ndarray,
    originals: list[str],
    ids_of: Mapping[str, int],
    string_of: Callable[[int], str],
) -> np.ndarray:
    """Token positions (chunk-wide, int64 ascending) that negate, by :func:`negation.negation_positions`'s rules.

    ``ids``: the chunk's token ids in any numbering; ``ids_of`` gives the id of a token string (absent: no
    such token), ``string_of`` the string of an id. Only the rules for scripts the array rules cover: listed
    words, the ``t`` of ``n't`` and the ``n`` of ``n'`` (no-space and Korean negators send a text to the
    reference path or the token scan).
    """
    listed = np.fromiter((ids_of[t] for t in NEGATION_TOKENS if t in ids_of), dtype=np.int64)
    found = np.isin(ids, listed)
    none = ids_of.get("none")
    if none is not None:  # the code literal 'None' is no negation (docs/audit-rules.md, "Negation")
        for p in np.flatnonzero(ids == none).tolist():
            k = doc_of_token[p]
            found[p] = not is_none_literal(originals[k], int(starts_ends[0][p]), int(starts_ends[1][p]))
    for letter in ("t", "n"):
        tid = ids_of.get(letter)
        if tid is None:
            continue
        for p in np.flatnonzero(ids == tid).tolist():
            k = doc_of_token[p]
            if letter == "t":
                hit = p > first_token[k] and string_of(int(ids[p - 1])).endswith("n")
            else:
                end, original = int(starts_ends[1][p]), originals[k]
                hit = end < len(original) and original[end] in _APOSTROPHES
            found[p] |= hit
    return np.flatnonzero(found)
