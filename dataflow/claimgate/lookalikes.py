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
_CASED_LOOKALIKES = str.maketrans({**LOOKALIKES, **{k.upper(): v.upper() for k, v in LOOKALIKES.items()}})


def fold_lookalikes(text: str) -> str:
    """``text`` with invisible format characters (category Cf) removed, NFKC, and look-alikes folded, case kept.

    ``＠`` (full-width) and ``﹫`` become ``@``, Cyrillic ``е`` becomes ``e``, ``Е``
    becomes ``E``. ASCII text comes back unchanged (the caller may skip the call for
    ``text.isascii()``). The result's offsets do NOT map to ``text``: use it to decide,
    never to slice.
    """
    if text.isascii():
        return text
    # Cf first: NFKC keeps a zero-width space, which would hide '@ze\u200bta' from a substring test.
    visible = "".join(c for c in text if unicodedata.category(c) != "Cf")
    # NFKC before the table: full-width and compatibility forms become their plain letters first.
    return unicodedata.normalize("NFKC", visible).translate(_CASED_LOOKALIKES)
