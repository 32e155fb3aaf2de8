"""The array rules of the tokenizer: every character classified by table, tokens found by array operations.

Why this module exists: building the corpus index normalizes every document, and
the reference tokenizer (one regular-expression match and a few Python statements
per token) runs at a few million characters per second. Here the token rules of
:mod:`claimgate.audit.text.reference` are applied to a whole folded string at once:
each character is classified by a lookup table (numpy), the characters that belong
to a word or number are found with shifted comparisons (the rule's look-behinds and
look-aheads), and the token texts come out of pyarrow buffers.

What it refuses to do: guess. The rules cover Latin, Greek, Cyrillic and the other
scripts below U+2300 written with spaces; a character of a script written without
spaces, a combining mark or anything at or above U+2300 is a fallback position
(:func:`fallback_positions`) and its text goes to the reference tokenizer. The rules
that read the original text (case, links, e-mail addresses) are in
:mod:`claimgate.audit.text.normalize`. Rules: docs/audit-rules.md, "Normalization",
"Numbers", "Symbols".
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from claimgate.audit.text.reference import _MINUS, _WORD_SPELLINGS, NO_SPACE_SCRIPT_RANGES, NUMBER_MARKS
from claimgate.audit.text.token_rules import SYMBOL_CHARS

#: Characters below this code point are classified by table; any other sends the text to the reference tokenizer.
TABLE_SIZE = 0x2300
SEPARATOR, LETTER, DIGIT, NUMBER_MARK, MINUS, SYMBOL, BANG, FALLBACK = range(8)
#: Characters whose rule reads their neighbours (applied where they stand, :func:`_context_rules`): the
#: underscore (joins two word characters), ``^`` (an exponent), ``+`` (a name suffix, an exponent's sign,
#: ``+/-``, a plus sign before a number), ``#`` (a name suffix), ``<``/``>`` (``<=``, ``>=``), ``=``.
UNDERSCORE, CARET, PLUS, HASH, COMPARE, EQUALS = range(8, 14)
_CONTEXT_CHARS = {"_": UNDERSCORE, "^": CARET, "+": PLUS, "#": HASH, "<": COMPARE, ">": COMPARE, "=": EQUALS}
_SYMBOL_CHARS = SYMBOL_CHARS  # one-character tokens (the regex's symbol class)
#: The two- and three-character symbol spellings (the reference's ``_SYMBOL_SPELLINGS``).
_PAIR_SPELLINGS = {ord("<"): "≤", ord(">"): "≥", ord("!"): "≠"}


def _character_classes() -> np.ndarray:
    """uint8 class of every code point below :data:`TABLE_SIZE` (see the constants above).

    ``@`` is a separator here: a text holding an e-mail address goes to the reference
    (:func:`claimgate.audit.text.normalize.normalized_chunk`).
    """
    no_space = re.compile(f"[{NO_SPACE_SCRIPT_RANGES}]")
    minus = set(_MINUS.replace("\\", ""))
    table = np.zeros(TABLE_SIZE, dtype=np.uint8)
    for cp in range(TABLE_SIZE):
        c = chr(cp)
        if no_space.match(c) or unicodedata.category(c).startswith("M"):
            table[cp] = FALLBACK
        elif c in _CONTEXT_CHARS:
            table[cp] = _CONTEXT_CHARS[c]
        elif c.isdecimal():  # the regex's \d
            table[cp] = DIGIT
        elif c.isalnum():  # the regex's [^\W_]
            table[cp] = LETTER
        elif c in NUMBER_MARKS:
            table[cp] = NUMBER_MARK
        elif c in minus:
            table[cp] = MINUS
        elif c in _SYMBOL_CHARS:
            table[cp] = SYMBOL
        elif c == "!":
            table[cp] = BANG
    return table


_CLASSES = _character_classes()
_E = ord("e")
_EQUALS = ord("=")
_PLUS_CP, _HASH_CP, _SLASH, _HYPHEN = ord("+"), ord("#"), ord("/"), ord("-")


def code_points(norm: str) -> np.ndarray:
    """The code points of ``norm`` as a uint8 (ASCII) or uint32 array (a copy)."""
    if norm.isascii():
        return np.frombuffer(norm.encode("ascii"), dtype=np.uint8)
    return np.frombuffer(norm.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)


def fallback_positions(cps: np.ndarray) -> np.ndarray:
    """Positions whose character the array rules do not cover (see the module docstring)."""
    if cps.dtype == np.uint8:
        return np.flatnonzero(_CLASSES[cps] == FALLBACK)
    outside = cps >= TABLE_SIZE
    cls = _CLASSES[np.where(outside, 0, cps)]
    return np.flatnonzero(outside | (cls == FALLBACK))


@dataclass
class _Context:
    """What :func:`_context_rules` adds to the word runs: split points and symbol tokens."""

    splits: list[int]  # a token ends and the next starts here (after a name suffix)
    symbols: np.ndarray  # one-character symbol tokens
    long_starts: list[int]  # symbols spelled with two or three characters ('<=', '!=', '+/-')
    long_ends: list[int]
    long_spellings: list[str]


def _context_rules(cps: np.ndarray, cls: np.ndarray, alnum: np.ndarray, in_word: np.ndarray) -> _Context:
    """The rules of ``_ ^ + # < > = !`` (the reference pattern's look-arounds), marking ``in_word`` in place.

    ``alnum``: letters and digits. Underscores and ``=``/``<``/``>`` are common and handled
    by array operations; ``^``, ``+`` and ``#`` one occurrence at a time (rare).
    """
    n = len(cls)
    unders = np.flatnonzero(cls == UNDERSCORE)
    if len(unders):  # a run of underscores between two word characters joins them ('reset_timeout')
        breaks = np.flatnonzero(np.diff(unders) > 1)
        first = unders[np.concatenate([[0], breaks + 1])]
        last = unders[np.concatenate([breaks, [len(unders) - 1]])] + 1
        ok = (first > 0) & (last < n)
        ok[ok] = alnum[first[ok] - 1] & alnum[last[ok]]
        for a, b in zip(first[ok].tolist(), last[ok].tolist(), strict=True):
            in_word[a:b] = True
    consumed: set[int] = set()
    for p in np.flatnonzero(cls == CARET).tolist():  # an exponent after a word character: '10^6', 'x^-3'
        if p == 0 or not alnum[p - 1] or p + 1 >= n:
            continue
        if cls[p + 1] == DIGIT:
            in_word[p] = True
        elif cls[p + 1] in (PLUS, MINUS) and p + 2 < n and cls[p + 2] == DIGIT:
            in_word[p] = in_word[p + 1] = True
            consumed.add(p + 1)
    splits: list[int] = []
    long_starts: list[int] = []
    long_ends: list[int] = []
    long_spellings: list[str] = []
    plus_symbols: list[int] = []

    def suffix_ends_at(q: int) -> bool:  # the name suffix's look-ahead: no letter, '+' or '#' at q
        return q >= n or not (cls[q] == LETTER or cps[q] == _PLUS_CP or cps[q] == _HASH_CP)

    for p in np.flatnonzero(cls == PLUS).tolist():
        if p in consumed:
            continue
        before = cls[p - 1] if p else SEPARATOR
        after = cls[p + 1] if p + 1 < n else SEPARATOR
        if p >= 2 and cps[p - 1] == _E and cls[p - 2] == DIGIT and after == DIGIT:  # '1e+6'
            in_word[p] = True
            continue
        if before == LETTER:  # a name suffix: 'c++', 'g+' (no letter, '+' or '#' after it)
            if after == PLUS:
                if suffix_ends_at(p + 2):
                    in_word[p] = in_word[p + 1] = True
                    consumed.add(p + 1)
                    splits.append(p + 2)
                    continue
            elif suffix_ends_at(p + 1):
                in_word[p] = True
                splits.append(p + 1)
                continue
        if p + 2 < n and cps[p + 1] == _SLASH and cps[p + 2] == _HYPHEN:  # '+/-' is '±'
            long_starts.append(p)
            long_ends.append(p + 3)
            long_spellings.append("±")
            in_word[p + 2] = False  # its minus is no sign of a number after it
            continue
        if after != DIGIT:  # before a digit '+' is a plus sign, a separator ('+2.2' states 2.2)
            plus_symbols.append(p)
    for p in np.flatnonzero(cls == HASH).tolist():  # a name suffix: 'c#', 'f#'
        if p and cls[p - 1] == LETTER and suffix_ends_at(p + 1):
            in_word[p] = True
            splits.append(p + 1)
    compare = np.flatnonzero((cls == COMPARE) | (cls == BANG))
    pairs = compare[compare + 1 < n]
    pairs = pairs[cps[pairs + 1] == _EQUALS]  # '<=', '>=', '!=' are one symbol each
    lone = np.flatnonzero(cls == EQUALS)
    if len(pairs):
        lone = lone[~np.isin(lone, pairs + 1)]
        lone_compare = compare[(cls[compare] == COMPARE) & ~np.isin(compare, pairs)]
        long_starts += pairs.tolist()
        long_ends += (pairs + 2).tolist()
        long_spellings += [_PAIR_SPELLINGS[int(cps[p])] for p in pairs.tolist()]
    else:
        lone_compare = compare[cls[compare] == COMPARE]
    symbols = np.concatenate(
        [np.flatnonzero(cls == SYMBOL), lone, lone_compare, np.asarray(plus_symbols, dtype=np.int64)]
    )
    return _Context(splits, symbols, long_starts, long_ends, long_spellings)


def _tokens(cps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, dict[int, str]]:
    """``(starts, ends, kept, spelled)``: token bounds, a bool mask of the characters that are token text,
    and start position -> text of the symbols spelled with more than one character (``<=`` is ``≤``)."""
    cls = _CLASSES[cps]
    n = len(cls)
    in_word = (cls - LETTER) < 2  # a letter or a digit (uint8: SEPARATOR wraps to 255)
    alnum = in_word.copy()
    # Number marks and minus signs are rare: their rules (tests of the two neighbours
    # only, as in the regex's look-behinds and look-aheads) are applied where they stand.
    marks = np.flatnonzero((cls == NUMBER_MARK) | (cls == MINUS))
    marks = marks[(marks > 0) & (marks < n - 1)] if len(marks) else marks
    if len(marks):
        before, after = cls[marks - 1], cls[marks + 1]
        is_minus = cls[marks] == MINUS
        two_back = np.where(marks >= 2, cls[np.maximum(marks - 2, 0)], SEPARATOR)
        after_digit_e = (cps[marks - 1] == _E) & (two_back == DIGIT) & (marks >= 2)
        joined = (after == DIGIT) & np.where(is_minus, after_digit_e | ((before - LETTER) >= 2), before == DIGIT)
        in_word[marks[joined]] = True
    first = np.flatnonzero(cls[:1] == MINUS)  # a minus opening the text, before a digit
    if len(first) and n > 1 and cls[1] == DIGIT:
        in_word[0] = True
    context = _context_rules(cps, cls, alnum, in_word) if (cls >= UNDERSCORE).any() else None
    edges = np.flatnonzero(np.diff(in_word.view(np.int8))) + 1
    if n and in_word[0]:
        edges = np.concatenate([[0], edges])
    if n and in_word[-1]:
        edges = np.concatenate([edges, [n]])
    starts, ends = edges[0::2], edges[1::2]
    symbols = np.flatnonzero(cls == SYMBOL) if context is None else context.symbols
    if context is None and len(symbols) == 0:
        return starts, ends, in_word, {}
    pieces_s, pieces_e = [starts, symbols], [ends, symbols + 1]
    if context is not None:
        splits = np.asarray([q for q in context.splits if q < n and in_word[q] and in_word[q - 1]], dtype=np.int64)
        long_starts = np.asarray(context.long_starts, dtype=np.int64)
        pieces_s += [splits, long_starts]
        pieces_e += [splits, np.asarray(context.long_ends, dtype=np.int64)]
        in_word[long_starts] = True
    in_word[symbols] = True
    starts, ends = np.concatenate(pieces_s), np.concatenate(pieces_e)
    order = np.argsort(starts, kind="stable")
    # Tokens never overlap: ends follow the order of starts, except that a split's end closes the token before it.
    starts, ends = starts[order], (np.sort(ends, kind="stable") if context is not None and len(splits) else ends[order])
    spelled = {} if context is None else dict(zip(context.long_starts, context.long_spellings, strict=True))
    return starts, ends, in_word, spelled


#: ``(code point, its spelling's code point)`` of the word spellings unified in tokens.
_RESPELLINGS = np.array([[cp, ord(spelling)] for cp, spelling in _WORD_SPELLINGS.items()], dtype=np.uint32)


def token_array(
    cps: np.ndarray, starts: np.ndarray, ends: np.ndarray, kept: np.ndarray, spelled: dict[int, str] | None = None
) -> pa.LargeStringArray:
    """The tokens as a pyarrow string array built from buffers (no Python string per token).

    Each token is the ``kept`` characters of ``starts[i]:ends[i]``, word spellings unified
    (minus signs as ``-``, ``’`` as ``'``), or ``spelled[start]`` for a symbol written with
    more than one character (``<=`` is ``≤``; keyed by its start position).
    """
    chars = cps[kept]
    lengths = ends - starts
    if spelled:  # a symbol spelled with more characters keeps one of them (its start), spelled again below
        lengths[np.searchsorted(starts, sorted(spelled))] = 1
    char_offsets = np.concatenate([[0], np.cumsum(lengths)])
    if cps.dtype == np.uint8:
        data = chars.tobytes()
        offsets = char_offsets
    else:  # the characters outside ASCII (few) are respelled and counted where they stand
        chars = chars.astype(np.uint32)
        wide = np.flatnonzero(chars >= 0x80)
        sub = chars[wide]
        for code, spelling in _RESPELLINGS:
            sub[sub == code] = spelling
        chars[wide] = sub
        data = chars.tobytes().decode("utf-32-le", "surrogatepass").encode("utf-8", "surrogatepass")
        extra = (sub >= 0x80).astype(np.int64) + (sub >= 0x800) + (sub >= 0x10000)  # UTF-8 bytes beyond one
        extra_before = np.concatenate([[0], np.cumsum(extra)])
        offsets = char_offsets + extra_before[np.searchsorted(wide, char_offsets)]
    out = pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets.astype(np.int64)), pa.py_buffer(data))
    if spelled:
        positions = sorted(spelled)
        out = strings_replaced(out, np.searchsorted(starts, positions), [spelled[q] for q in positions])
    return out


def strings_replaced(strings: pa.LargeStringArray, at: np.ndarray, values: list[str]) -> pa.LargeStringArray:
    """``strings`` (offset 0, no nulls) with ``strings[at[i]]`` replaced by ``values[i]`` (``at`` ascending).

    Rebuilds the two buffers with numpy (``pyarrow.compute.replace_with_mask`` takes far longer here).
    """
    offsets = np.frombuffer(strings.buffers()[1], dtype=np.int64)[: len(strings) + 1]
    data = np.frombuffer(strings.buffers()[2], dtype=np.uint8) if strings.buffers()[2] else np.empty(0, np.uint8)
    encoded = [v.encode("utf-8") for v in values]
    lengths = np.diff(offsets)
    lengths[at] = [len(b) for b in encoded]
    parts, prev = [], 0
    for p, b in zip(at.tolist(), encoded, strict=True):
        parts += [data[prev : offsets[p]], np.frombuffer(b, dtype=np.uint8)]
        prev = offsets[p + 1]
    parts.append(data[prev : offsets[-1]])
    new_offsets = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    new_data = np.concatenate(parts) if parts else data
    return pa.LargeStringArray.from_buffers(len(strings), pa.py_buffer(new_offsets), pa.py_buffer(new_data))
