"""The corpus index's types: one indexed document, the index, and a document's elision stops.

Why this module exists: the builders (:mod:`claimgate.audit.index.build`, its
specification :mod:`claimgate.audit.index.reference`), the compact document table,
the cache and the matcher all speak of the same two types; here they are a leaf of
the room, importing no builder, so nothing in the index goes round in a circle.

What it refuses to do: decide a verdict or look a quote up (the candidate lookup is
matching's, :mod:`claimgate.audit.matching.candidates`). Tokens: docs/audit-rules.md,
"Normalization"; elision stops: "Negation".
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field

from claimgate.audit.index.postings import Postings
from claimgate.audit.text.reference import JoinedWord


def elision_stops(negations: array, unchecked: array) -> array:
    """Ascending union of negation and unchecked-script positions; ``negations`` itself if there are none."""
    if not unchecked:
        return negations
    return array("i", sorted(set(negations) | set(unchecked)))


class IndexedDocument:
    """One normalized document in compact form (token ids as native int32 bytes).

    ``starts``/``ends``: per token, original character offsets (``ends`` one past
    the last character). ``joined_words``: position -> joined-word readings of the
    document's line-end hyphens. ``negations``: ascending positions of the tokens
    that negate (:func:`claimgate.audit.text.negation.negation_positions`), found once when the
    index is built. ``elision_stops``: ascending positions an ellipsis or a bracket may not
    hide: ``negations`` plus the tokens in a script with no negator list
    (:func:`claimgate.audit.text.negation.unchecked_script_positions`); the same array object as
    ``negations`` when there are none. Rules: docs/audit-rules.md, "Negation".
    """

    __slots__ = (
        "doc_id",
        "original",
        "token_bytes",
        "starts",
        "ends",
        "joined_words",
        "negations",
        "elision_stops",
        "has_ellipsis",
        "brackets",
    )

    def __init__(
        self,
        doc_id,
        original,
        token_bytes,
        starts,
        ends,
        joined_words,
        negations,
        has_ellipsis=False,
        brackets=frozenset(),
        elision_stops=None,
    ):
        self.doc_id: str = doc_id
        self.original: str = original
        self.token_bytes: bytes = token_bytes
        self.starts: array = starts
        self.ends: array = ends
        self.joined_words: dict[int, tuple[JoinedWord, ...]] = joined_words
        self.negations: array = negations
        self.elision_stops: array = negations if elision_stops is None else elision_stops
        self.has_ellipsis: bool = has_ellipsis  # an ellipsis of its own (any spelling, see fold_ellipses)
        self.brackets: frozenset[str] = brackets  # its brackets as written (see bracket_texts)

    @property
    def n_tokens(self) -> int:
        return len(self.token_bytes) >> 2

    def __getstate__(self):
        return tuple(getattr(self, name) for name in self.__slots__)

    def __setstate__(self, state):
        for name, value in zip(self.__slots__, state, strict=True):
            setattr(self, name, value)


@dataclass
class CorpusIndex:
    """Every document normalized once, plus token postings for candidate lookup.

    ``doc_ids`` are sorted; document number ``k`` is ``doc_ids[k]``. Postings
    (:class:`claimgate.audit.index.postings.Postings`): ``token_postings`` keyed by token id,
    ``pair_postings`` by ``id1 << 32 | id2`` for adjacent token pairs, joined
    line-end-hyphen words included in both, each with the document numbers holding
    the key. Picklable (plain lists, dicts, bytes, arrays and numpy arrays).
    """

    doc_ids: list[str]
    docs: Sequence[IndexedDocument]  # a DocumentTable (array build) or a list (reference build)
    vocab: dict[str, int]
    strings: list[str]
    token_postings: Postings
    pair_postings: Postings
    _pos: dict[str, int] = field(default_factory=dict)
    _variants: dict[str, tuple[int, ...]] | None = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._pos = {d: k for k, d in enumerate(self.doc_ids)}

    def token_id(self, token: str) -> int:
        """Id of a normalized token, -1 if no document has it."""
        return self.vocab.get(token, -1)

    def case_variants(self, token: str) -> tuple[int, ...]:
        """Ids of the corpus tokens that case-fold like ``token`` (ascending; ``token``'s own id included).

        Only tokens that keep their case differ from their folded form (docs/audit-rules.md,
        "Case"); the table is built from :attr:`strings` on first use.
        """
        if self._variants is None:
            variants: dict[str, list[int]] = {}
            for i, s in enumerate(self.strings):
                if s != s.lower():
                    variants.setdefault(s.casefold(), []).append(i)
            self._variants = {k: tuple(v) for k, v in variants.items()}
        folded = token.casefold()
        extra = self._variants.get(folded, ())
        own = self.vocab.get(folded, -1)
        return extra if own < 0 else tuple(sorted((own, *extra)))

    _id = token_id  # the name before the module split

    def doc_number(self, doc_id: str) -> int | None:
        """Document number of ``doc_id``, ``None`` if unknown."""
        return self._pos.get(doc_id) if isinstance(doc_id, str) else None

    def __len__(self) -> int:
        return len(self.docs)
