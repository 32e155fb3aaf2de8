"""Quotes normalized once per run, many at a time: a bounded memo of normalized texts.

Why this module exists: a quote is normalized by the quote parser (once per reading of
its marks) and again by the diagnosis; one at a time the reference tokenizer
(:func:`claimgate.audit.text.reference.normalize_text_reference`) costs about 40 µs per
quote of 90 characters. :func:`remember` normalizes a batch of quotes at once with the
array rules (:func:`claimgate.audit.text.normalize.normalized_chunk`, about 10 µs a
quote), and :func:`normalized` answers from the memo, falling back to the reference
tokenizer for a text it does not hold.

What it refuses to do: change a value. The array rules give the reference's tokens,
offsets and joins on every text they cover (tests/audit/text/test_normalize_equals_reference.py),
a text they leave out is not remembered (the reference normalizes it when asked), and
a hit is the value computed for that very string (tests/audit/text/test_memo.py). The
memo holds at most :data:`MEMO_TEXTS` texts (the oldest go first) and no state that a
result depends on. Rules: docs/audit-rules.md, "Normalization".
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Sequence

from claimgate.audit.text.normalize import normalized_chunk
from claimgate.audit.text.reference import NormalizedText, normalize_text_reference

#: Texts the memo holds at most (about 2 KB each for a quote of 100 characters).
MEMO_TEXTS = 1 << 14
#: Characters of text the memo holds at most, all entries together (its size grows with them: a token of a
#: held text costs about 150 bytes): a run of long quotes evicts the oldest instead of growing without bound.
MEMO_CHARS = 1 << 22
#: Texts normalized together by one :func:`remember` step (a run of quotes is a few hundred KB).
BATCH_TEXTS = 4096
#: Longer texts are not normalized ahead by :func:`remember` (a quote is at most 65,536 characters,
#: ``io.tables.MAX_QUOTE_CHARS``; a longer one is refused unread): :func:`normalized` computes them if asked.
REMEMBER_MAX_CHARS = 1 << 16

_memo: dict[str, NormalizedText] = {}
_held = [0]  # characters of the texts in _memo
_lock = threading.Lock()  # threads of one process (an executor's) share the memo


def _keep(text: str, value: NormalizedText) -> None:
    with _lock:
        if text in _memo:
            return
        while _memo and (len(_memo) >= MEMO_TEXTS or _held[0] + len(text) > MEMO_CHARS):
            oldest = next(iter(_memo))  # dicts keep insertion order
            del _memo[oldest]
            _held[0] -= len(oldest)
        if len(text) <= MEMO_CHARS:
            _memo[text] = value
            _held[0] += len(text)


def normalized(text: str) -> NormalizedText:
    """``normalize_text_reference(text)``, from the memo when :func:`remember` (or an earlier call) put it there.

    Raises ``TypeError`` on non-``str`` input, like the reference.
    """
    hit = _memo.get(text) if isinstance(text, str) else None
    if hit is None:
        hit = normalize_text_reference(text)
        _keep(text, hit)
    return hit


def remember(texts: Iterable[object]) -> int:
    """Normalize the ``str`` items of ``texts`` not yet held, :data:`BATCH_TEXTS` at a time, into the memo.

    Items that are not ``str``, and texts over :data:`REMEMBER_MAX_CHARS`, are skipped. Returns how many
    texts were normalized by the array rules; a text they leave to the reference
    tokenizer is not held (``normalized`` computes it when asked).
    """
    fresh = list(
        dict.fromkeys(t for t in texts if isinstance(t, str) and len(t) <= REMEMBER_MAX_CHARS and t not in _memo)
    )
    done = 0
    for lo in range(0, len(fresh), BATCH_TEXTS):
        batch = fresh[lo : lo + BATCH_TEXTS]
        chunk = normalized_chunk(batch)
        tokens, starts, ends = chunk.tokens.to_pylist(), chunk.starts.tolist(), chunk.ends.tolist()
        first = chunk.first.tolist()
        for k, text in enumerate(batch):
            if k in chunk.reference:
                continue
            a, b = first[k], first[k + 1]
            joins = tuple(chunk.joins.get(k, ()))
            _keep(text, NormalizedText(text, tuple(tokens[a:b]), tuple(starts[a:b]), tuple(ends[a:b]), joins))
            done += 1
    return done


def remember_batch_of(texts: Sequence[object], position: int, remembered: set[int]) -> None:
    """:func:`remember` the :data:`BATCH_TEXTS`-aligned block of ``texts`` that holds ``position``, unless
    ``remembered`` (the caller's set of block starts, updated here) says it was done. For a loop that may run
    over its texts in any order of blocks (``runtime.rows_ahead``: a helper goes from the last back).

    A table longer than the memo (100,000 citations against :data:`MEMO_TEXTS`) remembered at once kept only
    its last texts by the time the loop read the first, which were then normalized again one by one; a block
    at a time, the texts about to be read are held. Non-``str`` items (a refused row: ``None``) are skipped.
    """
    start = position - position % BATCH_TEXTS
    if start not in remembered:
        remembered.add(start)
        remember(texts[start : start + BATCH_TEXTS])


def forget() -> None:
    """Empty the memo (tests; a long-lived process never needs to: it is bounded)."""
    with _lock:
        _memo.clear()
        _held[0] = 0
