"""The corpus index as plain data for the index cache: JSON records and flat numpy arrays, nothing that runs code.

Why this module exists: the cache file (:mod:`claimgate.audit.index.cache`) once held
a pickle, and unpickling a file someone else planted runs their code. Here the index
is taken apart into records (ids, token strings, segment bounds, ellipses, brackets:
plain JSON) and int arrays (tokens and offsets, per-document negations, elision stops
and joined words in compressed-row form, postings, the SHA-256 of each document's text),
and put back together from them.

What it refuses to do: read anything but those. Arrays are ``.npy`` streams read with
``allow_pickle=False`` (an object array raises), each must have the dtype its name
says (:data:`_DTYPES`) and one dimension, and bytes after the last array are an
error; every error is a ``ValueError`` or ``KeyError`` the cache turns into "damaged,
rebuilt".
"""

from __future__ import annotations

import io
import json
import mmap
from array import array
from collections.abc import Mapping

import numpy as np
import orjson

from claimgate.audit.index.document_table import DocumentTable, TokenSegment
from claimgate.audit.index.postings import Postings
from claimgate.audit.index.types import CorpusIndex


def payload_of(index: CorpusIndex, digests: list[bytes]) -> dict:
    """The index as JSON records and flat arrays of its :class:`DocumentTable` (no texts): ``{"records", "arrays"}``.

    ``digests``: the 32-byte SHA-256 of each document's text in document order
    (:func:`claimgate.audit.index.reuse.document_digest`), stored as ``documents_sha256``
    (uint8, 32 per document) so that a later corpus can reuse each unchanged document's part.
    """
    table = DocumentTable.of(index.docs)
    if len(digests) != len(table) or any(len(d) != 32 for d in digests):
        raise ValueError("one 32-byte digest per document is needed")
    arrays: dict[str, np.ndarray] = {"documents_sha256": np.frombuffer(b"".join(digests), dtype=np.uint8)}
    for part in ("first", "token_ids", "starts", "ends"):  # one array each, the segments end to end
        arrays[f"segments_{part}"] = _concatenated([getattr(segment, part) for segment in table.segments], part)
    # elision stops only where they are not the negations themselves (a token in an unlisted script): rare
    for name in ("negations", "elision_stops"):
        arrays.update(_rows_arrays(name, getattr(table, name)))
    arrays.update(_joined_words_arrays(table.joined_words))
    for name, p in (("token_postings", index.token_postings), ("pair_postings", index.pair_postings)):
        arrays.update({f"{name}_keys": p.keys, f"{name}_offsets": p.offsets, f"{name}_docs": p.docs})
    records = {
        "doc_ids": table.doc_ids,
        "strings": index.strings,
        "segments": [[segment.first_doc, segment.n_docs, len(segment.token_ids)] for segment in table.segments],
        "ellipses": sorted(table.ellipses),
        "brackets": [[k, sorted(v)] for k, v in table.brackets.items()],
        "arrays": list(arrays),
    }
    return {"records": records, "arrays": arrays}


def _concatenated(arrays: list[np.ndarray], part: str) -> Pieces:
    """The segments' arrays end to end: ``first`` int64; ids and offsets uint16 when every segment's are, else int32."""
    dtype = np.int64 if part == "first" else np.int32
    if part != "first" and all(a.dtype == np.uint16 for a in arrays):
        dtype = np.uint16
    return Pieces(arrays, np.dtype(dtype))


class Pieces:
    """One array of ``dtype`` written as its ``parts`` end to end, never joined in memory (:func:`write_arrays`).

    Writing a 200,000-document index joined the segments' token arrays first: a copy of
    every token's id and offsets (about 200 MB) beside the index itself.
    """

    def __init__(self, parts: list[np.ndarray], dtype: np.dtype) -> None:
        self.parts, self.dtype = parts, dtype

    def __len__(self) -> int:
        return sum(len(p) for p in self.parts)

    def astype(self, dtype) -> np.ndarray:  # noqa: ANN001 - as ndarray.astype: the joined copy, for tests
        return np.concatenate(self.parts).astype(dtype) if self.parts else np.empty(0, dtype)


def _rows_arrays(name: str, rows: Mapping[int, array]) -> dict[str, np.ndarray]:
    """``{document number: int32 array}`` as three arrays: the numbers, offsets into the values, the values."""
    numbers = np.fromiter(rows, dtype=np.int64, count=len(rows))
    offsets = np.zeros(len(rows) + 1, np.int64)
    np.cumsum([len(v) for v in rows.values()], out=offsets[1:])
    values = np.frombuffer(b"".join(v.tobytes() for v in rows.values()), dtype=np.int32)
    return {f"{name}_docs": numbers, f"{name}_offsets": offsets, f"{name}_values": values}


def _rows_from(arrays: Mapping[str, np.ndarray], name: str) -> Rows:
    numbers, offsets = arrays[f"{name}_docs"].tolist(), arrays[f"{name}_offsets"].tolist()
    if len(offsets) != len(numbers) + 1:
        raise ValueError(f"{name}: {len(numbers)} documents but {len(offsets)} offsets")
    values = arrays[f"{name}_values"]
    if offsets and (offsets[0] != 0 or offsets[-1] != len(values) or any(a > b for a, b in zip(offsets, offsets[1:]))):
        raise ValueError(f"{name}: offsets outside the values")
    return Rows(dict(zip(numbers, range(len(numbers)))), offsets, values)


class Rows(Mapping):
    """``{document number: int32 array}`` over compressed rows, each ``array`` made when asked for.

    ``at``: document number -> row; row ``j`` is ``values[offsets[j]:offsets[j + 1]]``
    (int32). A cache file's negations and elision stops load as this, so a load makes no
    object per document (docs/audit-rules.md, "The index cache"); ``extra`` holds rows
    given as arrays (a merged index's rebuilt documents), looked up first.
    """

    def __init__(self, at: dict[int, int], offsets: list[int], values: np.ndarray, extra: dict | None = None):
        self._at, self._offsets, self._values, self._extra = at, offsets, values, extra or {}
        self._bytes = memoryview(values).cast("B") if len(values) else memoryview(b"")

    def __getitem__(self, k: int) -> array:
        found = self._extra.get(k)
        if found is not None:
            return found
        j = self._at[k]
        row = array("i")
        row.frombytes(self._bytes[4 * self._offsets[j] : 4 * self._offsets[j + 1]])
        return row

    def get(self, k, default=None):  # noqa: ANN001 - Mapping.get, without the exception on a miss
        found = self._extra.get(k)
        return found if found is not None else (self[k] if k in self._at else default)

    def __contains__(self, k) -> bool:  # noqa: ANN001
        return k in self._extra or k in self._at

    def __iter__(self):
        yield from sorted({*self._at, *self._extra})

    def __len__(self) -> int:
        return len(self._at.keys() | self._extra.keys())

    def renumbered(self, doc_map: list[int], extra: dict[int, array]) -> Rows:
        """These rows under new document numbers (``doc_map[k]``, dropped where -1), plus ``extra``'s."""
        at = {m: j for k, j in self._at.items() if (m := doc_map[k]) >= 0}
        kept = {m: v for k, v in self._extra.items() if (m := doc_map[k]) >= 0}
        return Rows(at, self._offsets, self._values, {**kept, **extra})


def _joined_words_arrays(joined_words: Mapping[int, Mapping[int, tuple]]) -> dict[str, np.ndarray]:
    """Joined-word readings as flat arrays: one entry per (document, position), its readings in order, as pairs."""
    entries = [(k, at, words) for k, by_position in joined_words.items() for at, words in by_position.items()]
    offsets = np.zeros(len(entries) + 1, np.int64)
    np.cumsum([len(words) for _, _, words in entries], out=offsets[1:])
    return {
        "joined_words_docs": np.array([k for k, _, _ in entries], np.int64),
        "joined_words_at": np.array([at for _, at, _ in entries], np.int64),
        "joined_words_offsets": offsets,
        "joined_words_pairs": np.array([n for _, _, words in entries for w in words for n in w], np.int64),
    }


def _joined_words_from(arrays: Mapping[str, np.ndarray]) -> dict[int, dict[int, tuple]]:
    docs, positions = arrays["joined_words_docs"].tolist(), arrays["joined_words_at"].tolist()
    offsets, flat = arrays["joined_words_offsets"].tolist(), arrays["joined_words_pairs"].tolist()
    if not len(docs) == len(positions) == len(offsets) - 1 or len(flat) != 2 * offsets[-1]:
        raise ValueError("joined words: arrays of different lengths")
    readings = list(zip(flat[::2], flat[1::2]))
    joined: dict[int, dict[int, tuple]] = {}
    for k, at, lo, hi in zip(docs, positions, offsets, offsets[1:]):
        by_position = joined.get(k)
        if by_position is None:
            by_position = joined[k] = {}
        by_position[at] = tuple(readings[lo:hi])
    return joined


#: The dtype of every array a cache file holds, by the end of its name (anything else: a damaged file).
_DTYPES = {
    "_first": (np.int64,), "_token_ids": (np.int32, np.uint16), "_starts": (np.int32, np.uint16),
    "_ends": (np.int32, np.uint16),
    "_docs": (np.int32, np.int64), "_offsets": (np.int32, np.int64), "_keys": (np.int64,), "_values": (np.int32,),
    "_at": (np.int64,), "_pairs": (np.int64,), "_sha256": (np.uint8,), "_sources": (np.int64,),
}  # fmt: skip


#: Every array's ``.npy`` stream starts at a multiple of this many bytes of its file (zero bytes before it).
ALIGN = 64


def write_arrays(out, position: int, arrays: Mapping[str, np.ndarray]) -> None:
    """``arrays`` as ``.npy`` streams into ``out`` (a file-like ``write``), each at a multiple of :data:`ALIGN`.

    ``position``: the file offset ``out`` writes at. The ``.npy`` header pads itself to 64
    bytes, so each array's values start aligned too and load as views (:func:`read_arrays`).
    """
    for values in arrays.values():
        parts = values.parts if isinstance(values, Pieces) else [values]
        dtype = values.dtype
        pad = -position % ALIGN
        header = _npy_header(dtype, sum(len(p) for p in parts))
        out.write(b"\0" * pad + header)
        position += pad + len(header)
        for part in parts:
            part = np.ascontiguousarray(part, dtype=dtype)
            out.write(memoryview(part).cast("B") if part.size else b"")
            position += part.nbytes


def _npy_header(dtype: np.dtype, length: int) -> bytes:
    buffer = io.BytesIO()
    fields = {"descr": np.lib.format.dtype_to_descr(np.dtype(dtype)), "fortran_order": False, "shape": (length,)}
    np.lib.format.write_array_header_1_0(buffer, fields)
    return buffer.getvalue()  # magic, version 1.0, header padded so the values start at a multiple of 64


def read_arrays(data: bytes, at: int, names: list) -> dict[str, np.ndarray]:
    """The ``.npy`` arrays of ``data`` (a whole cache file) from offset ``at``, in order, as read-only views.

    Each must start at the next multiple of :data:`ALIGN`, be one-dimensional, of a dtype
    its name allows (:data:`_DTYPES`, native byte order; an object array is refused, never
    unpickled) and lie inside ``data``; bytes after the last array are an error
    (``ValueError``). No value is copied: the arrays share ``data``'s memory.
    """
    arrays = {}
    for name in names:
        if not isinstance(name, str) or name in arrays:
            raise ValueError("bad array name")
        at += -at % ALIGN
        if data[at : at + 6] != b"\x93NUMPY" or data[at + 6 : at + 7] not in (b"\x01", b"\x02"):
            raise ValueError(f"array {name[:40]!r}: not a .npy stream of version 1 or 2")
        width = 2 if data[at + 6] == 1 else 4
        length = int.from_bytes(data[at + 8 : at + 8 + width], "little")
        header = io.BytesIO(data[at : at + 8 + width + length])
        major, _ = np.lib.format.read_magic(header)
        read_header = np.lib.format.read_array_header_1_0 if major == 1 else np.lib.format.read_array_header_2_0
        shape, _, dtype = read_header(header)  # a literal_eval of a dict of plain values: runs no code
        at += 8 + width + length
        allowed = next((dtypes for end, dtypes in _DTYPES.items() if name.endswith(end)), ())
        if len(shape) != 1 or dtype.hasobject or not any(dtype == np.dtype(d) for d in allowed):
            raise ValueError(f"array {name[:40]!r} of dtype {dtype.str} and {len(shape)} dimensions")
        end = at + shape[0] * dtype.itemsize
        if end > len(data):
            raise ValueError(f"array {name[:40]!r} runs past the end of the file")
        arrays[name] = np.frombuffer(data, dtype, shape[0], at)
        at = end
    if at != len(data):
        raise ValueError("bytes after the last array")
    return arrays


def _mapping_of(array: np.ndarray) -> mmap.mmap | None:
    """The read-only file mapping ``array`` is a view of (``read_arrays`` of ``cache_file.read_checked``), or None."""
    owner: object = array
    while isinstance(owner, np.ndarray | memoryview):
        owner = owner.obj if isinstance(owner, memoryview) else owner.base
    return owner if isinstance(owner, mmap.mmap) else None


def release_pages(*arrays: np.ndarray) -> None:
    """Let the kernel drop the pages of ``arrays`` (views of a mapped cache file) from this process's memory now.

    For arrays a step has finished reading (a base's postings once the merged ones are built): the
    pages wholly inside each array leave the resident set (``madvise(MADV_DONTNEED)``), and the
    values stay as they are: the mapping is of a file opened read-only, so a later read maps the
    same bytes in again. Arrays that are not views of a mapping are left alone.
    """
    for values in arrays:
        mapping = _mapping_of(values)
        if mapping is None or not values.nbytes or not hasattr(mapping, "madvise"):
            continue
        origin = np.frombuffer(mapping, np.uint8, 1).ctypes.data
        start = values.ctypes.data - origin
        first = -(-start // mmap.PAGESIZE) * mmap.PAGESIZE  # whole pages only: neighbours may still be in use
        last = (start + values.nbytes) // mmap.PAGESIZE * mmap.PAGESIZE
        if last > first:
            mapping.madvise(mmap.MADV_DONTNEED, first, last - first)


def records(line: bytes) -> dict:
    """The payload's JSON records (``orjson``, several times faster on the ids; ``json`` for lone surrogates)."""
    try:
        return orjson.loads(line)
    except orjson.JSONDecodeError:  # a lone surrogate (an id or token read with surrogatepass), written as \udxxx
        return json.loads(line)


def digests_from(payload: dict) -> list[bytes]:
    """The 32-byte SHA-256 of each document's text, in document order (see :func:`payload_of`)."""
    flat = payload["arrays"]["documents_sha256"].tobytes()
    if len(flat) != 32 * len(payload["records"]["doc_ids"]):
        raise ValueError("not one 32-byte digest per document")
    return [flat[at : at + 32] for at in range(0, len(flat), 32)]


def index_from(payload: dict, documents: Mapping[str, str]) -> CorpusIndex:
    """The index of a payload; ``documents`` gives each id's text (the originals are not stored)."""
    records, arrays = payload["records"], payload["arrays"]
    doc_ids = records["doc_ids"]
    segments, docs_at, tokens_at = [], 0, 0
    for first_doc, n_docs, n_tokens in records["segments"]:  # views into the four arrays, no copy
        first = arrays["segments_first"][docs_at : docs_at + n_docs + 1]
        tokens = [
            arrays[f"segments_{part}"][tokens_at : tokens_at + n_tokens] for part in ("token_ids", "starts", "ends")
        ]
        if len(first) != n_docs + 1 or any(len(t) != n_tokens for t in tokens) or first[-1] - first[0] != n_tokens:
            raise ValueError("a segment outside its arrays")
        segments.append(TokenSegment(first_doc, first, *tokens))
        docs_at, tokens_at = docs_at + n_docs + 1, tokens_at + n_tokens
    table = DocumentTable(
        doc_ids,
        [documents[doc_id] for doc_id in doc_ids],
        segments,
        _rows_from(arrays, "negations"),
        _rows_from(arrays, "elision_stops"),
        _joined_words_from(arrays),
        frozenset(records["ellipses"]),
        {k: frozenset(v) for k, v in records["brackets"]},
    )
    strings = records["strings"]
    postings = [Postings(*(arrays[f"{name}_{part}"] for part in ("keys", "offsets", "docs")))
                for name in ("token_postings", "pair_postings")]  # fmt: skip
    return CorpusIndex(doc_ids, table, dict(zip(strings, range(len(strings)))), strings, *postings)
