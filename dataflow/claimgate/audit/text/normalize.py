"""Normalization of whole runs of documents: the array rules plus the rules that read the original text.

Why this module exists: building the corpus index normalizes every document, and the
reference tokenizer (:mod:`claimgate.audit.text.reference`, one regular-expression match
and a few Python statements per token) runs at a few million characters per second. Here
a run of documents is folded, joined by NUL and tokenized by the array rules
(:mod:`claimgate.audit.text.array_rules`); links are placed as one token each
(:func:`link_spans`) and the case rule is applied to the few words whose case may carry
meaning (:func:`_case_kept`, with the reference's own function), so real English
documents (mixed-case names, ``#``, ``@``, URLs, ``<=``, underscores) stay on this path.

What it refuses to do: guess. A document holding a character the array rules do not
classify (a combining mark, a script written without spaces, anything at or above
U+2300), a soft hyphen, an e-mail address or a link it cannot place goes to the
reference tokenizer whole. Equality with
:func:`claimgate.audit.text.reference.normalize_text_reference` (tokens, offsets, joins) is
checked by property tests on random text, on texts made of what real documents hold and
on real docstrings (tests/audit/text/test_normalize_equals_reference.py). Rules:
docs/audit-rules.md, "Normalization", "Numbers", "Case".
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import pyarrow as pa

from claimgate.audit.text.array_rules import (
    TABLE_SIZE,
    _tokens,
    code_points,
    fallback_positions,
    strings_replaced,
    token_array,
)
from claimgate.audit.text.reference import (
    _LINE_BREAK,
    _LINE_END_HYPHEN_RE,
    NormalizedText,
    _cased,
    folded_pieces,
    normalize_text_reference,
)
from claimgate.audit.text.token_rules import EMAIL, URL

#: Bump when the tokens, offsets or joins of any text could change: the on-disk
#: index cache (:mod:`claimgate.audit.index.cache`) is keyed by it.
#: 2: negator lists of more languages; unlisted scripts stop an elision. 3: symbols, case, fractions, digits.
NORMALIZER_VERSION = 3


def normalize_text(text: str) -> NormalizedText:
    """The array rules' :func:`claimgate.audit.text.reference.normalize_text_reference`: the same value for every text.

    Falls back to the reference tokenizer for a text the array rules do not cover
    (see the module docstring). Raises ``TypeError`` on non-``str`` input, like the reference.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalize_text expects str, got {type(text).__name__}")
    chunk = normalized_chunk([text])
    if chunk.reference:
        return normalize_text_reference(text)
    joins = tuple(chunk.joins.get(0, ()))
    tokens = tuple(chunk.tokens.to_pylist())
    return NormalizedText(text, tokens, tuple(chunk.starts.tolist()), tuple(chunk.ends.tolist()), joins)


_EMAIL_RE = re.compile(EMAIL)
_URL_RE = re.compile(URL)
_RESPELLED = frozenset("\u2010\u2011\u2012\u2013\u2212\ufe63\u2019\u2044")
#: ``str.isdigit`` of every code point the table covers (a token ending in one is a number for the case rule).
_ISDIGIT = np.array([chr(cp).isdigit() for cp in range(TABLE_SIZE)], dtype=bool)
#: ASCII characters that are not white space (index 128: any other character, which may be).
_SOLID = np.array([cp < 128 and not chr(cp).isspace() for cp in range(129)], dtype=bool)


def needs_reference(text: str, norm: str) -> bool:
    """Does ``text`` (folded: ``norm``) hold a token whose rule the array rules do not apply?

    A soft hyphen (its breaks are deleted before tokens are read) or an e-mail address
    (one token, :data:`claimgate.audit.text.token_rules.EMAIL`; a superset test: any match
    anywhere). Links and case are applied here (:func:`link_spans`, :func:`_case_kept`).
    """
    return "\u00ad" in text or ("@" in norm and _EMAIL_RE.search(norm) is not None)


def link_spans(norm: str) -> list[tuple[int, int]] | None:
    """The URL tokens of one folded text as ``(start, end)`` offsets into ``norm``, or ``None``.

    ``None`` when a match might not be read as a link by the reference tokenizer (it
    starts inside a word: right after a letter or digit, or after underscores that follow
    one), when a rule before it reads its first letter (``c+http://``), or when it holds a
    character that words respell (a minus sign, ``’``): that text goes to the reference.
    Rules: docs/audit-rules.md, "Symbols" (links are one token).
    """
    spans: list[tuple[int, int]] = []
    for m in _URL_RE.finditer(norm):
        start = m.start()
        before = start
        while before and norm[before - 1] == "_":
            before -= 1
        if (start and norm[start - 1].isalnum()) or (before < start and before and norm[before - 1].isalnum()):
            return None
        if start and norm[start - 1] in "+#":  # a name suffix's look-ahead reads the link's first letter
            return None
        if not _RESPELLED.isdisjoint(m.group()):
            return None
        spans.append(m.span())
    return spans


def _holding(positions: np.ndarray, lo: np.ndarray, hi: np.ndarray, reach: int = 1) -> np.ndarray:
    """Per token (``lo``/``hi``: ascending spans): does it hold ``positions[i] .. positions[i] + reach - 1``, some i?"""
    at = np.searchsorted(lo, positions, "right") - 1
    inside = (at >= 0) & (positions + reach <= hi[np.maximum(at, 0)])
    out = np.zeros(len(lo), dtype=bool)
    out[at[inside]] = True
    return out


def _in_range(values: np.ndarray, least: int, most: int) -> np.ndarray:
    """``least <= values <= most``, element-wise (any unsigned dtype: compared as int64)."""
    wide = values.astype(np.int64)
    return (wide >= least) & (wide <= most)


def _only_blanks_between(ocp: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Per ``i``: is ``ocp[starts[i]:ends[i]]`` free of ASCII characters that are not white space?

    (A character outside ASCII may be white space: a superset test, decided again by the case rule.)
    """
    gaps = np.maximum(ends - starts, 0)  # tokens of a folded text may overlap in the original: no gap
    total = int(gaps.sum())
    if total == 0:
        return np.ones(len(gaps), dtype=bool)
    owner = np.repeat(np.arange(len(gaps)), gaps)
    at = np.repeat(starts - (np.cumsum(gaps) - gaps), gaps) + np.arange(total)
    solid = np.bincount(owner, weights=_SOLID[np.minimum(ocp[at], 128)], minlength=len(gaps))
    return solid == 0


def _with_original_case(tokens: pa.LargeStringArray, at: np.ndarray, lo: np.ndarray, ocp: np.ndarray):
    """``tokens`` with ``tokens[at]`` spelled as their original characters ``ocp[lo[p]:...]`` (ASCII: the same bytes,
    only their case differs, so the offsets stay)."""
    if not len(at):
        return tokens
    offsets = np.frombuffer(tokens.buffers()[1], dtype=np.int64)[: len(tokens) + 1]
    data = np.frombuffer(tokens.buffers()[2], dtype=np.uint8).copy()
    lengths = offsets[at + 1] - offsets[at]
    within = np.arange(int(lengths.sum()), dtype=np.int64) - np.repeat(np.cumsum(lengths) - lengths, lengths)
    data[np.repeat(offsets[at], lengths) + within] = ocp[np.repeat(lo[at], lengths) + within]
    return pa.LargeStringArray.from_buffers(len(tokens), tokens.buffers()[1], pa.py_buffer(data))


def _case_kept(tokens: pa.Array, chunk: NormalizedChunk, norm_cps: np.ndarray, norm_ends: np.ndarray, links):
    """``tokens`` with the case of the words whose case carries meaning (the reference's ``_cased``).

    Only words that may keep their case are looked at: an ASCII word holding a capital
    and a mixed-case pair, a digit, or directly after a number; any word holding a
    character outside ASCII. A word of an ASCII document holding a mixed-case pair
    (``readTimeout``, ``HTTPServer``) keeps its case as written (the rule's first case)
    without a Python call; the others go through the reference's own function. Links
    (``links``: token positions) keep none. Rules: docs/audit-rules.md, "Case".
    """
    originals, local_doc, first = chunk.originals, chunk.local_doc, chunk.first
    if not len(tokens):
        return tokens
    ocp = code_points("\x00".join(originals))
    lens = np.fromiter(map(len, originals), dtype=np.int64, count=len(originals))
    obases = np.concatenate([[0], np.cumsum(lens + 1)[:-1]])
    lo = chunk.starts.astype(np.int64) + obases[local_doc]
    hi = chunk.ends.astype(np.int64) + obases[local_doc]
    upper = (ocp - 65).astype(np.uint8) < 26 if ocp.dtype == np.uint8 else (ocp - 65) < 26
    capitals = np.flatnonzero(upper)
    capital = _holding(capitals, lo, hi)
    maybe = np.zeros(len(lo), dtype=bool)
    mixed = np.zeros(len(lo), dtype=bool)
    if capital.any():  # the mixed-case pairs are read next to the capitals only
        n = len(ocp)
        pair = capitals[capitals > 0] - 1
        pair = pair[_in_range(ocp[pair], 97, 122)]  # 'aB'
        triple = capitals[capitals + 2 < n]
        triple = triple[_in_range(ocp[triple + 1], 65, 90) & _in_range(ocp[triple + 2], 97, 122)]  # 'ABc'
        mixed = _holding(pair, lo, hi, 2) | _holding(triple, lo, hi, 3)
        maybe = mixed | _holding(np.flatnonzero((ocp - 48) < 10), lo, hi)
        last = norm_cps[np.maximum(norm_ends - 1, 0)].astype(np.int64)
        ends_in_digit = np.where(last < TABLE_SIZE, _ISDIGIT[np.minimum(last, TABLE_SIZE - 1)], False)
        # after a number: white space only between (a character outside ASCII may be white space)
        after = np.flatnonzero(ends_in_digit[:-1] & (local_doc[1:] == local_doc[:-1]) & capital[1:]) + 1
        maybe[after[_only_blanks_between(ocp, hi[after - 1], lo[after])]] = True
        maybe &= capital
    if ocp.dtype != np.uint8:
        maybe |= _holding(np.flatnonzero(ocp >= 128), lo, hi)
    if len(links):
        maybe[links] = False
    # a mixed-case word of an ASCII document is its original text (token_rules.keeps_case's first case)
    ascii_doc = np.fromiter(map(str.isascii, originals), dtype=bool, count=len(originals))
    as_written = maybe & mixed & ascii_doc[local_doc]
    tokens = _with_original_case(tokens, np.flatnonzero(as_written), lo, ocp)
    at = np.flatnonzero(maybe & ~as_written)
    if not len(at):
        return tokens
    words = tokens.take(pa.array(at)).to_pylist()
    before = tokens.take(pa.array(np.maximum(at - 1, 0))).to_pylist()
    changed: dict[int, str] = {}
    starts, ends = chunk.starts, chunk.ends
    for p, word, previous in zip(at.tolist(), words, before, strict=True):
        k = int(local_doc[p])
        text, start = originals[k], int(starts[p])
        after_number = p > first[k] and previous[-1:].isdigit() and not text[int(ends[p - 1]) : start].strip()
        kept = _cased_once(word, text[start : int(ends[p])], after_number)
        if kept != word:
            changed[p] = kept
    if not changed:
        return tokens
    at = sorted(changed)
    return strings_replaced(tokens, np.asarray(at, dtype=np.int64), [changed[p] for p in at])


#: The reference's case rule, remembered: real documents repeat their identifiers (``DataFrame``).
_cased_once = lru_cache(maxsize=1 << 16)(_cased)


@dataclass
class NormalizedChunk:
    """A run of documents normalized together: every token with its document and original offsets.

    ``tokens`` (pyarrow strings) in document order; ``local_doc`` (int64) the document
    of each token within the chunk; ``first`` (int64, one more than documents) the
    first token of each; ``starts``/``ends`` (int32) original character offsets;
    ``joins``: local document -> its line-end-hyphen joins (token positions in it);
    ``reference``: local documents the array rules do not cover (no tokens here).
    """

    originals: list[str]
    tokens: pa.Array
    local_doc: np.ndarray
    first: np.ndarray
    starts: np.ndarray
    ends: np.ndarray
    joins: dict[int, list[int]]
    reference: set[int]


def _links_blanked(norms: list[str], bases: np.ndarray, cps: np.ndarray, reference: set[int]):
    """Blank the URL tokens in ``cps`` (chunk-wide code points); returns their ``(starts, ends, code points)``.

    A document whose links the array rules cannot place goes into ``reference``.
    """
    spans: list[tuple[int, int]] = []
    for local, norm in enumerate(norms):
        if "://" in norm:
            found = link_spans(norm)
            if found is None:
                reference.add(local)
            else:
                spans += [(int(bases[local]) + s, int(bases[local]) + e) for s, e in found]
    saved = []
    for s, e in spans:
        saved.append(cps[s:e].copy())
        cps[s:e] = 32
    return spans, saved


def normalized_chunk(originals: list[str]) -> NormalizedChunk:
    """Normalize a run of documents at once; equal to the reference tokenizer on each document it covers.

    The documents' folded texts are joined by NUL (a separator no rule reads across: no
    line break, letter or digit) and tokenized by the array rules
    (:mod:`claimgate.audit.text.array_rules`); links are blanked first and put back as
    one token each, and the case rule is applied to the words that may keep their case.
    A document holding a fallback character, a soft hyphen, an e-mail address or a link
    the rules cannot place is left out (``reference``, no tokens) for the reference tokenizer.
    """
    folded = [(t.lower(), None, None) if t.isascii() else folded_with_maps(t) for t in originals]
    norms = [f[0] for f in folded]
    joined_text = "\x00".join(norms)
    lengths = np.fromiter(map(len, norms), dtype=np.int64, count=len(norms))
    bases = np.concatenate([[0], np.cumsum(lengths + 1)[:-1]])
    cps = code_points(joined_text).copy()
    reference: set[int] = set()
    spans, saved = _links_blanked(norms, bases, cps, reference) if "://" in joined_text else ([], [])
    bad = fallback_positions(cps)
    if len(bad):
        reference |= set(np.unique(np.searchsorted(bases, bad, "right") - 1).tolist())
    reference |= {local for local, t in enumerate(originals) if needs_reference(t, norms[local])}
    for local in reference:  # blank those documents: the reference path tokenizes them
        cps[bases[local] : bases[local] + lengths[local]] = 0
    starts, ends, kept, spelled = _tokens(cps)
    links = np.empty(0, dtype=np.int64)
    if spans:
        doc_of = np.searchsorted(bases, [s for s, _ in spans], "right") - 1
        keep = [i for i, k in enumerate(doc_of.tolist()) if k not in reference]
        link_starts = np.asarray([spans[i][0] for i in keep], dtype=np.int64)
        link_ends = np.asarray([spans[i][1] for i in keep], dtype=np.int64)
        for i in keep:
            s, e = spans[i]
            cps[s:e] = saved[i]
            kept[s:e] = True
        at = np.searchsorted(starts, link_starts)
        starts, ends = np.insert(starts, at, link_starts), np.insert(ends, at, link_ends)
        links = at + np.arange(len(at))
    tokens = token_array(cps, starts, ends, kept, spelled)
    del kept
    local_doc = np.searchsorted(bases, starts, "right") - 1
    counts = np.bincount(local_doc, minlength=len(originals))
    first = np.concatenate([[0], np.cumsum(counts)])
    orig_starts = starts - bases[local_doc]
    orig_ends = ends - bases[local_doc]
    for local, (_, src_start, src_end) in enumerate(folded):
        if src_start is not None and local not in reference and counts[local]:
            span = slice(first[local], first[local + 1])
            orig_ends[span] = src_end[orig_ends[span] - 1]
            orig_starts[span] = src_start[orig_starts[span]]
    joins: dict[int, list[int]] = {}
    if "-" in joined_text or "\u2010" in joined_text:
        for m in line_end_hyphens(joined_text, np.flatnonzero((cps == 45) | (cps == 0x2010)).tolist()):
            left = int(np.searchsorted(ends, m.start()))
            if left + 1 < len(ends) and ends[left] == m.start() and starts[left + 1] == m.end():
                local = int(local_doc[left])
                if local not in reference:
                    joins.setdefault(local, []).append(left - int(first[local]))
    chunk = NormalizedChunk(
        originals, tokens, local_doc, first, orig_starts.astype(np.int32), orig_ends.astype(np.int32), joins, reference
    )
    chunk.tokens = _case_kept(tokens, chunk, cps, ends, links)
    return chunk


_HYPHEN_AT_BREAK_RE = re.compile(rf"[\-\u2010](?=[ \t]*{_LINE_BREAK}|[ \t])")


def line_end_hyphens(norm: str, hyphens: list[int] | None = None) -> Iterator[re.Match]:
    """The matches of ``normalize._LINE_END_HYPHEN_RE`` in ``norm``, tried at its hyphens only.

    The same matches as ``_LINE_END_HYPHEN_RE.finditer(norm)`` (each starts at its
    hyphen and holds no other), without trying the pattern's look-behind at every
    position. ``hyphens``: the positions of ``-`` and U+2010 in ``norm`` when known.
    """
    if hyphens is None:
        hyphens = [m.start() for m in _HYPHEN_AT_BREAK_RE.finditer(norm)]
    for at in hyphens:
        full = _LINE_END_HYPHEN_RE.match(norm, at)
        if full is not None:
            yield full


def folded_with_maps(text: str) -> tuple[str, np.ndarray | None, np.ndarray | None]:
    """``normalize._normalized_string(text)`` with its offset maps as int64 arrays (built by numpy)."""
    if text.isascii():
        return text.lower(), None, None
    parts, starts, ends, lengths, char_for_char = [], [], [], [], []
    for folded, s, e, one_to_one in folded_pieces(text):
        parts.append(folded)
        starts.append(s)
        ends.append(e)
        lengths.append(len(folded))
        char_for_char.append(one_to_one)
    lens = np.asarray(lengths, dtype=np.int64)
    first = np.cumsum(lens) - lens
    s_arr = np.asarray(starts, dtype=np.int64)
    one_to_one = np.repeat(np.asarray(char_for_char, dtype=bool), lens)
    position = np.arange(int(lens.sum()), dtype=np.int64)
    src_start = np.where(one_to_one, np.repeat(s_arr - first, lens) + position, np.repeat(s_arr, lens))
    src_end = np.where(one_to_one, src_start + 1, np.repeat(np.asarray(ends, dtype=np.int64), lens))
    return "".join(parts), src_start, src_end
