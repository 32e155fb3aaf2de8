"""Which characters are tokens, and which tokens keep their case: the data behind the tokenizer.

Why this module exists: a changed symbol (``¥300`` for ``£300``, ``✔`` for ``✘``,
``↑`` for ``↓``), a changed unit (``5 mb`` for ``5 MB``) or a changed identifier
(``ReadTimeout`` for ``readTimeout``) changes what a quote says. The tokenizer
(:mod:`claimgate.audit.text.reference`, and its array rules in
:mod:`claimgate.audit.text.normalize`) reads these tables, so the rules are data
stated once. Rules and what each gives up: docs/audit-rules.md, "Symbols" and "Case".

What it refuses to do: guess typography. A symbol is a token unless it is listed
here as typographic; an unlisted symbol that is only decoration (a fancy bullet)
can only make an honest quote fail, never a changed one pass.
"""

from __future__ import annotations

import re
import unicodedata

from claimgate.audit.text.unicode_facts import code_points, facts, runs

#: This Python's Unicode facts (``unicode_facts``: stored per Unicode version, else scanned): which
#: characters are symbols (categories ``unicode_facts.SYMBOL_CATEGORIES``), digits, cased letters.
_FACTS = facts()
#: Symbols that are typography, not content: separators like punctuation. The backtick
#: and ``^`` (code marks and the exponent rule's character), table rules, list bullets,
#: the minus sign (a separator like the hyphen-minus, except as a number's sign), spacing
#: accents and box-drawing characters (tree listings).
TYPOGRAPHIC_SYMBOLS = (
    "`^|¦\u2212\u00b4\u02dc\u00a8\u00af\u00b8"  # code marks, table rules, minus, spacing accents
    "\u22ef"  # the midline ellipsis (an ellipsis spelling, docs/audit-rules.md "Ellipses and brackets")
    "◦▪▫■□►▸▹▻" + "".join(chr(cp) for cp in range(0x2500, 0x2580))  # bullets  # box drawing
)
#: Characters with rules of their own in the token pattern, never one-character symbol tokens:
#: the fraction slash (a number mark) and the super/subscript signs (read before NFKC).
_OWN_RULES = "\u2044⁺⁻₊₋"


def runs_class_body(runs: list[list[int]]) -> str:
    """A regex character-class body of ``[first, last]`` code point runs (one ``a-b`` range each)."""
    return "".join(f"{re.escape(chr(first))}-{re.escape(chr(last))}" for first, last in runs)


def _class_body(chars: list[str]) -> str:
    """A regex character-class body (ranges) holding exactly ``chars`` (ascending)."""
    return runs_class_body(runs([ord(c) for c in chars]))


def _symbols() -> list[str]:
    skip = set(TYPOGRAPHIC_SYMBOLS) | set(_OWN_RULES)
    return [chr(cp) for cp in code_points(_FACTS["symbols"]) if chr(cp) not in skip]


#: Every symbol that is a one-character token (``%`` is punctuation by category but a token too).
SYMBOL_CHARS = frozenset(_symbols()) | {"%"}
#: A regex character-class body of :data:`SYMBOL_CHARS`.
SYMBOL_CLASS = _class_body(sorted(SYMBOL_CHARS))

#: Removed like invisible format characters: Arabic tatweel U+0640, variation selectors.
INVISIBLE = frozenset("\u0640" + "".join(chr(cp) for cp in range(0xFE00, 0xFE10)))
#: Non-ASCII decimal digits (Unicode category Nd) to their ASCII digit.
DECIMAL_DIGITS = {cp: str(digit) for cp, digit in _FACTS["decimal_digits"]}
#: Vulgar fractions (``½``, ``¾``) as a number ``3/4`` standing apart (docs/audit-rules.md, "Numbers").
VULGAR_FRACTIONS = {
    chr(cp): " " + unicodedata.normalize("NFKC", chr(cp)).replace("\u2044", "/") + " "
    for cp in range(0x80, 0x2190)
    if "\u2044" in unicodedata.normalize("NFKC", chr(cp)) and len(unicodedata.normalize("NFKC", chr(cp))) > 1
}

#: Name suffixes that belong to the word before them when no word character follows
#: (``C++``, ``g++``, ``F#``, ``C#``): the pattern's spelling.
NAME_SUFFIX = r"(?:\+\+|\+|#)"
#: E-mail addresses and URLs are one token each (their inner punctuation kept), matched
#: on the folded text: ``ops.team@corp.example`` is never ``ops@team.corp.example``. A URL ends
#: before a lone surrogate (half of a UTF-16 pair, as a JSON ``\ud800`` escape reads): no token holds
#: one (docs/audit-rules.md, "Normalization", 7).
EMAIL = r"[a-z0-9][a-z0-9._%+\-]*@[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9\-]*[a-z0-9])?)+"
URL = r"(?:https?|ftp)://[^\s<>\"'`\[\](){}\ud800-\udfff]*[^\s<>\"'`\[\](){}.,;:!?\ud800-\udfff]"

#: Unit prefixes (SI and binary) and units whose case carries meaning (``MB`` megabyte,
#: ``Mb`` megabit, ``mb`` millibit; ``mA`` vs ``MA``; ``ms`` vs ``Ms``). A token spelled
#: prefix + unit directly after a number keeps its case (docs/audit-rules.md, "Case").
UNIT_PREFIXES = ("Y", "Z", "E", "P", "T", "G", "M", "k", "h", "da", "d", "c", "m", "µ", "μ", "u", "n", "p", "f",
                 "a", "Ki", "Mi", "Gi", "Ti", "Pi", "K")  # fmt: skip
UNITS = ("B", "b", "bit", "bps", "Bps", "s", "m", "g", "A", "V", "W", "Wh", "J", "N", "Pa", "Hz", "K",
         "mol", "cd", "L", "l", "Ω", "F", "H", "T", "C", "S", "Gy", "Sv", "Bq", "lm", "lx", "eV", "t", "bar",
         "dB")  # fmt: skip
_UNIT_RE = re.compile(
    "(?:" + "|".join(sorted(map(re.escape, UNIT_PREFIXES), key=len, reverse=True)) + ")?"
    "(?:" + "|".join(sorted(map(re.escape, UNITS), key=len, reverse=True)) + ")"
)
_NUMBER_THEN_UNIT_RE = re.compile(r"[\-\d.,'/^]*\d(?P<unit>.+)")


#: Regex class bodies of the BMP's upper- and lowercase letters (``str.isupper``/``islower`` and ``isalpha``).
_UPPER, _LOWER = runs_class_body(_FACTS["upper"]), runs_class_body(_FACTS["lower"])
#: A lowercase letter directly followed by an uppercase one (``readTimeout``, ``iPhone``), or two
#: uppercase letters directly followed by a lowercase one (``MBps``, ``HTTPServer``): a token holding
#: either keeps its case. An all-lower, all-upper or initial-capital token is case-folded.
MIXED_CASE_RE = re.compile(f"[{_LOWER}][{_UPPER}]|[{_UPPER}][{_UPPER}][{_LOWER}]")
#: A superset of the texts holding a token that keeps its case (mixed case, or a number directly
#: followed, after white space only, by letters with a capital): the array rules hand these to the
#: reference tokenizer.
_KEEPS_CASE_HINT_RE = re.compile(f"{MIXED_CASE_RE.pattern}|\\d\\s*[^\\W\\d_]*[{_UPPER}]")


def is_unit_symbol(word: str) -> bool:
    """Is ``word`` (case as written) a unit symbol: an optional prefix and a unit of :data:`UNITS`?"""
    return _UNIT_RE.fullmatch(word) is not None


def keeps_case(word: str, after_number: bool) -> bool:
    """Does ``word`` (case as written, NFKC) compare case-sensitively? (docs/audit-rules.md, "Case").

    Yes when it is mixed case (:data:`MIXED_CASE_RE`), or a unit symbol directly after a
    number (``after_number``: the token before it ends in a digit, white space only between),
    or a number fused with a unit symbol (``5MB``). No for a word without a capital.
    """
    if word.islower() or not any(c.isupper() for c in word):
        return False
    if MIXED_CASE_RE.search(word):
        return True
    if after_number and is_unit_symbol(word):
        return True
    fused = _NUMBER_THEN_UNIT_RE.fullmatch(word)
    return fused is not None and is_unit_symbol(fused.group("unit"))


def may_keep_case(cased: str) -> bool:
    """Might some token of ``cased`` (a text after NFKC, invisible characters removed) keep its case?

    A superset test (one C-level search): False means no token does.
    """
    return _KEEPS_CASE_HINT_RE.search(cased) is not None
