"""The index of an edited corpus from the parts of a previous index: only new texts are normalized.

Why this module exists: a corpus of documentation changes a few pages at a time, and
the index of 20,000 documents took seconds to build while a document's part of it (its
tokens, their offsets, its negations, elision stops, joined words, ellipsis and
brackets) depends on nothing but its own text and the normalizer's rules. Here every
document whose text a previous index already holds (matched by the SHA-256 of the
text's bytes, whatever its id: an unchanged, renamed or duplicated page) takes its part
from there, the other documents are built by the ordinary build (the same rules, the
same code), and the parts are put together (:func:`merged_index`): the token arrays of
runs of consecutive unchanged documents stay views of the previous arrays (a cache
file's base is read-only and never copied), token ids are mapped into one vocabulary,
the postings of the documents kept in place carry over and those of the others are
built (:func:`claimgate.audit.index.build._postings`) and inserted by binary search.

What it refuses to do: differ from a cold build of the same documents. The result
equals :func:`claimgate.audit.index.build.build_corpus_index` of ``documents``
document for document, string for string and posting for posting; only the numbering
of token ids may differ, as between the array and reference builds
(tests/audit/index/test_index_reuse.py). Its vocabulary holds exactly the strings its
documents use (a string only a removed document held is dropped), as a cold build's.
It trusts ``base`` as given: the cache checks a file before it becomes a base.
"""

from __future__ import annotations

import hashlib
from bisect import bisect_left
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from itertools import repeat

import numpy as np

from claimgate.audit.index.build import _ExtraKeys, _postings
from claimgate.audit.index.document_table import DocumentTable, TokenSegment
from claimgate.audit.index.payload import Rows, release_pages
from claimgate.audit.index.postings import Postings
from claimgate.audit.index.types import CorpusIndex


def document_digest(text: str) -> bytes:
    """The 32-byte SHA-256 of a document's text (UTF-8, lone surrogates kept): what a reused part is keyed by."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def reuse_plan(
    base_doc_ids: Sequence[str], base_digests: Sequence[bytes], documents: Mapping[str, str], digests
) -> tuple[list[str], list[int], list[str]]:
    """``(doc_ids, sources, new_ids)``: where each document's part comes from, and the documents to build.

    ``doc_ids``: sorted ids of ``documents``; ``sources[k]``: the base document number
    holding ``doc_ids[k]``'s text (the same id first, else any id with that text), or
    ``-1 - j`` for the ``j``-th of ``new_ids`` (ids, in order, whose text no base
    document holds). ``digests``: doc_id -> :func:`document_digest` of its text.
    """
    doc_ids = sorted(documents)
    base_numbers = dict(zip(base_doc_ids, range(len(base_doc_ids))))
    by_digest: dict[bytes, int] = {}
    for k, digest in enumerate(base_digests):
        by_digest.setdefault(digest, k)
    sources, new_ids = [], []
    for doc_id in doc_ids:
        b = base_numbers.get(doc_id)
        digest = digests[doc_id]
        if b is None or base_digests[b] != digest:
            b = by_digest.get(digest)
        if b is None:
            b = -1 - len(new_ids)
            new_ids.append(doc_id)
        sources.append(b)
    return doc_ids, sources, new_ids


def reused_index(
    base: CorpusIndex,
    base_digests: Sequence[bytes],
    documents: Mapping[str, str],
    digests: Mapping[str, bytes],
    build: Callable[[Mapping[str, str]], CorpusIndex],
) -> CorpusIndex:
    """The index of ``documents`` (doc_id -> text), reusing every part ``base`` holds for one of their texts.

    ``base_digests[k]``: :func:`document_digest` of ``base``'s document ``k``; ``digests``: the
    same per doc_id of ``documents``. The documents whose digest ``base`` does not hold are
    indexed by ``build`` (``build_corpus_index``), in one call; the texts of ``documents``
    become the index's originals. Same contract as ``build_corpus_index`` (an empty
    mapping gives an empty index; ``build`` raises ``TypeError`` for a non-str text).
    """
    doc_ids, sources, new_ids = reuse_plan(base.doc_ids, base_digests, documents, digests)
    if len(new_ids) == len(doc_ids):  # nothing to reuse (another corpus): the build alone
        return build(documents)
    fresh = build({d: documents[d] for d in new_ids}) if new_ids else EMPTY_INDEX
    return merged_index(base, fresh, doc_ids, [documents[d] for d in doc_ids], sources)


#: The index of no document (the part a corpus with nothing new adds).
EMPTY_INDEX = CorpusIndex([], DocumentTable([], [], []), {}, [], Postings.empty(), Postings.empty())


def _table(index: CorpusIndex) -> DocumentTable:
    return DocumentTable.of(index.docs)


def merged_index(
    base: CorpusIndex, fresh: CorpusIndex, doc_ids: list[str], originals: list[str], sources: Sequence[int]
) -> CorpusIndex:
    """The index of documents ``doc_ids`` (texts ``originals``) from the parts of ``base`` and ``fresh``.

    ``sources[k]``: ``base``'s document number holding document ``k``'s part, or ``-1 - j``
    for ``fresh``'s document ``j`` (see :func:`reuse_plan`). The tokens of runs of
    consecutive base documents stay views of ``base``'s arrays (no copy unless a string
    drops out of the vocabulary); a base document kept under its own id keeps its
    postings, the others' are built and spliced in. Equal to a cold build (see the module).
    """
    table, fresh_table = _table(base), _table(fresh)
    n_base = len(table)
    strings, vocab, n_known = list(base.strings), dict(base.vocab), len(base.strings)
    fresh_ids = np.fromiter((vocab.setdefault(s, len(vocab)) for s in fresh.strings), np.int64, len(fresh.strings))
    strings.extend(s for s in fresh.strings if vocab[s] >= n_known)  # setdefault numbered them in this order
    base_ids = table.doc_ids
    doc_map = [-1] * n_base  # base document -> its number here when kept under its own id, else -1
    rebuilt = []
    for k, (doc_id, b) in enumerate(zip(doc_ids, sources)):
        if b >= 0 and base_ids[b] == doc_id and doc_map[b] < 0:
            doc_map[b] = k
        else:
            rebuilt.append(k)
    segments = _segments(table, fresh_table, fresh_ids, np.asarray(sources, np.int64).reshape(-1))
    parts = _per_document_parts(table, fresh_table, fresh_ids, sources, doc_map, rebuilt)
    merged = DocumentTable(doc_ids, originals, segments, **parts)
    others = np.asarray(rebuilt, np.int64)
    postings = _spliced_postings(base, merged, np.asarray(doc_map, np.int64), others, len(strings))
    used = np.zeros(len(strings), bool)
    used[postings[0].keys] = True  # every token and joined word is a token key (a cold build has no other string)
    if not used.all():  # strings only replaced or removed documents held: dropped, as a cold build never has them
        renumbered = np.cumsum(used) - 1
        merged, postings = _renumbered(merged, postings, renumbered)
        strings = [s for s, keep in zip(strings, used.tolist()) if keep]
        vocab = dict(zip(strings, range(len(strings))))
    return CorpusIndex(doc_ids, merged, vocab, strings, *postings)


def _segments(table: DocumentTable, fresh: DocumentTable, fresh_ids: np.ndarray, sources: np.ndarray) -> list:
    """Token segments of the merged documents: one per run of consecutive sources within one segment (views)."""
    n_base, n = len(table), len(sources)
    if not n:
        return []
    unified = np.where(sources < 0, n_base - 1 - sources, sources)  # fresh document j is n_base + j
    every = table.segments + fresh.segments
    starts = np.array([s.first_doc for s in table.segments] + [n_base + s.first_doc for s in fresh.segments])
    seg_of = np.searchsorted(starts, unified, "right") - 1
    breaks = np.flatnonzero((np.diff(unified) != 1) | (np.diff(seg_of) != 0)) + 1
    bounds = [0, *breaks.tolist(), n]
    segments = []
    for lo, hi in zip(bounds, bounds[1:]):
        number = int(seg_of[lo])
        segment = every[number]
        local = int(unified[lo] - starts[number])
        first = segment.first[local : local + hi - lo + 1]
        t0, t1 = int(first[0]), int(first[-1])
        ids = segment.token_ids[t0:t1]
        if number >= len(table.segments):  # a fresh document: its ids into the merged vocabulary
            ids = fresh_ids[ids].astype(np.int32)
        segments.append(TokenSegment(lo, first - t0, ids, segment.starts[t0:t1], segment.ends[t0:t1]))
    return segments


def _renumbered(merged: DocumentTable, postings: tuple, renumbered: np.ndarray) -> tuple[DocumentTable, tuple]:
    """``merged`` and its postings with token ids mapped by ``renumbered`` (ascending, so every order stays)."""
    segments = [replace(s, token_ids=renumbered[s.token_ids].astype(np.int32)) for s in merged.segments]
    joined = {
        k: {p: tuple((int(renumbered[w]), end) for w, end in r) for p, r in by_position.items()}
        for k, by_position in merged.joined_words.items()
    }
    tokens, pairs = postings
    pair_keys = (renumbered[pairs.keys >> 32] << 32) | renumbered[pairs.keys & 0xFFFFFFFF]
    return replace(merged, segments=segments, joined_words=joined), (
        replace(tokens, keys=renumbered[tokens.keys]),
        replace(pairs, keys=pair_keys),
    )


def _postings_of(table: DocumentTable, numbers: np.ndarray, n_ids: int) -> tuple[Postings, Postings]:
    """The build's postings of documents ``numbers`` of ``table``, numbered ``0..len(numbers)-1``."""
    if not len(numbers):
        return Postings.empty(), Postings.empty()
    rows = [np.frombuffer(table[k].token_bytes, np.int32) for k in numbers.tolist()]
    first = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(r) for r in rows], out=first[1:])
    tokens = np.concatenate(rows)
    extra = _ExtraKeys()
    for j, k in enumerate(numbers.tolist()):
        if k in table.joined_words:
            extra.add(j, rows[j].tolist(), table.joined_words[k])
    return _postings([TokenSegment(0, first, tokens, tokens, tokens)], extra, n_ids)  # offsets unused here


def _spliced_postings(
    base: CorpusIndex, merged: DocumentTable, doc_map: np.ndarray, others: np.ndarray, n_ids: int
) -> tuple[Postings, Postings]:
    """``(token postings, pair postings)`` of ``merged``: ``base``'s, for the documents kept in place, spliced
    with those the build gives the ``others`` (merged numbers of the documents not kept in place).

    ``doc_map``: base document -> merged number, -1 when not kept in place; token ids are
    ``base``'s (the merged vocabulary extends it). A kept document's keys are its own
    (tokens, adjacent pairs, joined words), so they carry over; ``doc_map`` keeps their
    order, so the kept postings stay sorted in compressed-row form and the rebuilt ones
    are inserted at their places (a binary search each): no sort of the corpus's postings.
    """
    fresh = _postings_of(merged, others, n_ids)
    identity = bool(len(doc_map)) and len(doc_map) == len(merged) and _keeps_numbers(doc_map)
    out, doc_map = [], doc_map.astype(np.int32)  # int32 gathers: half the memory of int64 over the postings
    for old, new in zip((base.token_postings, base.pair_postings), fresh):
        if identity and len(others):  # an edit: the others keep their numbers, their old postings go
            new_keys, new_docs = new.expanded()
            out.append(_edited(old, others.astype(np.int32), new_keys, others[new_docs]))
            release_pages(old.keys, old.offsets)
            continue
        if identity:  # every document keeps its number and none is rebuilt: the postings as they are
            mapped, kept = old.docs, None
        else:
            mapped = doc_map[old.docs]
            kept = mapped >= 0
        new_keys, new_docs = new.expanded()
        out.append(_kept_and_inserted(old, kept, mapped, new_keys, others[new_docs]))
        del kept, mapped  # before the next postings' temporaries
        release_pages(old.keys, old.offsets, old.docs)  # a mapped base's postings are read for the last time
    return out[0], out[1]


def _kept_and_inserted(old: Postings, kept, docs: np.ndarray, new_keys: np.ndarray, new_docs: np.ndarray) -> Postings:
    """``_inserted`` of the postings of ``old`` that ``kept`` marks (a bool per posting; ``None``: all), each
    numbered as ``docs`` says (aligned with ``old.docs``), and the pairs ``(new_keys, new_docs)``."""
    if kept is None:
        counts = np.diff(old.offsets).astype(np.int64)
    else:
        counts = np.add.reduceat(kept, old.offsets[:-1].astype(np.int64), dtype=np.int64) if len(old.keys) else old.keys
        docs = docs[kept]
    held = counts > 0
    return _inserted(old.keys[held], counts[held], docs, new_keys, new_docs)


#: Elements of a base's postings read (then released: ``payload.release_pages``) at a time by ``_edited``.
_RUN_BLOCK = 1 << 20
#: Postings removed plus added past which ``_edited`` splices by whole-array steps (``_inserted``) instead of
#: run by run: its loop costs a few microseconds per place that changes, so a wide edit (the same line
#: changed on every page) would take seconds where the array steps take a fraction of one, at the cost of
#: a mask and a copy of the postings beside the result.
EDIT_CUTS = 20_000


def _edited(old: Postings, dropped: np.ndarray, new_keys: np.ndarray, new_docs: np.ndarray) -> Postings:
    """``old`` without the postings of documents ``dropped`` (int32, ascending) and with the pairs
    ``(new_keys[j], new_docs[j])`` added: the splice of an edit, where every other document keeps its number.

    ``_inserted`` of the kept postings, built without an array the size of the postings beside the result
    (up to :data:`EDIT_CUTS` places that change; past it, ``_inserted`` itself):
    the positions to drop are found a block at a time, and the result's documents are copied from runs of
    ``old.docs`` between the places that change (a few per edited document), each block's pages released
    once copied (a mapped base's pages leave memory as the copy fills; the values stay valid).
    """
    docs, offsets, keys = old.docs, old.offsets, old.keys
    removed = []
    for lo in range(0, len(docs), _RUN_BLOCK):
        block = docs[lo : lo + _RUN_BLOCK]
        removed.append(np.flatnonzero(np.isin(block, dropped)) + lo)
        release_pages(block)
    removed = np.concatenate(removed) if removed else np.empty(0, np.int64)
    if len(removed) + len(new_docs) > EDIT_CUTS:  # a wide edit (a footer on every page): whole-array steps
        kept = np.ones(len(docs), bool)
        kept[removed] = False
        return _kept_and_inserted(old, kept, docs, new_keys, new_docs)
    order = np.lexsort((new_docs, new_keys))
    new_keys, new_docs = new_keys[order], new_docs[order].astype(np.int32)
    at_key = np.searchsorted(keys, new_keys)
    present = at_key < len(keys)
    present[present] = keys[at_key[present]] == new_keys[present]
    # where each new pair goes, as a position of old.docs (before it): inside its key's run at the place a
    # binary search finds, or at the boundary where a key old does not hold sorts in
    lo = offsets[np.minimum(at_key, len(keys))].astype(np.int64)
    hi = np.where(present, offsets[np.minimum(at_key + 1, len(keys))], lo)
    view = memoryview(np.ascontiguousarray(docs))
    places = np.fromiter(
        map(bisect_left, repeat(view), new_docs.tolist(), lo.tolist(), hi.tolist()), np.int64, len(new_docs)
    )
    by_place = np.argsort(places, kind="stable")  # (key, document) order kept among pairs at one place
    places, placed = places[by_place], new_docs[by_place]
    out = np.empty(len(docs) - len(removed) + len(new_docs), np.int32)
    written = start = 0
    cuts = np.union1d(removed, places).tolist()
    inserted = np.searchsorted(places, cuts, "left").tolist(), np.searchsorted(places, cuts, "right").tolist()
    gone = set(removed.tolist())
    for cut, first, last in zip(cuts, *inserted):
        written = _copied(docs, start, cut, out, written)
        out[written : written + last - first] = placed[first:last]
        written += last - first
        start = cut + 1 if cut in gone else cut
    written = _copied(docs, start, len(docs), out, written)
    # the keys: counts after the removals and additions; a key left with none is dropped, a new one added
    counts = np.diff(offsets).astype(np.int64)
    np.subtract.at(counts, np.searchsorted(offsets, removed, "right") - 1, 1)
    np.add.at(counts, at_key[present], 1)
    added, added_counts = np.unique(new_keys[~present], return_counts=True)
    held = counts > 0
    kept_keys, kept_counts = (keys, counts) if held.all() else (keys[held], counts[held])
    where = np.searchsorted(kept_keys, added)
    all_keys = np.insert(kept_keys, where, added) if len(added) else kept_keys
    all_counts = np.insert(kept_counts, where, added_counts) if len(added) else kept_counts
    final = np.zeros(len(all_keys) + 1, np.int64 if len(out) >= 1 << 31 else np.int32)
    np.cumsum(all_counts, out=final[1:])
    return Postings(np.ascontiguousarray(all_keys, np.int64), final, out)


def _copied(docs: np.ndarray, start: int, stop: int, out: np.ndarray, written: int) -> int:
    """Copy ``docs[start:stop]`` into ``out`` from ``written`` a block at a time, releasing each block read."""
    for lo in range(start, stop, _RUN_BLOCK):
        block = docs[lo : min(stop, lo + _RUN_BLOCK)]
        out[written : written + len(block)] = block
        written += len(block)
        release_pages(block)
    return written


def _keeps_numbers(doc_map: np.ndarray) -> bool:
    kept = doc_map >= 0
    return bool(np.array_equal(doc_map[kept], np.flatnonzero(kept)))


def _inserted(keys, counts, docs, new_keys, new_docs) -> Postings:
    """Postings of ``keys`` (ascending; ``counts[i]`` documents each, ``docs`` end to end, ascending per key)
    with the pairs ``(new_keys[j], new_docs[j])`` added (none of them already there)."""
    order = np.lexsort((new_docs, new_keys))
    new_keys, new_docs = new_keys[order], new_docs[order]
    at_key = np.searchsorted(keys, new_keys)
    present = at_key < len(keys)
    present[present] = keys[at_key[present]] == new_keys[present]
    # each new pair goes into its key's run of documents (ascending) at the place a binary search finds:
    # one C bisect per new pair, no array the size of the corpus's postings
    bounds = np.zeros(len(keys) + 1, np.int64)
    np.cumsum(counts, out=bounds[1:])
    lo = bounds[at_key]
    hi = np.where(present, bounds[np.minimum(at_key + 1, len(keys))], lo)
    docs = np.ascontiguousarray(docs, np.int32)
    view = memoryview(docs)
    places = np.fromiter(
        map(bisect_left, repeat(view), new_docs.tolist(), lo.tolist(), hi.tolist()), np.int64, len(new_docs)
    )
    all_docs = np.insert(docs, places, new_docs.astype(np.int32))
    added = np.unique(new_keys[~present])
    all_keys = np.insert(keys, np.searchsorted(keys, added), added)
    all_counts = np.insert(counts, np.searchsorted(keys, added), 0)
    np.add.at(all_counts, np.searchsorted(all_keys, new_keys), 1)
    offsets = np.zeros(len(all_keys) + 1, np.int64 if len(all_docs) >= 1 << 31 else np.int32)
    np.cumsum(all_counts, out=offsets[1:])
    return Postings(all_keys.astype(np.int64, copy=False), offsets, all_docs)


def _per_document_parts(
    table: DocumentTable, fresh: DocumentTable, fresh_ids: np.ndarray, sources, doc_map: list[int], rebuilt: list[int]
) -> dict:
    """The keyword arguments of the merged :class:`DocumentTable` past its segments, by new document number.

    The kept documents' entries are ``table``'s under ``doc_map`` (one step per entry, not
    per document); each of ``rebuilt`` takes its own from ``table`` or ``fresh``
    (``sources``, see :func:`reuse_plan`), fresh joined-word readings mapped into the merged
    vocabulary (``fresh_ids``).
    """
    extra: dict = {"negations": {}, "elision_stops": {}, "joined_words": {}, "brackets": {}}
    ellipses = {m for k in table.ellipses if (m := doc_map[k]) >= 0}
    for k in rebuilt:
        source = sources[k]
        of, j = (table, source) if source >= 0 else (fresh, -1 - source)
        for name in ("negations", "elision_stops", "brackets"):
            value = getattr(of, name).get(j)
            if value is not None:
                extra[name][k] = value
        joined = of.joined_words.get(j)
        if joined is not None:
            extra["joined_words"][k] = joined if of is table else {
                p: tuple((int(fresh_ids[w]), end) for w, end in r) for p, r in joined.items()
            }  # fmt: skip
        if j in of.ellipses:
            ellipses.add(k)
    parts = {name: _moved(getattr(table, name), doc_map, extra[name]) for name in extra}
    return {**parts, "ellipses": frozenset(ellipses)}


def _moved(rows: Mapping, doc_map: list[int], extra: dict) -> Mapping:
    """``rows`` (document number -> value) under ``doc_map`` (-1: dropped), with ``extra``'s entries added."""
    if isinstance(rows, Rows):
        return rows.renumbered(doc_map, extra)
    moved = {m: v for k, v in rows.items() if (m := doc_map[k]) >= 0}
    moved.update(extra)
    return moved
