"""The chain of fragments: the list programme and the array programme are one programme."""

from __future__ import annotations

from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.alignment import Placements
from claimgate.audit.matching.fragment_chain import chain, chain_reference, earliest_chain
from hypothesis import given, settings
from hypothesis import strategies as st

WORDS = ["alpha", "beta", "not", "gamma", "never", "delta"]


@st.composite
def chain_problems(draw):
    """A document, 2-4 fragments with sorted placements, allowed flags, strictness and a window."""
    words = draw(st.lists(st.sampled_from(WORDS), min_size=4, max_size=40))
    doc = build_corpus_index({"d": " ".join(words)}).docs[0]
    n = doc.n_tokens
    placements, allowed = [], []
    for _ in range(draw(st.integers(2, 4))):
        starts = sorted(draw(st.sets(st.integers(0, n - 1), min_size=1, max_size=n)))
        ends = [min(n, s + draw(st.integers(1, 3))) for s in starts]
        violations = [draw(st.sampled_from([0, 0, 1, 4])) for _ in starts]
        placements.append(Placements(starts, ends, violations))
        allowed.append([draw(st.integers(0, 3)) > 0 for _ in starts])
    strict = draw(st.booleans())
    allowed = [[ok and not (strict and bits) for ok, bits in zip(a, p.violations)] for a, p in zip(allowed, placements)]
    window = draw(st.integers(0, len(doc.original) + 5))
    return doc, placements, allowed, strict, window


@settings(max_examples=300, deadline=None)
@given(chain_problems())
def test_list_and_array_chain_programmes_agree(problem):
    doc, placements, allowed, strict, window = problem
    by_lists = chain_reference(doc, placements, allowed, strict, window)
    assert by_lists == chain(doc, placements, allowed, strict, window)
    assert by_lists == earliest_chain(doc, placements, allowed, strict, window)


@settings(max_examples=200, deadline=None)
@given(chain_problems())
def test_chain_is_in_order_without_overlap_and_in_window(problem):
    doc, placements, allowed, strict, window = problem
    found = chain(doc, placements, allowed, strict, window)
    if found is None:
        return
    for (_, end, _), (start, _, _) in zip(found, found[1:]):
        assert start >= end
        if strict:
            assert not any(end <= p < start for p in doc.negations)
    assert doc.ends[found[-1][1] - 1] - doc.starts[found[0][0]] <= window


def test_chain_without_an_allowed_placement_is_none():
    doc = build_corpus_index({"d": "alpha beta gamma delta"}).docs[0]
    placements = [Placements([0], [1], [0]), Placements([2], [3], [0])]
    assert chain_reference(doc, placements, [[False], [True]], True, 100) is None
    assert chain(doc, placements, [[False], [True]], True, 100) is None
