"""How a quote's marks and case are read before matching: brackets that are code, quotes in capitals.

Why this module exists: a bracket in code (``retry=[True]``, ``pkg[extra]``) is the code's own text,
not an editor's, and a quote set in capitals says nothing about the case of the words it quotes. The
quote parser (:mod:`claimgate.audit.matching.quote_parsing`) asks this module both questions. Rules:
docs/audit-rules.md, "Brackets in code and values" and "Case".

What it refuses to do: loosen a match. A code bracket must match verbatim; a quote in capitals matches
only corpus tokens that fold to its own.
"""

from __future__ import annotations

import re
import unicodedata
from bisect import bisect_right
from collections.abc import Callable
from typing import NamedTuple

from claimgate.audit.matching.code_runs import WrittenRuns, written_runs
from claimgate.audit.text.marks import ELLIPSIS_RE, FOOTNOTE_RE

#: A quote's brackets are code (docs/audit-rules.md, "Brackets in code and values") when one
#: of them is a subscript (fused to a name, other than a fused editorial letter of at most
#: three: ``pkg[extra]``, ``row['age']``, ``a[0]``), touches an ``=`` (``retry=[True]``,
#: ``x = [1]``), follows a colon spaced on both sides, as in a type annotation (``largs : [string]``),
#: or stands in a backtick span (a single backtick: LaTeX's doubled quotes are not code), or is the
#: notation of an optional argument: it opens with a comma or holds ``name=`` (``makedirs(name [, mode=0o777])``).
#: A subscript: a bracket fused to the name before it, other than a fused editorial letter of at most three.
SUBSCRIPT_RE = re.compile(r"\w\[(?![^\W\d_]{1,3}\])")
CODE_RE = re.compile(
    SUBSCRIPT_RE.pattern
    + r"|=\s*\[|\]\s*=|\w\s+:\s+\[|(?<!`)`(?!`)[^`]*\[[^`]*(?<!`)`(?!`)"
    + r"|\[\s*,|\[[^\[\]]*\w=(?!=)[^\[\]]*\]"  # optional arguments: ``f(a [, b])``, ``[key=value]``
)


def reads_as_code(quote: str) -> bool:
    """Are ``quote``'s brackets code (:data:`CODE_RE`)? Then they are literal text, never the editor's.

    Every alternative of :data:`CODE_RE` holds a bracket: a text without one is not searched.
    """
    return ("[" in quote or "]" in quote) and CODE_RE.search(quote) is not None


#: A quote is shaped like code, so its punctuation is compared (docs/audit-rules.md, "Brackets in
#: code and values"), when it reads as code (:data:`CODE_RE`) or holds a call (``f(``), an annotation
#: spaced on both sides (``largs : [string]``), ``::``, ``->`` or ``=`` (not ``>=``,
#: ``<=``, ``!=``: comparisons of prose). A backtick alone is markup.
CODE_SHAPE_RE = re.compile(r"\w\(|\w\s+:\s+\S|::|->|(?<![<>!])=")
#: Typographic spellings a quote may change without changing code: curly quotes and dashes.
PUNCTUATION_FOLDS = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2010": "-",
        "\u2011": "-",
        "\u2013": "-",
        "\u2014": "-",
        "\u2212": "-",
    }  # fmt: skip
)
_BROKEN_WORD_RE = re.compile(r"(?<=\w)-[^\S\n]*\n\s*(?=\w)|(?<=[^\W\d_])- (?=[^\W\d_])")
#: ASCII spellings read as one symbol, as the tokens read them (docs/audit-rules.md, "Symbols").
_SYMBOL_SPELLINGS = ((">=", "\u2265"), ("<=", "\u2264"), ("!=", "\u2260"), ("+/-", "\u00b1"))
#: Markup, not code: a backtick span's marks are left out of the compared punctuation.
_MARKUP = "`"
_EDGE_RE = re.compile(r"^[\W_]*|[\W_]*$")  # the rule as a pattern: _between_words applies it
_WORD_CHARACTER_RE = re.compile(r"[^\W_]")  # a letter or digit (the edges of _EDGE_RE)
#: What :func:`punctuation` drops besides format characters: letters and digits (``str.isalnum``: the
#: regex's ``[^\W_]``), white space (``str.isspace``: ``\s``) and the markup's backticks.
_NOT_PUNCTUATION_RE = re.compile(r"[^\W_]|\s|" + re.escape(_MARKUP))


def is_code_shaped(quote: str) -> bool:
    """Is ``quote`` shaped like code (:data:`CODE_SHAPE_RE`, :data:`CODE_RE`)? Then its punctuation counts."""
    shaped = "(" in quote or ":" in quote or "=" in quote or "->" in quote  # each alternative holds one of these
    return (shaped and CODE_SHAPE_RE.search(quote) is not None) or reads_as_code(quote)


def source_is_code_shaped(text: str) -> bool:
    """Is a matched source span ``text`` shaped like code (:func:`is_code_shaped`) once its footnote markers
    are left out (``rate[4]`` is a marker a quote may skip, ``minor[.patch]`` is code)? Then a quote of it keeps
    its punctuation (docs/audit-rules.md, "Brackets in code and values")."""
    if CODE_SHAPE_RE.search(text):
        return True
    return ("[" in text or "]" in text) and reads_as_code(FOOTNOTE_RE.sub("", text))


def punctuation(text: str) -> str:
    """The punctuation and symbols of ``text`` between its first and last letter or digit, in order.

    NFKC, curly quotes and dashes folded (:data:`PUNCTUATION_FOLDS`), a word broken by a hyphen at
    a line end (or before a space) joined, white space, backticks and format characters (soft hyphen) dropped.
    """
    text = unicodedata.normalize("NFKC", text)
    if "-" in text:  # both of the pattern's alternatives hold a hyphen
        text = _BROKEN_WORD_RE.sub("", text)
    if not text.isascii():  # every character the folds change is outside ASCII
        text = text.translate(PUNCTUATION_FOLDS)
    for ascii_spelling, symbol in _SYMBOL_SPELLINGS:
        text = text.replace(ascii_spelling, symbol)
    text = _NOT_PUNCTUATION_RE.sub("", _between_words(text))
    if text.isascii():
        return text
    return "".join(c for c in text if unicodedata.category(c) != "Cf")


def _between_words(text: str) -> str:
    """``_EDGE_RE.sub("", text)``: ``text`` from its first to its last letter or digit (``""`` without one)."""
    first = _WORD_CHARACTER_RE.search(text)
    if first is None:
        return ""
    return text[first.start() : len(text) - _WORD_CHARACTER_RE.search(text[::-1]).start()]


class WrittenPunctuation(NamedTuple):
    """A quote fragment's punctuation as written: whether the quote is code-shaped (:func:`is_code_shaped`),
    its :func:`punctuation` (compared with the source where either side is code-shaped) and its code runs'
    marks (:func:`claimgate.audit.matching.code_runs.written_runs`, compared always)."""

    code: bool
    marks: str
    runs: WrittenRuns


def written_punctuation(quote: str, shape: str, literal_ellipses: bool) -> list[WrittenPunctuation]:
    """Per fragment of ``quote`` (split at ellipses unless ``literal_ellipses``), the :class:`WrittenPunctuation`
    of the fragment's characters in ``shape`` (the quote as written, of the same length)."""
    code = is_code_shaped(shape)
    cuts = [0] if literal_ellipses else [0, *(i for m in ELLIPSIS_RE.finditer(quote) for i in m.span())]
    ends = [*cuts[1::2], len(shape)]
    spans = zip(cuts[::2], ends, strict=True)
    return [WrittenPunctuation(code, punctuation(shape[lo:hi]), written_runs(shape[lo:hi])) for lo, hi in spans]


#: Ids of the corpus tokens that fold to a token but are written in another case (see
#: :meth:`claimgate.audit.index.types.CorpusIndex.case_variants`).
CaseVariants = Callable[[str], tuple[int, ...]]


def is_caseless(quote: str) -> bool:
    """Is ``quote`` written without a lowercase letter (a heading in capitals)? Its case says nothing."""
    return not any(c.islower() for c in quote) and any(c.isupper() for c in quote)


def with_case_variants(tokens, token_ids, joined: dict, unjoined: frozenset[int], variants: CaseVariants):
    """``(joined, unjoined)`` with each token's case variants as one-token alternatives (docs: "Case")."""
    joined = dict(joined)
    for j, token in enumerate(tokens):
        ids = [v for v in variants(token) if v != token_ids[j]]
        if ids:
            joined[j] = tuple(joined.get(j, ())) + tuple((v, j + 1) for v in ids)
            unjoined = unjoined - {j}
    return joined, unjoined


#: Code in a source: a fenced block (three backticks or tildes) or a backtick span on one line.
SOURCE_CODE_RE = re.compile(r"```.*?(?:```|\Z)|~~~.*?(?:~~~|\Z)|(?<!`)`[^`\n]+`(?!`)", re.DOTALL)


def code_regions(original: str) -> list[tuple[int, int]]:
    """``(start, end)`` character ranges of the code in a source text (ascending; empty without a backtick)."""
    if "`" not in original and "~~~" not in original:
        return []
    return [m.span() for m in SOURCE_CODE_RE.finditer(original)]


#: Brackets a source writes around its own text (docs/audit-rules.md, "Brackets in code and values"):
#: an editor's bracket may not stand for source tokens that the source itself encloses in one of these,
#: so ``largs : [int]`` is never an editorial ``int`` for the source's ``largs : [string]``.
SOURCE_OPENERS = "[({"
SOURCE_CLOSERS = "])}"
#: Source tokens after those a bracket stands for within which the source's bracket may close.
ENCLOSING_REACH = 4


def _opens(text: str) -> bool:
    return any(c in SOURCE_OPENERS for c in text)


def _closes(text: str) -> bool:
    return any(c in SOURCE_CLOSERS for c in text)


def bracketed_in_source(original: str, starts, ends, p: int, q: int) -> bool:
    """Does the source enclose its tokens ``p..q-1`` in a bracket of its own (:data:`SOURCE_OPENERS`)?

    ``original`` is the document's text, ``starts``/``ends`` its tokens' character offsets
    (0-based, ``ends`` exclusive). True when the source text between token ``p - 1`` and
    token ``p`` holds an opener and, after token ``q - 1``, a closer comes before any opener
    within :data:`ENCLOSING_REACH` tokens (the document's start and end bound the text); for ``q == p`` (a
    bracket standing for no token) when the text between tokens ``p - 1`` and ``p`` holds an
    opener followed by a closer (``f()``, ``[]``). Either kind of each: fail closed.
    """
    n = len(starts)
    lead = original[ends[p - 1] if p > 0 else 0 : starts[p] if p < n else len(original)]
    if q == p:
        at = next((i for i, c in enumerate(lead) if c in SOURCE_OPENERS), -1)
        return at >= 0 and _closes(lead[at + 1 :])
    if not _opens(lead):
        return False
    # the source's bracket closes after the stood-for tokens, or a few tokens on (``[a b]`` for ``[x] b]``)
    reach = original[ends[q - 1] : ends[min(q + ENCLOSING_REACH, n) - 1] if q < n else len(original)]
    first = next((c for c in reach if c in SOURCE_OPENERS or c in SOURCE_CLOSERS), "")
    return first != "" and first in SOURCE_CLOSERS


def in_code(regions: list[tuple[int, int]], at: int) -> bool:
    """Is character offset ``at`` inside one of the ascending ``regions``?"""
    k = bisect_right(regions, (at, float("inf"))) - 1
    return k >= 0 and regions[k][0] <= at < regions[k][1]
