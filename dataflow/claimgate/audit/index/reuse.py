"""The index of an edited corpus from the parts of a previous index: only new texts are normalized.

Why this module exists: a corpus of documentation changes a few pages at a time, and
the index of 20,000 documents took seconds to build while a document's part of it (its
tokens, their offsets, its negations, elision stops, joined words, ellipsis and
brackets) depends on nothing but its own text and the normalizer's rules. Here every
document whose text a previous index already holds (matched by the SHA-256 of the
text's bytes, whatever its id: an unchanged, renamed or duplicated page) takes its part
from there, the other documents are built by the ordinary build (the same rules, the
same code), and the parts are put together with array operations: token arrays
gathered, token ids mapped into one vocabulary, the postings built again from the
gathered arrays (:func:`claimgate.audit.index.build._postings`).

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
from collections.abc import Callable, Mapping, Sequence

import numpy as np

from claimgate.audit.index.build import _ExtraKeys, _postings
from claimgate.audit.index.document_table import DocumentTable, TokenSegment
from claimgate.audit.index.postings import Postings
from claimgate.audit.index.types import CorpusIndex


def document_digest(text: str) -> bytes:
    """The 32-byte SHA-256 of a document's text (UTF-8, lone surrogates kept): what a reused part is keyed by."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).digest()


def _flat(table: DocumentTable) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(first, token_ids, starts, ends)`` of every document end to end (``first``: int64, one more than documents)."""
    first = np.zeros(len(table) + 1, np.int64)
    tokens_before = 0
    for segment in table.segments:
        lo = segment.first_doc
        first[lo + 1 : lo + segment.n_docs + 1] = segment.first[1:] - segment.first[0] + tokens_before
        tokens_before += len(segment.token_ids)
    columns = [
        np.concatenate([getattr(s, part) for s in table.segments]) if table.segments else np.empty(0, np.int32)
        for part in ("token_ids", "starts", "ends")
    ]
    return (first, *columns)


def _gathered(first: np.ndarray, sources: np.ndarray, *columns: np.ndarray) -> tuple[np.ndarray, ...]:
    """``(new first, *columns)`` holding, in order, the tokens of documents ``sources`` of ``columns``."""
    counts = first[sources + 1] - first[sources]
    new_first = np.zeros(len(sources) + 1, np.int64)
    np.cumsum(counts, out=new_first[1:])
    at = np.repeat(first[sources] - new_first[:-1], counts) + np.arange(int(new_first[-1]), dtype=np.int64)
    return (new_first, *(column[at] for column in columns))


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
    doc_ids = sorted(documents)
    table = _table(base)
    base_numbers = {doc_id: k for k, doc_id in enumerate(table.doc_ids)}
    by_digest: dict[bytes, int] = {}
    for k, digest in enumerate(base_digests):
        by_digest.setdefault(digest, k)
    reused, in_place = [], np.zeros(len(doc_ids), bool)  # in place: the same id and text in ``base``
    for k, doc_id in enumerate(doc_ids):
        b = base_numbers.get(doc_id)
        in_place[k] = b is not None and base_digests[b] == digests[doc_id]
        reused.append(b if in_place[k] else by_digest.get(digests[doc_id], -1))
    if all(b < 0 for b in reused):  # nothing to reuse (another corpus): the build alone
        return build(documents)
    new_texts = {d: documents[d] for d, b in zip(doc_ids, reused) if b < 0}
    empty = Postings.empty()
    fresh = build(new_texts) if new_texts else CorpusIndex([], DocumentTable([], [], []), {}, [], empty, empty)
    fresh_table = _table(fresh)
    # one vocabulary: the base's ids stay, the fresh index's new strings come after them
    strings, vocab, n_known = list(base.strings), dict(base.vocab), len(base.strings)
    fresh_ids = np.fromiter((vocab.setdefault(s, len(vocab)) for s in fresh.strings), np.int64, len(fresh.strings))
    strings.extend(s for s in fresh.strings if vocab[s] >= n_known)  # setdefault numbered them in this order
    n_base = len(table)
    sources = np.array([b if b >= 0 else n_base + fresh.doc_number(d) for d, b in zip(doc_ids, reused)], np.int64)
    base_first, base_tokens, base_starts, base_ends = _flat(table)
    fresh_first, fresh_tokens, fresh_starts, fresh_ends = _flat(fresh_table)
    first, tokens, starts, ends = _gathered(
        np.concatenate([base_first, fresh_first[1:] + base_first[-1]]),
        sources.reshape(-1),
        np.concatenate([base_tokens.astype(np.int64), fresh_ids[fresh_tokens]]),
        np.concatenate([base_starts, fresh_starts]),
        np.concatenate([base_ends, fresh_ends]),
    )
    parts = _per_document_parts(table, fresh_table, fresh_ids, sources)
    used = np.zeros(len(strings), bool)
    used[tokens] = True
    used[[w for by_position in parts["joined_words"].values() for r in by_position.values() for w, _ in r]] = True
    renumbered = None
    if not used.all():  # strings only replaced or removed documents held: dropped, as a cold build never has them
        renumbered = np.cumsum(used) - 1
        tokens = renumbered[tokens]
        parts["joined_words"] = {
            k: {p: tuple((int(renumbered[w]), end) for w, end in r) for p, r in by_position.items()}
            for k, by_position in parts["joined_words"].items()
        }
        strings = [s for s, keep in zip(strings, used.tolist()) if keep]
        vocab = dict(zip(strings, range(len(strings))))
    segments = [TokenSegment(0, first, tokens.astype(np.int32), starts, ends)] if doc_ids else []
    merged = DocumentTable(doc_ids, [documents[d] for d in doc_ids], segments, **parts)
    doc_map = np.full(n_base, -1, np.int64)  # base document -> its number here when kept in place, else -1
    doc_map[sources[in_place]] = np.flatnonzero(in_place)
    postings = _spliced_postings(base, merged, doc_map, renumbered, ~in_place, len(strings))
    return CorpusIndex(doc_ids, merged, vocab, strings, *postings)


def _table(index: CorpusIndex) -> DocumentTable:
    return DocumentTable.of(index.docs)


def _postings_of(table: DocumentTable, numbers: np.ndarray, n_ids: int) -> tuple[Postings, Postings]:
    """The build's postings of documents ``numbers`` of ``table`` (one segment), numbered ``0..len(numbers)-1``."""
    if not len(numbers) or not table.segments:
        return Postings.empty(), Postings.empty()
    segment = table.segments[0]  # the merged table: one segment
    first, tokens = _gathered(segment.first, numbers, segment.token_ids)
    extra = _ExtraKeys()
    for j, k in enumerate(numbers.tolist()):
        if k in table.joined_words:
            extra.add(j, tokens[first[j] : first[j + 1]].tolist(), table.joined_words[k])
    return _postings([TokenSegment(0, first, tokens, tokens, tokens)], extra, n_ids)  # offsets unused here


def _spliced_postings(
    base: CorpusIndex,
    merged: DocumentTable,
    doc_map: np.ndarray,
    renumbered: np.ndarray | None,
    rebuilt: np.ndarray,
    n_ids: int,
) -> tuple[Postings, Postings]:
    """``(token postings, pair postings)`` of ``merged``: ``base``'s, for the documents kept in place, spliced
    with those the build gives the ``rebuilt`` documents (a mask by merged number).

    ``doc_map``: base document -> merged number, -1 when not kept in place; ``renumbered``:
    base token id -> merged id (``None``: the same); ``n_ids``: the merged vocabulary's size.
    A kept document's keys are its own (tokens, adjacent pairs, joined words), so they
    carry over; both mappings keep their order, so the kept postings stay sorted in
    compressed-row form and the rebuilt ones are inserted at their places (found by one
    ``searchsorted``): no sort of the corpus's postings.
    """
    others = np.flatnonzero(rebuilt)
    fresh = _postings_of(merged, others, n_ids)
    out = []
    for old, new, pairs in zip((base.token_postings, base.pair_postings), fresh, (False, True)):
        keys = old.keys
        if renumbered is not None:
            keys = (renumbered[keys >> 32] << 32) | renumbered[keys & 0xFFFFFFFF] if pairs else renumbered[keys]
        mapped = doc_map[old.docs]
        kept = mapped >= 0
        counts = np.add.reduceat(kept, old.offsets[:-1].astype(np.int64), dtype=np.int64) if len(keys) else keys
        held = counts > 0
        new_keys, new_docs = new.expanded()
        out.append(_inserted(keys[held], counts[held], mapped[kept], new_keys, others[new_docs], len(merged)))
    return out[0], out[1]


def _inserted(keys, counts, docs, new_keys, new_docs, n_docs: int) -> Postings:
    """Postings of ``keys`` (ascending; ``counts[i]`` documents each, ``docs`` end to end, ascending per key)
    with the pairs ``(new_keys[j], new_docs[j])`` added (none of them already there)."""
    order = np.lexsort((new_docs, new_keys))
    new_keys, new_docs = new_keys[order], new_docs[order]
    at_key = np.searchsorted(keys, new_keys)
    present = at_key < len(keys)
    present[present] = keys[at_key[present]] == new_keys[present]
    # each posting ranked by (its key's place, document): ascending, so one searchsorted places every new pair
    span = n_docs + 1
    ranked = np.repeat(np.arange(len(keys), dtype=np.int64) * span, counts) + docs
    places = np.searchsorted(ranked, at_key * span + np.where(present, new_docs, -1))
    all_docs = np.insert(docs, places, new_docs).astype(np.int32)
    added = np.unique(new_keys[~present])
    all_keys = np.insert(keys, np.searchsorted(keys, added), added)
    all_counts = np.insert(counts, np.searchsorted(keys, added), 0)
    np.add.at(all_counts, np.searchsorted(all_keys, new_keys), 1)
    offsets = np.zeros(len(all_keys) + 1, np.int64 if len(all_docs) >= 1 << 31 else np.int32)
    np.cumsum(all_counts, out=offsets[1:])
    return Postings(all_keys.astype(np.int64), offsets, all_docs)


def _per_document_parts(table: DocumentTable, fresh: DocumentTable, fresh_ids: np.ndarray, sources: np.ndarray):
    """The keyword arguments of the merged :class:`DocumentTable` past its segments, by new document number.

    ``sources[k]``: document ``k``'s number in ``table`` then ``fresh`` end to end; the
    fresh documents' joined-word readings are mapped into the merged vocabulary (``fresh_ids``).
    """
    n_base = len(table)
    parts: dict = {"negations": {}, "elision_stops": {}, "joined_words": {}, "brackets": {}}
    ellipses = set()
    for k, source in enumerate(sources.tolist()):
        of, j = (table, source) if source < n_base else (fresh, source - n_base)
        for name in ("negations", "elision_stops", "brackets"):
            value = getattr(of, name).get(j)
            if value is not None:
                parts[name][k] = value
        joined = of.joined_words.get(j)
        if joined is not None:
            parts["joined_words"][k] = joined if of is table else {
                p: tuple((int(fresh_ids[w]), end) for w, end in r) for p, r in joined.items()
            }  # fmt: skip
        if j in of.ellipses:
            ellipses.add(k)
    return {**parts, "ellipses": frozenset(ellipses)}
