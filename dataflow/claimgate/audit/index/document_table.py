"""The documents of the corpus index as a few flat arrays, one :class:`IndexedDocument` made on each access.

Why this module exists: at 200,000 documents one Python object per document (the
document, its bytes, two offset arrays, a negation array and a dict) cost more
than 100 MiB beside the 12 bytes per token the index needs, and loading a cached
index built all of them again. Here the tokens of a run of documents (a segment:
one chunk of the build) are three int32 arrays, and what a few documents have
(negations, elision stops, joined words, brackets, an ellipsis) is kept by
document number; ``table[k]`` assembles document ``k`` when the matcher asks for it.

What it refuses to do: differ from the documents it was made from. ``table[k]``
has the fields the build gave document ``k`` (tests compare every field with the
reference build), including ``elision_stops is negations`` when the document has
no token in an unlisted script.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

import numpy as np

from claimgate.audit.index.types import IndexedDocument
from claimgate.audit.text.reference import JoinedWord

_NO_JOINED_WORDS: dict = {}
#: Documents kept once made (a citation reads its cited document several times).
_RECENT = 32


@dataclass(frozen=True, eq=False)  # arrays: equality and hashing by identity
class TokenSegment:
    """The tokens of documents ``first_doc .. first_doc + len(first) - 2``, in document order.

    ``first`` (int64, one more than documents): where each document's tokens start
    in the arrays below; ``token_ids``: uint16 when every id of the segment is below
    2**16 (a vocabulary of at most 65,536 strings so far), else int32; ``starts``/``ends``:
    original character offsets (``ends`` one past the last character), uint16 when every
    offset of the segment is below 2**16 (documents of up to 65,535 characters), else int32
    (:func:`narrow_offsets`): half the memory where the range allows. A document made from
    the segment has int32 token bytes and ``array("i")`` offsets either way.
    """

    first_doc: int
    first: np.ndarray
    token_ids: np.ndarray
    starts: np.ndarray
    ends: np.ndarray

    def __post_init__(self) -> None:
        starts, ends = narrow_offsets(self.starts, self.ends)
        object.__setattr__(self, "token_ids", narrow_offsets(self.token_ids, self.token_ids)[0])  # frozen: set once
        object.__setattr__(self, "starts", starts)
        object.__setattr__(self, "ends", ends)

    @property
    def n_docs(self) -> int:
        return len(self.first) - 1

    def doc_of_token(self) -> np.ndarray:
        """Document number (corpus-wide, int64) of every token of the segment."""
        return np.repeat(np.arange(self.first_doc, self.first_doc + self.n_docs, dtype=np.int64), np.diff(self.first))


@dataclass(eq=False)  # arrays: equality by identity
class DocumentTable(Sequence[IndexedDocument]):
    """Documents by number: ids and texts, token segments, and the per-document extras some documents have.

    ``negations`` / ``elision_stops``: document number -> int32 array, only for the
    documents that have any (stops only where they are not the negations);
    ``joined_words``: number -> joined-word readings (see :class:`IndexedDocument`);
    ``ellipses``: numbers of the documents with an ellipsis of their own;
    ``brackets``: number -> brackets as written. Picklable.
    """

    doc_ids: list[str]
    originals: list[str]
    segments: list[TokenSegment]
    negations: dict[int, array] = field(default_factory=dict)
    elision_stops: dict[int, array] = field(default_factory=dict)
    joined_words: dict[int, dict[int, tuple[JoinedWord, ...]]] = field(default_factory=dict)
    ellipses: frozenset[int] = frozenset()
    brackets: dict[int, frozenset[str]] = field(default_factory=dict)
    _segment_starts: list[int] = field(default_factory=list, repr=False)
    _recent: dict[int, IndexedDocument] = field(default_factory=dict, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._segment_starts = [s.first_doc for s in self.segments]
        self._recent = {}
        self._views: dict[int, tuple] = {}

    def __getstate__(self) -> dict:
        # documents made on access and buffer views are not part of the table (and views do not pickle)
        return {**self.__dict__, "_recent": {}, "_views": {}}

    def __len__(self) -> int:
        return len(self.doc_ids)

    def __getitem__(self, k):  # noqa: ANN001 - an int, or a slice for Sequence's mixins
        if isinstance(k, slice):
            return [self[j] for j in range(*k.indices(len(self)))]
        document = self._recent.get(k)
        if document is not None:
            return document
        if k < 0:
            k += len(self)
        if not 0 <= k < len(self):
            raise IndexError(k)
        number = bisect_right(self._segment_starts, k) - 1
        views = self._views.get(number)
        if views is None:
            segment = self.segments[number]
            views = self._views[number] = (
                segment.first_doc, segment.first.tolist(), segment.token_ids, segment.starts, segment.ends,
            )  # fmt: skip
        first_doc, first, token_ids, starts, ends = views
        lo, hi = first[k - first_doc], first[k - first_doc + 1]  # tokens
        negations = self.negations.get(k)
        if negations is None:
            negations = array("i")
        document = self._recent[k] = IndexedDocument(
            self.doc_ids[k],
            self.originals[k],
            _int32s(token_ids[lo:hi]).tobytes(),
            _int32s(starts[lo:hi]),
            _int32s(ends[lo:hi]),
            self.joined_words.get(k, _NO_JOINED_WORDS),
            negations,
            k in self.ellipses,
            self.brackets.get(k, frozenset()),
            elision_stops=self.elision_stops.get(k),  # None: the negations object itself
        )
        if len(self._recent) > _RECENT:
            self._recent.clear()  # one atomic step (no iteration that another thread could disturb)
        return document

    def __iter__(self) -> Iterator[IndexedDocument]:
        return (self[k] for k in range(len(self)))

    @property
    def n_tokens(self) -> int:
        return sum(len(s.token_ids) for s in self.segments)

    @classmethod
    def of(cls, docs: DocumentTable | Sequence[IndexedDocument]) -> DocumentTable:
        """``docs`` when it is a table already (the array build's), else :meth:`from_documents` of it."""
        return docs if isinstance(docs, DocumentTable) else cls.from_documents(docs)

    @classmethod
    def from_documents(cls, docs: Sequence[IndexedDocument]) -> DocumentTable:
        """The table of a list of documents (as the reference build makes them), numbered in list order."""
        first = np.zeros(len(docs) + 1, np.int64)
        np.cumsum([d.n_tokens for d in docs], out=first[1:])

        def joined(name: str) -> np.ndarray:
            return np.frombuffer(b"".join(bytes(getattr(d, name)) for d in docs), dtype=np.int32).copy()

        segment = TokenSegment(0, first, joined("token_bytes"), joined("starts"), joined("ends"))
        return cls(
            [d.doc_id for d in docs],
            [d.original for d in docs],
            [segment] if docs else [],
            {k: d.negations for k, d in enumerate(docs) if d.negations},
            {k: d.elision_stops for k, d in enumerate(docs) if d.elision_stops is not d.negations},
            {k: d.joined_words for k, d in enumerate(docs) if d.joined_words},
            frozenset(k for k, d in enumerate(docs) if d.has_ellipsis),
            {k: d.brackets for k, d in enumerate(docs) if d.brackets},
        )


def _int32s(values: np.ndarray) -> array:
    """An ``array("i")`` copy of int32 or uint16 values (no element loop)."""
    out = array("i")
    out.frombytes(memoryview(values).cast("B") if values.dtype == np.int32 else values.astype(np.int32).tobytes())
    return out


#: Offsets below this fit a uint16.
_NARROW = 1 << 16


def narrow_offsets(starts: np.ndarray, ends: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, ends)`` as uint16 when every end is below 2**16 (ends bound starts), else as int32; no copy
    when they already are. Character offsets, one per token (:class:`TokenSegment`); token ids too
    (``narrow_offsets(ids, ids)[0]``)."""
    if starts.dtype == ends.dtype == np.uint16:
        return starts, ends
    if len(ends) and int(ends.max()) >= _NARROW:
        return starts.astype(np.int32, copy=False), ends.astype(np.int32, copy=False)
    return starts.astype(np.uint16), ends.astype(np.uint16)
