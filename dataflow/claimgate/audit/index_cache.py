"""The corpus index kept on disk between runs, keyed by the corpus's bytes and the normalizer's version.

Why this module exists: an audit of a fixed corpus (documentation that changes
weekly, checked many times a day) rebuilds the same index every run. The index is
a pure function of the documents' ids and texts and of the normalization rules,
so it is stored once under a key that covers exactly those and loaded when the key
matches.

What it refuses to do: load anything whose key does not match. The key is the
SHA-256 of the index format, :data:`claimgate.audit.fast_normalize.NORMALIZER_VERSION`
and every ``(doc_id, text)`` in id order (UTF-8, length-prefixed); an edited,
added or removed document gives another key, so another file. A file that is
missing, truncated, of another format or whose recorded key differs is ignored
and the index is rebuilt and written again (fail safe: a cache can cost a
rebuild, never change a verdict). Files are written atomically
(:func:`claimgate.io.atomic.write_atomic`). The cache holds the normalized tokens,
their offsets and everything found per document when the index was built
(negations, elision stops, ellipses, brackets, joined words), not the texts (they
come from the corpus itself on load): a load runs no per-document rule.

File format: the line ``claimgate-corpus-index``, a JSON header line
``{"format", "normalizer", "key", "documents"}``, then a pickle (protocol 5) of
compact arrays (int32 token ids and character offsets by run of documents; postings as
int64 distinct keys, offsets and int32 document numbers) and the few per-document extras. Only files this
module wrote are read: the file name and the header both carry the key, and
the cache folder is the user's own (``--cache DIR``); do not point it at a folder
others can write to, as unpickling runs code.
"""

from __future__ import annotations

import hashlib
import json
import pickle
import struct
import sys
from array import array
from collections.abc import Callable, Mapping
from pathlib import Path

from claimgate.audit.corpus_index import CorpusIndex
from claimgate.audit.document_table import DocumentTable, TokenSegment
from claimgate.audit.fast_normalize import NORMALIZER_VERSION
from claimgate.audit.postings import Postings
from claimgate.errors import OutputError
from claimgate.io.atomic import write_atomic

#: Version of the file layout below; bump on any change to it or to ``CorpusIndex``'s fields.
#: 2: the elision stops of documents with an unlisted script are stored (format 1 recomputed
#: them on every load with a regular-expression pass over every document).
#: 3: postings as distinct keys, offsets and documents (:class:`claimgate.audit.postings.Postings`);
#: tokens as the segments of a :class:`claimgate.audit.document_table.DocumentTable`.
INDEX_FORMAT = 3
_MAGIC = b"claimgate-corpus-index\n"


def corpus_key(documents: Mapping[str, str]) -> str:
    """Hex SHA-256 of the index format, the normalizer's version and every ``(doc_id, text)`` in id order."""
    digest = hashlib.sha256(f"claimgate-index format={INDEX_FORMAT} normalizer={NORMALIZER_VERSION}\n".encode())
    for doc_id in sorted(documents):
        for part in (doc_id, documents[doc_id]):
            data = part.encode("utf-8", "surrogatepass")
            digest.update(struct.pack("<Q", len(data)))
            digest.update(data)
    return digest.hexdigest()


def cache_path(cache_dir: str | Path, key: str) -> Path:
    """The file holding the index of the corpus with ``key``."""
    return Path(cache_dir) / f"corpus-index-{key}.bin"


def _payload(index: CorpusIndex) -> dict:
    """The index as a few flat arrays and the per-document extras of its :class:`DocumentTable` (no texts)."""
    table = index.docs if isinstance(index.docs, DocumentTable) else DocumentTable.from_documents(index.docs)
    return {
        "doc_ids": table.doc_ids,
        "strings": index.strings,
        "segments": [(s.first_doc, s.first, s.token_ids, s.starts, s.ends) for s in table.segments],
        "negations": {k: v.tobytes() for k, v in table.negations.items()},
        # only where they are not the negations themselves (a token in an unlisted script): rare
        "elision_stops": {k: v.tobytes() for k, v in table.elision_stops.items()},
        "joined_words": table.joined_words,
        "ellipses": sorted(table.ellipses),
        "brackets": {k: sorted(v) for k, v in table.brackets.items()},
        "postings": [(p.keys, p.offsets, p.docs) for p in (index.token_postings, index.pair_postings)],
    }


def _index_from(payload: dict, documents: Mapping[str, str]) -> CorpusIndex:
    doc_ids = payload["doc_ids"]
    table = DocumentTable(
        doc_ids,
        [documents[doc_id] for doc_id in doc_ids],
        [TokenSegment(*arrays) for arrays in payload["segments"]],
        {k: array("i", v) for k, v in payload["negations"].items()},
        {k: array("i", v) for k, v in payload["elision_stops"].items()},
        payload["joined_words"],
        frozenset(payload["ellipses"]),
        {k: frozenset(v) for k, v in payload["brackets"].items()},
    )
    strings = payload["strings"]
    postings = [Postings(*arrays) for arrays in payload["postings"]]
    return CorpusIndex(doc_ids, table, dict(zip(strings, range(len(strings)))), strings, *postings)


def _header(key: str, n_documents: int) -> dict:
    return {"format": INDEX_FORMAT, "normalizer": NORMALIZER_VERSION, "key": key, "documents": n_documents}


def load_index(cache_dir: str | Path, key: str, documents: Mapping[str, str]) -> CorpusIndex | None:
    """The cached index of ``documents`` (whose :func:`corpus_key` is ``key``), or ``None``.

    ``None`` (never an exception) for a missing, unreadable, truncated or foreign
    file, another format or normalizer, or a recorded key or document list that
    differs: the caller rebuilds.
    """
    path = cache_path(cache_dir, key)
    try:
        with open(path, "rb") as handle:
            if handle.readline() != _MAGIC:
                return None
            if json.loads(handle.readline()) != _header(key, len(documents)):
                return None
            payload = pickle.load(handle)
        if payload["doc_ids"] != sorted(documents):
            return None
        return _index_from(payload, documents)
    except Exception:  # noqa: BLE001 - any damage to a cache file means: rebuild (fail safe)
        return None


def store_index(cache_dir: str | Path, key: str, index: CorpusIndex) -> Path:
    """Write ``index`` under ``key`` atomically (the folder is created if needed); returns the file's path."""
    path = cache_path(cache_dir, key)
    header = _header(key, len(index.doc_ids))
    payload = _payload(index)

    def write(handle) -> None:
        handle.write(_MAGIC)
        handle.write(json.dumps(header, sort_keys=True).encode() + b"\n")
        pickle.dump(payload, handle, protocol=5)

    write_atomic(path, write)
    return path


def cached_corpus_index(
    documents: Mapping[str, str], cache_dir: str | Path | None, build: Callable[[Mapping[str, str]], CorpusIndex]
) -> CorpusIndex:
    """``build(documents)``, or its copy from ``cache_dir`` when one with this corpus's key is there.

    Without ``cache_dir`` this is ``build(documents)``. After a build the index is
    stored; when the folder cannot be written the run goes on with the built index
    and one ``warning:`` line on stderr (a cache only ever saves time).
    """
    if cache_dir is None:
        return build(documents)
    key = corpus_key(documents)
    index = load_index(cache_dir, key, documents)
    if index is None:
        index = build(documents)
        try:
            store_index(cache_dir, key, index)
        except (OSError, OutputError) as exc:
            print(f"warning: index cache not written: {exc}", file=sys.stderr)
    return index
