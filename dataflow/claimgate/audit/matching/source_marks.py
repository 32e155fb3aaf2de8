"""The marks of a quote that are its cited source's own: brackets and ellipses read as the source's punctuation.

Why this module exists: a source may write brackets and ellipses of its own (``J[c]=p``, ``1, 2, ..., n``);
a quote that repeats them is matched with them as plain separators before any is read as the editor's.
Rules: docs/audit-rules.md, "Ellipses and brackets" and "Brackets in code and values".
"""

from __future__ import annotations

import re

from claimgate.audit.matching.code_and_case import SUBSCRIPT_RE
from claimgate.audit.text.marks import BRACKET_RE, ELLIPSIS_RE
from claimgate.audit.text.memo import normalized as normalized_text

_ALNUM_RE = re.compile(r"[^\W_]")


def gives_no_token(raw: str) -> bool:
    """Does ``raw`` give no token and hold no bracket?"""
    if BRACKET_RE.search(raw) or _ALNUM_RE.search(raw):
        return False  # a letter or digit always gives a token
    return not normalized_text(raw).tokens


def source_marks_reading(
    quote: str, source_brackets: frozenset[str], source_has_ellipsis: bool, code: bool = False
) -> str | None:
    """``quote`` with the marks that are the source's own written as plain separators.

    A bracket whose exact text (``[i]``, ``[2*i+1]``, ``[int, ...]``) is one of the source's brackets
    (``source_brackets``, see :func:`bracket_texts`), and, when the source has an ellipsis of its own,
    every inner ellipsis, are the source's punctuation: their brackets and dots become blanks, their
    content stays. In a quote that reads as code (``code``) a subscript (``minor[.patch]``) is code too,
    whatever its text. Other marks stay the editor's (``[sic]``); a leading
    or trailing ellipsis always does. ``None`` if no mark is the source's own. See docs/audit-rules.md,
    "Ellipses and brackets" and "Brackets in code and values".
    """
    found = list(BRACKET_RE.finditer(quote))
    brackets = [m.span() for m in found if m.group() in source_brackets]
    if code and brackets:  # beside the source's own, a subscript of the code is no editor's mark either
        brackets = [m.span() for m in found if m.group() in source_brackets or _subscript(quote, m.start())]
    blanks: list[tuple[int, int]] = []  # character ranges written as blanks
    for lo, hi in brackets:
        blanks += [(lo, lo + 1), (hi - 1, hi)]
    for m in ELLIPSIS_RE.finditer(quote):
        start, end = m.span()
        if any(lo <= start and end <= hi for lo, hi in brackets):
            blanks.append((start, end))  # an ellipsis inside a bracket of the source ('[int, ...]')
        elif source_has_ellipsis and not gives_no_token(quote[:start]) and not gives_no_token(quote[end:]):
            blanks.append((start, end))
    if not blanks:
        return None
    out = list(quote)
    for lo, hi in blanks:
        out[lo:hi] = " " * (hi - lo)
    return "".join(out)


def _subscript(quote: str, at: int) -> bool:
    """Is the bracket at ``quote[at]`` a subscript of the code (``SUBSCRIPT_RE``: fused to the name before it)?"""
    return at > 0 and SUBSCRIPT_RE.match(quote, at - 1) is not None
