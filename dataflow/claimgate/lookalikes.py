"""Look-alike letters: one table shared by the quote audit's normalization and the gate's directive check.

Why this module exists: a Cyrillic ``е`` or a full-width ``＠`` looks like its Latin
or ASCII twin. The audit folds them so a copied quote still matches; the gate folds
them so a look-alike directive line is never skipped silently (docs/gate-rules.md,
"Directives"; docs/audit-rules.md, "Normalization"). Both must use the same table,
and the gate must not pay for the audit's imports, so the table lives here (standard
library only).
"""

from __future__ import annotations

import unicodedata
from functools import lru_cache

#: Cyrillic and Greek lower-case letters drawn identically to a Latin letter, in both
#: cases (а/А, о/О, ...), and variant spellings of comparison signs. Lower case only:
#: the audit applies it after case folding. Letters whose capital alone is a look-alike
#: (Cyrillic В/в, Greek Τ/τ, Μ/μ) are NOT listed: folding the capital alone would make
#: 'Τ' and 'τ' differ after case folding, and folding both would equate 'μm' with 'mm'.
LOOKALIKES: dict[str, str] = {
    "а": "a", "е": "e", "о": "o", "р": "p", "с": "c", "у": "y", "х": "x",
    "і": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "һ": "h", "ԛ": "q", "ԝ": "w",
    "ӏ": "l", "ё": "ë", "ї": "ï",
    "ο": "o",  # Greek omicron
    # variant spellings of the comparison signs (not letters; case-free)
    "⩾": "≥", "⩽": "≤", "≧": "≥", "≦": "≤",
}  # fmt: skip

#: The audit's table: applied after case folding (lower case only).
CASEFOLDED_LOOKALIKES = str.maketrans(LOOKALIKES)

#: The same look-alikes in both cases (``Е`` -> ``E`` as well as ``е`` -> ``e``), for
#: case-sensitive comparisons such as the gate's prefix check.
_CASED_LOOKALIKES = {**LOOKALIKES, **{k.upper(): v.upper() for k, v in LOOKALIKES.items()}}
#: Invisible format characters (category Cf) outside the BMP (Unicode 15).
_ASTRAL_FORMAT_RANGES = ((0x110BD, 0x110BD), (0x110CD, 0x110CD), (0x13430, 0x1343F), (0x1BCA0, 0x1BCA3),
                         (0x1D173, 0x1D17A), (0xE0001, 0xE0001), (0xE0020, 0xE007F))  # fmt: skip


@lru_cache(maxsize=1)
def _folding_table() -> dict[int, str | None]:
    """``str.translate`` table: cased look-alikes to Latin, invisible format characters deleted (built once)."""
    table: dict[int, str | None] = {ord(k): v for k, v in _CASED_LOOKALIKES.items()}
    table.update((cp, None) for cp in range(0x80, 0x10000) if unicodedata.category(chr(cp)) == "Cf")
    table.update((cp, None) for lo, hi in _ASTRAL_FORMAT_RANGES for cp in range(lo, hi + 1))
    return table


@lru_cache(maxsize=1)
def _changed_by_table() -> frozenset[str]:
    """The characters the folding table maps or deletes."""
    return frozenset(chr(cp) for cp in _folding_table())


def fold_lookalikes(text: str) -> str:
    """``text`` with NFKC, invisible format characters (category Cf) removed and look-alikes folded, case kept.

    ``＠`` (full-width) and ``﹫`` become ``@``, Cyrillic ``е`` becomes ``e``, ``Е``
    becomes ``E``, a zero-width space disappears. ASCII text comes back unchanged (the
    caller may skip the call for ``text.isascii()``). The result's offsets do NOT map to
    ``text``: use it to decide, never to slice.
    """
    if text.isascii():
        return text
    table = _folding_table()
    if unicodedata.is_normalized("NFKC", text) and _changed_by_table().isdisjoint(text):
        return text  # the common case for prose: two C-level checks, no copy
    # NFKC first (full-width and compatibility forms become plain letters), then one C-level
    # translate: the table maps the plain look-alikes and deletes Cf ('@ze\u200bta' reads '@zeta').
    return unicodedata.normalize("NFKC", text).translate(table)
