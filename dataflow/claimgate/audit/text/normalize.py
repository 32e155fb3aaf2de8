"""Normalization on arrays: the token rules of :mod:`claimgate.audit.text.reference` as array operations.

Why this module exists: building the corpus index normalizes every document, and
the reference tokenizer (one regular-expression match and a few Python statements
per token) runs at a few million characters per second. Here the same rules are
applied to a whole normalized string at once: each character is classified by a
lookup table (numpy), the characters that belong to a word or number are found
with shifted comparisons (the rule's look-behinds and look-aheads), and the token
texts come out of one ``str.split`` over a copy of the string with every other
character blanked.

What it refuses to do: guess. The array rules cover Latin, Greek, Cyrillic and
the other scripts below U+2300 written with spaces; a text holding any character
whose rule needs more context (``< > = ^ _ +``, ``!=``, a combining mark, a
character of a script written without spaces, anything at or above U+2300) is
handed back (``None``) and the caller uses the reference tokenizer. Equality with
:func:`claimgate.audit.text.reference.normalize_text_reference` (tokens, offsets, joins) is checked
by property tests on random text (tests/audit/text/test_normalize_equals_reference.py). Rules:
docs/audit-rules.md, "Normalization" and "Numbers".
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

import numpy as np
import pyarrow as pa

from claimgate.audit.text.reference import (
    _LINE_BREAK,
    _LINE_END_HYPHEN_RE,
    _MINUS,
    _WORD_SPELLINGS,
    NO_SPACE_SCRIPT_RANGES,
    NUMBER_MARKS,
    NormalizedText,
    _normalized_string,
    _unfolded,
    folded_pieces,
    normalize_text_reference,
)
from claimgate.audit.text.token_rules import SYMBOL_CHARS, may_keep_case

#: Bump when the tokens, offsets or joins of any text could change: the on-disk
#: index cache (:mod:`claimgate.audit.index.cache`) is keyed by it.
#: 2: negator lists of more languages; unlisted scripts stop an elision. 3: symbols, case, fractions, digits.
NORMALIZER_VERSION = 3

#: Characters below this code point are classified by table; any other sends the text to the reference tokenizer.
TABLE_SIZE = 0x2300
SEPARATOR, LETTER, DIGIT, NUMBER_MARK, MINUS, SYMBOL, BANG, FALLBACK = range(8)
#: Their rules (two-character symbols, exponents, underscores, name suffixes, e-mail addresses) need the reference.
_FALLBACK_CHARS = "<>=^_+#@"
_SYMBOL_CHARS = SYMBOL_CHARS  # one-character tokens (the regex's symbol class; "<>=+" fall back)


def _character_classes() -> np.ndarray:
    """uint8 class of every code point below :data:`TABLE_SIZE` (see the constants above)."""
    no_space = re.compile(f"[{NO_SPACE_SCRIPT_RANGES}]")
    minus = set(_MINUS.replace("\\", ""))
    table = np.zeros(TABLE_SIZE, dtype=np.uint8)
    for cp in range(TABLE_SIZE):
        c = chr(cp)
        if c in _FALLBACK_CHARS or no_space.match(c) or unicodedata.category(c).startswith("M"):
            table[cp] = FALLBACK
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


def code_points(norm: str) -> np.ndarray:
    """The code points of ``norm`` as a uint8 (ASCII) or uint32 array (a copy)."""
    if norm.isascii():
        return np.frombuffer(norm.encode("ascii"), dtype=np.uint8)
    return np.frombuffer(norm.encode("utf-32-le"), dtype=np.uint32)


def fallback_positions(cps: np.ndarray) -> np.ndarray:
    """Positions whose character the array rules do not cover (see the module docstring)."""
    if cps.dtype == np.uint8:
        cls = _CLASSES[cps]
        outside = np.zeros(len(cps), dtype=bool)
    else:
        outside = cps >= TABLE_SIZE
        cls = _CLASSES[np.where(outside, 0, cps)]
    bad = outside | (cls == FALLBACK)
    bang = np.flatnonzero(cls[:-1] == BANG)
    if len(bang):
        bad[bang[cps[bang + 1] == _EQUALS]] = True  # '!=' is the symbol '≠'
    return np.flatnonzero(bad)


def token_bounds(cps: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(starts, ends)``: int64 positions of the tokens of a covered string (``ends`` one past the last).

    ``cps`` must hold no position of :func:`fallback_positions`. A word or number is
    a maximal run of: letters and digits; a number mark between two digits
    (``12,500``); a minus between a digit-and-``e`` and a digit (``1e-6``); a minus
    directly before a digit and not directly after a letter or digit (``-4``). Each
    symbol character (``%``) is a token of its own.
    """
    starts, ends, _ = _tokens(cps)
    return starts, ends


def _tokens(cps: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(starts, ends, kept)``: token bounds and a bool mask of the characters inside a token."""
    cls = _CLASSES[cps]
    n = len(cls)
    in_word = (cls - LETTER) < 2  # a letter or a digit (uint8: SEPARATOR wraps to 255)
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
    edges = np.flatnonzero(np.diff(in_word.view(np.int8))) + 1
    if n and in_word[0]:
        edges = np.concatenate([[0], edges])
    if n and in_word[-1]:
        edges = np.concatenate([edges, [n]])
    starts, ends = edges[0::2], edges[1::2]
    symbols = np.flatnonzero(cls == SYMBOL)
    if len(symbols) == 0:
        return starts, ends, in_word
    in_word[symbols] = True
    starts = np.concatenate([starts, symbols])
    order = np.argsort(starts, kind="stable")
    return starts[order], np.concatenate([ends, symbols + 1])[order], in_word


def token_texts(cps: np.ndarray, starts: np.ndarray, kept: np.ndarray) -> list[str]:
    """The token strings (``kept`` characters split at ``starts``), word spellings unified; one ``str.split``."""
    if len(starts) == 0:
        return []
    blanked = np.where(kept, cps, 32).astype(cps.dtype)
    spaced = np.insert(blanked, starts, 32)  # a blank before every token, so touching tokens ('25%') split apart
    if cps.dtype == np.uint8:
        return spaced.tobytes().decode("ascii").split()
    return spaced.tobytes().decode("utf-32-le").translate(_WORD_SPELLINGS).split()


#: ``(code point, its spelling's code point)`` of the word spellings unified in tokens.
_RESPELLINGS = np.array([[cp, ord(spelling)] for cp, spelling in _WORD_SPELLINGS.items()], dtype=np.uint32)


def token_array(cps: np.ndarray, starts: np.ndarray, ends: np.ndarray, kept: np.ndarray) -> pa.StringArray:
    """The tokens as a pyarrow string array built from buffers (no Python string per token).

    The same strings as :func:`token_texts`: the ``kept`` characters of each
    ``starts[i]:ends[i]``, word spellings unified (minus signs as ``-``, ``’`` as ``'``).
    """
    chars = cps[kept]
    if cps.dtype == np.uint8:
        data = chars.tobytes()
        offsets = np.concatenate([[0], np.cumsum(ends - starts)]).astype(np.int64)
    else:
        chars = chars.astype(np.uint32)
        for code, spelling in _RESPELLINGS:
            chars[chars == code] = spelling
        data = chars.tobytes().decode("utf-32-le").encode("utf-8", "surrogatepass")
        width = 1 + (chars >= 0x80) + (chars >= 0x800) + (chars >= 0x10000)
        char_offsets = np.concatenate([[0], np.cumsum(ends - starts)])
        byte_ends = np.concatenate([[0], np.cumsum(width, dtype=np.int64)])
        offsets = byte_ends[char_offsets]
    return pa.LargeStringArray.from_buffers(len(starts), pa.py_buffer(offsets.astype(np.int64)), pa.py_buffer(data))


def normalize_text(text: str) -> NormalizedText:
    """The array rules' :func:`claimgate.audit.text.reference.normalize_text_reference`: the same value for every text.

    Falls back to the reference tokenizer for a text the array rules do not cover
    (see the module docstring). Raises ``TypeError`` on non-``str`` input, like the reference.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalize_text expects str, got {type(text).__name__}")
    norm, src_start, src_end = _normalized_string(text)
    cps = code_points(norm)
    if len(fallback_positions(cps)) or needs_reference(text, norm):
        return normalize_text_reference(text)
    starts, ends, kept = _tokens(cps)
    tokens = token_texts(cps, starts, kept)
    joins = line_end_joins(norm, starts, ends)
    if src_start is not None:
        starts = np.frombuffer(src_start, dtype=np.int32)[starts]
        ends = np.frombuffer(src_end, dtype=np.int32)[ends - 1]
    return NormalizedText(text, tuple(tokens), tuple(starts.tolist()), tuple(ends.tolist()), tuple(joins))


def needs_reference(text: str, norm: str) -> bool:
    """Does ``text`` (folded: ``norm``) hold a token whose rule the array rules do not apply?

    A URL (``://``), a soft hyphen, or a token that may keep its case
    (:func:`claimgate.audit.text.token_rules.may_keep_case`; rules: docs/audit-rules.md, "Case").
    """
    if "://" in norm or "\u00ad" in text:
        return True
    if text.isascii():
        return may_keep_case(text)
    return may_keep_case(_unfolded(text))


def line_end_joins(norm: str, starts: np.ndarray, ends: np.ndarray) -> list[int]:
    """Token indices ``i`` split from ``i + 1`` by a hyphen at a line end between two letters (ascending)."""
    joins: list[int] = []
    if "-" not in norm and "\u2010" not in norm:
        return joins
    for m in line_end_hyphens(norm):
        left = int(np.searchsorted(ends, m.start()))
        if left < len(ends) and ends[left] == m.start() and left + 1 < len(starts) and starts[left + 1] == m.end():
            joins.append(left)
    return joins


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
