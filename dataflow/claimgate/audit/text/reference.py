"""Normalization for verbatim-quote matching, with a map back to the original text.

Why this stage exists: a quote copied from a PDF, a web page or a word processor
differs from the source in ways that do not change what it says (ligature glyphs,
curly quotes, soft hyphens, non-breaking spaces, line wrapping, look-alike
Cyrillic letters, letter case). The quote gate must see through those and
nothing else. So this module turns a text into a sequence of *tokens* and keeps,
for every token, the character offsets of the original text it came from, so a
match can always be reported as a slice of the untouched original.

What it refuses to do: it never drops a character that carries meaning. Digits,
decimal points, ``%``, comparison and arithmetic signs (``>= <= > < = ± × ≠``) and
a minus sign before a number survive as (parts of) tokens, so ``≥ 18`` never
matches ``18``, ``net −4`` never matches ``net 4`` and ``25`` never matches the
``25`` inside ``125`` (tokens are compared whole).

Rules (each stated with its reasons in docs/audit-rules.md, "Normalization" and
"Numbers"):

- Unicode NFKC, case folding, invisible format characters (Unicode category Cf)
  removed, Cyrillic and Greek letters visually identical to Latin ones in both
  cases folded to Latin, every other run of punctuation and white space a separator.
- Numbers keep their shape: a ``.``, ``,``, ``'``, ``’``, ``٫`` or ``٬`` between two
  digits belongs to the number (``12,500`` is one token, different from ``12500``,
  ``12.500`` and ``12, 500``); a sign directly before a digit and not directly after
  a letter or digit is part of the number (``-4``); superscript digits are an
  exponent written ``^`` (``10⁶`` is ``10^6``, ``10⁻³`` is ``10^-3``, never ``106``),
  subscript digits are written ``_`` (``x₁`` is ``x_1``), and ``^``, ``e`` with a
  sign, between a number and digits are part of it (``10^6``, ``1e-6``).
- An underscore between two letters or digits joins a word (``reset_timeout``);
  underscores at a word's edge are emphasis and separate (``_not_`` is ``not``).
- ``%`` and ``≥ ≤ > < = ± × ≠`` are one-character tokens; ``>=``, ``<=``, ``!=`` and
  ``+/-`` are spelled ``≥``, ``≤``, ``≠``, ``±``.
- Characters of scripts written without spaces (Han, Hiragana, Katakana,
  Bopomofo, Thai, Lao, Khmer, Myanmar) are one token each (with their combining
  marks); white space between them is therefore deleted for matching purposes:
  ``人工\\n\\n智能`` and ``人工智能`` have the same tokens.
- A hyphen at a line end between two letters is ambiguous (``pontifi-/cate`` is one
  word, ``well-/known`` is two). The tokens keep the two-word reading and
  :attr:`NormalizedText.joins` records the position, so a matcher can also read
  the two tokens as one word. A *soft* hyphen anywhere in a line break (before
  it, after it, or between two breaks) is unambiguous (a typesetter's break): the
  soft hyphen and the break are deleted and the word is joined.

Offsets are character (code point) offsets into the original string; line numbers
(used by callers, see :mod:`claimgate.textlines`) are 1-based.
"""

from __future__ import annotations

import re
import sys
import unicodedata
from array import array
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

from claimgate.audit.text.token_rules import (
    DECIMAL_DIGITS,
    EMAIL,
    INVISIBLE,
    NAME_SUFFIX,
    SYMBOL_CLASS,
    URL,
    VULGAR_FRACTIONS,
    keeps_case,
    runs_class_body,
)
from claimgate.audit.text.unicode_facts import facts
from claimgate.lookalikes import CASEFOLDED_LOOKALIKES

# --- character classes -------------------------------------------------------------

#: Scripts written without spaces between words: one token per character.
#: Ideographic and syllabic scripts written without spaces (a word is 1-2 characters).
CJK_RANGES = (
    "\u3005-\u3007"  # ideographic iteration mark, closing mark, number zero
    "\u3040-\u30ff"  # Hiragana, Katakana
    "\u3100-\u312f"  # Bopomofo
    "\u31f0-\u31ff"  # Katakana phonetic extensions
    "\u3400-\u4dbf"  # CJK extension A
    "\u4e00-\u9fff"  # CJK unified ideographs
    "\uf900-\ufaff"  # CJK compatibility ideographs
    "\U00020000-\U0003134f"  # CJK extensions B-G
)
#: Alphabetic scripts written without spaces between words (a word is several letters).
SOUTHEAST_ASIAN_RANGES = (
    "\u0e00-\u0e7f"  # Thai
    "\u0e80-\u0eff"  # Lao
    "\u1000-\u109f"  # Myanmar
    "\u1780-\u17ff"  # Khmer
)
#: Scripts written without spaces between words: one token per character.
NO_SPACE_SCRIPT_RANGES = SOUTHEAST_ASIAN_RANGES + CJK_RANGES


#: A regex character-class body of every combining mark (category M*) in the BMP (``unicode_facts``).
_MARKS = runs_class_body(facts()["marks"])
_NS = NO_SPACE_SCRIPT_RANGES
_MINUS = "\\-\u2010\u2011\u2012\u2013\u2212\ufe63"
_LINE_BREAK = "(?:\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029])"
#: Marks that belong to a number when they stand between two digits (docs/audit-rules.md, "Numbers").
NUMBER_MARKS = ".,'\u2019\u066b\u066c/\u2044"
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻", "0123456789+-")
_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉₊₋", "0123456789+-")

_WORD_CHAR = rf"(?:(?![{_NS}])[^\W_])"
_TOKEN_RE = re.compile(
    # 1. one character of a no-space script (plus its combining marks)
    rf"(?P<ns>[{_NS}][{_MARKS}]*)"
    # 2. an e-mail address or a URL: one token, its inner punctuation kept
    rf"|(?P<link>{URL}|{EMAIL})"
    # 3. meaning-carrying symbols (every symbol not listed as typographic, see token_rules);
    #    the two-character spellings first
    #    ('+' before a digit is a plus sign, a separator: '+2.2' states 2.2)
    rf"|(?P<sym>>=|<=|!=|\+/-|(?!\+\d)[{SYMBOL_CLASS}])"
    # 4. a word or number: letters/digits/marks, and an optional sign: a minus directly
    #    before a digit and not directly after a letter or digit (so '18-65' and
    #    'covid-19' are not negative numbers). Inside it: a number mark between two
    #    digits ('12,500', '3.5'), underscores between two word characters
    #    ('reset_timeout'), an exponent after a digit or letter ('10^6', '10^-3', 'x^2')
    #    or after a digit ('1e-6'), and a subscript ('x_1', folded from 'x₁').
    rf"|(?P<word>(?:(?<![^\W_])[{_MINUS}](?=\d))?"
    rf"{_WORD_CHAR}(?:{_WORD_CHAR}|[{_MARKS}]|(?<=\d)[{NUMBER_MARKS}](?=\d)"
    rf"|(?<=[^\W_])_+(?={_WORD_CHAR})|(?<=[^\W_])\^[+{_MINUS}]?(?=\d)|(?<=\de)[+{_MINUS}](?=\d))*"
    #    and a name suffix after a letter, no word character after it ('c++', 'f#')
    rf"(?:(?<=[^\W\d_]){NAME_SUFFIX}(?![^\W\d_]|[+#]))?)"
)
_SYMBOL_SPELLINGS = {">=": "≥", "<=": "≤", "!=": "≠", "+/-": "±"}

#: A hyphen at a line end between two letters (the ambiguous line-end hyphen).
#: A hyphen followed by blanks only, between two letters (``configu- ration``, as PDF
#: extraction leaves a line-end hyphen), is read the same way.
_LINE_END_HYPHEN_RE = re.compile(rf"(?<=[^\W\d_])[\-\u2010](?:[ \t]*{_LINE_BREAK}[ \t]*|[ \t]+)(?=[^\W\d_])")
#: A soft hyphen anywhere in a line break (before, after or between breaks): always a
#: typesetter's break, deleted with the break and the blanks around it.
_BLANKS = "[ \t\u00a0]*"
_SOFT_HYPHEN_BREAK_RE = re.compile(
    rf"{_BLANKS}(?:\u00ad{_BLANKS}{_LINE_BREAK}(?:{_BLANKS}\u00ad)?"
    rf"|{_LINE_BREAK}{_BLANKS}\u00ad(?:{_BLANKS}{_LINE_BREAK})?){_BLANKS}"
)

#: Cyrillic and Greek look-alike letters folded to Latin after case folding (the table and
#: its reasons: :mod:`claimgate.lookalikes`). Such letters not listed stay distinct, which
#: fails closed (no match), never open.
_CONFUSABLES = CASEFOLDED_LOOKALIKES

_ASCII_OR_CLUSTER_RE = re.compile(
    # a run of superscript or subscript digits (with a sign) first: NFKC would make
    # '10⁶' read '106'; then an ASCII run not followed by a combining mark, else one
    # character with its marks
    r"(?P<sup>[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+)|(?P<sub>[₊₋]?[₀₁₂₃₄₅₆₇₈₉]+)"
    rf"|[\x00-\x7f]+(?![{_MARKS}])|[\s\S][{_MARKS}]*"
)


@lru_cache(maxsize=1 << 16)
def fold_cluster(cluster: str) -> str:
    """Fold one character with its combining marks to its matching form (may be empty)."""
    # 1. Drop invisible format characters first: NFKC keeps them and, left in place,
    #    a soft hyphen or zero-width space would split one word into two tokens.
    #    Arabic tatweel (a stretching stroke) and variation selectors (emoji or text
    #    presentation) are dropped with them: they never change a word.
    s = "".join(c for c in cluster if unicodedata.category(c) != "Cf" and c not in INVISIBLE)
    if len(s) == 1 and s in VULGAR_FRACTIONS:  # '¾' is '3/4' apart from its neighbours, never '23⁄4'
        return VULGAR_FRACTIONS[s]
    # 2. NFKC before anything else: it expands ligatures (ﬁ -> fi), maps NBSP and
    #    thin spaces to a space, full-width forms to ASCII, '…' to '...', U+2011 to
    #    U+2010, and composes base + combining mark, so later steps see one spelling.
    s = unicodedata.normalize("NFKC", s)
    # 3. Case folding after NFKC (compatibility forms are plain letters by now) and
    #    stronger than lower(): 'ß' -> 'ss', final sigma, Cyrillic/Greek capitals.
    s = s.casefold()
    #    Turkish: the dotted capital folds to 'i' plus a combining dot, which the quote's
    #    'i' lacks; both Turkish i's compare as 'i' (docs/audit-rules.md, "Case").
    if "\u0307" in s or "\u0131" in s:
        s = s.replace("i\u0307", "i").replace("\u0131", "i")
    # 4. Look-alikes after case folding, so that 'О' and 'о' fold alike: the result
    #    must not depend on letter case (an upper-cased quote still matches).
    s = s.translate(_CONFUSABLES)
    # 5. Case folding can leave a non-NFKC string: close it. Digits of every script
    #    compare by value (Arabic-Indic '٣', Devanagari '३' are '3').
    return unicodedata.normalize("NFKC", s).translate(DECIMAL_DIGITS)


def _unfolded(cluster: str) -> str:
    """``cluster`` through :func:`fold_cluster`'s steps except case folding (its case kept)."""
    s = "".join(c for c in cluster if unicodedata.category(c) != "Cf" and c not in INVISIBLE)
    s = unicodedata.normalize("NFKC", s).translate(_CONFUSABLES)
    return unicodedata.normalize("NFKC", s).translate(DECIMAL_DIGITS)


@dataclass(frozen=True)
class NormalizedText:
    """A text as matching tokens, each with its span in the original text.

    ``tokens[i]`` came from ``original[starts[i]:ends[i]]`` (character offsets;
    ``starts[i]`` is the first original character of the token, ``ends[i]`` is one
    past its last). ``joins`` holds the indices ``i`` (ascending) where ``tokens[i]``
    and ``tokens[i + 1]`` were split by a hyphen at a line end between two letters
    and may also be read as one word ``tokens[i] + tokens[i + 1]``.
    """

    original: str
    tokens: tuple[str, ...]
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    joins: tuple[int, ...] = ()

    @property
    def text(self) -> str:
        """The tokens joined by single spaces (the normalized text, for display)."""
        return " ".join(self.tokens)

    def __len__(self) -> int:
        return len(self.tokens)

    def span(self, first: int, last: int) -> tuple[int, int]:
        """Original ``(start, end)`` character offsets of tokens ``first..last`` (inclusive)."""
        return self.starts[first], self.ends[last]


def folded_pieces(text: str) -> Iterator[tuple[str, int, int, bool]]:
    """The folded pieces of a non-ASCII ``text``, in order: ``(folded, start, end, char_for_char)``.

    ``folded`` came from ``text[start:end]``; ``char_for_char`` is True when its
    ``k``-th character came from ``text[start + k]`` (an ASCII run), else every
    character of ``folded`` maps to the whole ``start:end``. Empty folds are left out.
    """
    kept: list[tuple[int, int]] = []
    pos = 0
    if "\u00ad" in text:  # every soft-hyphen break holds one (a pattern that may start with blanks is slow to scan)
        for m in _SOFT_HYPHEN_BREAK_RE.finditer(text):
            kept.append((pos, m.start()))
            pos = m.end()
    kept.append((pos, len(text)))
    for lo, hi in kept:
        for m in _ASCII_OR_CLUSTER_RE.finditer(text, lo, hi):
            s, e = m.span()
            piece = m.group()
            if m.lastgroup == "sup":  # an exponent: '⁻³' -> '^-3' (docs/audit-rules.md, "Numbers")
                yield "^" + piece.translate(_SUPERSCRIPTS), s, e, False
            elif m.lastgroup == "sub":  # a subscript: '₁' -> '_1'
                yield "_" + piece.translate(_SUBSCRIPTS), s, e, False
            elif piece.isascii():
                yield piece.lower(), s, e, True
            else:
                folded = fold_cluster(piece)
                if folded:
                    yield folded, s, e, False


def _normalized_string(text: str) -> tuple[str, array | None, array | None]:
    """The folded string and, unless it is position-for-position, its offset maps.

    Returns ``(norm, src_start, src_end)``: ``norm[k]`` came from
    ``text[src_start[k]:src_end[k]]``; both maps are ``None`` when ``norm[k]`` came
    from ``text[k]`` for every ``k`` (the ASCII fast path).
    """
    if text.isascii():
        # ASCII: NFKC is the identity and casefold() == lower(); no invisible chars.
        return text.lower(), None, None
    parts: list[str] = []
    src_start = array("i")
    src_end = array("i")
    for folded, s, e, char_for_char in folded_pieces(text):
        parts.append(folded)
        if char_for_char:
            src_start.extend(range(s, e))
            src_end.extend(range(s + 1, e + 1))
        else:
            src_start.extend([s] * len(folded))
            src_end.extend([e] * len(folded))
    return "".join(parts), src_start, src_end


def normalize_text_reference(text: str) -> NormalizedText:
    """Normalize ``text`` for matching; offsets map back to ``text`` (characters).

    Returns a :class:`NormalizedText` whose ``original`` is ``text`` unchanged.
    Empty or all-separator input gives zero tokens. Fails closed on non-``str`` input
    by raising ``TypeError`` (no guessing of encodings: decode bytes upstream).

    The executable specification of :func:`claimgate.audit.text.normalize.normalize_text`
    (the array rules), held equal by tests/audit/text/test_normalize_equals_reference.py;
    it also serves production: every quote, and every document the array rules hand back.
    """
    if not isinstance(text, str):
        raise TypeError(f"normalize_text expects str, got {type(text).__name__}")
    norm, src_start, src_end = _normalized_string(text)
    tokens: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    norm_start_to_index: dict[int, int] = {}
    norm_end_to_index: dict[int, int] = {}
    respell = src_start is not None  # the respelled characters are not ASCII
    for m in _TOKEN_RE.finditer(norm):
        tok = m.group()
        kind = m.lastgroup
        if kind == "sym":
            tok = _SYMBOL_SPELLINGS.get(tok, tok)
        elif respell and kind == "word" and not _RESPELLED_CHARS.isdisjoint(tok):
            tok = tok.translate(_WORD_SPELLINGS)
        s, e = m.span()
        norm_start_to_index[s] = len(tokens)
        norm_end_to_index[e] = len(tokens)
        if src_start is None:
            first, last = s, e
        else:
            first, last = src_start[s], src_end[e - 1]
        if kind == "word":
            after_number = bool(tokens) and tokens[-1][-1:].isdigit() and not text[ends[-1] : first].strip()
            tok = _cased(tok, text[first:last], after_number)
        tokens.append(tok)
        starts.append(first)
        ends.append(last)
    joins: list[int] = []
    for m in _LINE_END_HYPHEN_RE.finditer(norm):
        left = norm_end_to_index.get(m.start())
        right = norm_start_to_index.get(m.end())
        if left is not None and right == left + 1:
            joins.append(left)
    return NormalizedText(
        original=text,
        tokens=tuple(tokens),
        starts=tuple(starts),
        ends=tuple(ends),
        joins=tuple(joins),
    )


def _cased(token: str, raw: str, after_number: bool) -> str:
    """``token`` with the case of ``raw`` (its original text) when that case carries meaning.

    See :func:`claimgate.audit.text.token_rules.keeps_case`; a token whose original does not
    fold to it character for character (a superscript, a soft-hyphen break) stays folded.
    """
    if raw == token or raw.islower():
        return token
    kept = raw if raw.isascii() else _unfolded(raw).translate(_WORD_SPELLINGS)
    if not keeps_case(kept, after_number):
        return token
    if not raw.isascii() and fold_cluster(kept).translate(_WORD_SPELLINGS) != token:
        return token
    return kept


_RESPELLED_CHARS = frozenset("\u2010\u2011\u2012\u2013\u2212\ufe63\u2019\u2044")
#: One spelling of a sign (also an exponent's) and of an apostrophe between digits.
_WORD_SPELLINGS = str.maketrans(
    {**dict.fromkeys("\u2010\u2011\u2012\u2013\u2212\ufe63", "-"), "\u2019": "'", "\u2044": "/"}
)

assert sys.maxunicode >= 0x10FFFF  # noqa: S101 - the no-space ranges need wide strings


#: A joined-word reading of line-end-hyphen parts: ``(token id of the joined word,
#: position after its last part)``.
JoinedWord = tuple[int, int]


def joined_word_alternatives(
    tokens: list[str] | tuple[str, ...], joins: Iterable[int], token_id: Callable[[str], int]
) -> dict[int, tuple[JoinedWord, ...]]:
    """Joined-word readings: for each chain of :attr:`NormalizedText.joins`, every run of >= 2 parts as one word.

    Returns position -> alternatives (ascending end). ``token_id`` maps a word to its
    id; a negative id (a word nobody has) is left out.
    """
    joinset = set(joins)
    alternatives: dict[int, tuple[JoinedWord, ...]] = {}
    for first in sorted(joinset):
        readings: list[JoinedWord] = []
        word = tokens[first]
        last = first
        while last in joinset and last + 1 < len(tokens):
            word += tokens[last + 1]
            last += 1
            word_id = token_id(word)
            if word_id >= 0:
                readings.append((word_id, last + 1))
        if readings:
            alternatives[first] = tuple(readings)
    return alternatives
