"""Candidate documents of a parsed quote: the index's postings narrowed to a superset of the matches.

Why this module exists: a quote not in its cited document must still be looked for
in every other document, and scanning them all is too slow; the postings of the
quote's token pairs narrow the corpus to the documents that can match, which the
matcher then verifies (so the indexed audit and
:func:`claimgate.audit.matching.audit.audit_quote_reference` agree). Rules:
docs/audit-rules.md, "Speed".

What it refuses to do: drop a document that could match.
"""

from __future__ import annotations

import numpy as np

from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.matching.quote_parsing import ParsedQuote


def candidate_documents(index: CorpusIndex, parsed: ParsedQuote) -> np.ndarray:
    """Document numbers (ascending, int32): a superset of the documents holding every unjoined bigram/token.

    A superset of the documents where the quote can match: an unjoined quote
    token (one not next to a quote line-end hyphen) must equal a document token
    or a joined document word, and both are in the postings. The postings are
    intersected rarest first and only until at most :data:`ENOUGH_CANDIDATES`
    documents are left (the matcher verifies every candidate, so the verdicts do
    not depend on where the intersection stops; docs/audit-rules.md, "Speed").
    """
    bigrams: list[int] = []
    unigrams: list[int] = []
    for fragment in parsed.fragments:
        for segment in fragment.segments:
            for j in sorted(segment.unjoined_positions):
                tid = segment.token_ids[j]
                if tid < 0:
                    return np.empty(0, dtype=np.int32)  # a token no document has
                unigrams.append(tid)
                if j + 1 in segment.unjoined_positions:
                    bigrams.append((tid << 32) | segment.token_ids[j + 1])
    if bigrams:
        postings, wanted = index.pair_postings, bigrams
    elif unigrams:
        postings, wanted = index.token_postings, unigrams
    else:
        return np.arange(len(index.docs), dtype=np.int32)
    lo, hi = postings.ranges(np.unique(np.asarray(wanted, dtype=np.int64)))
    docs = postings.docs
    found: np.ndarray | None = None
    for k in np.argsort(hi - lo, kind="stable"):  # rarest key first: the set shrinks fastest
        posting = docs[lo[k] : hi[k]]
        if found is None:
            found = posting
        else:
            at = np.searchsorted(posting, found)
            at[at >= len(posting)] = 0
            found = found[posting[at] == found] if len(posting) else posting
        if len(found) <= ENOUGH_CANDIDATES:  # a superset still; the matcher verifies each of these few
            break
    return found


#: Intersecting stops once this few documents are left: verifying them costs less than more intersections.
ENOUGH_CANDIDATES = 2
