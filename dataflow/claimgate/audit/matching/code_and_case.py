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
from bisect import bisect_right
from collections.abc import Callable

#: A quote's brackets are code (docs/audit-rules.md, "Brackets in code and values") when one
#: of them is a subscript (fused to a name, other than a fused editorial letter of at most
#: three: ``pkg[extra]``, ``row['age']``, ``a[0]``), touches an ``=`` (``retry=[True]``,
#: ``x = [1]``), or stands in a backtick span (a single backtick: LaTeX's doubled quotes are not code).
CODE_RE = re.compile(r"\w\[(?![^\W\d_]{1,3}\])|=\s*\[|\]\s*=|(?<!`)`(?!`)[^`]*\[[^`]*(?<!`)`(?!`)")


def reads_as_code(quote: str) -> bool:
    """Are ``quote``'s brackets code (:data:`CODE_RE`)? Then they are literal text, never the editor's."""
    return CODE_RE.search(quote) is not None


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


def in_code(regions: list[tuple[int, int]], at: int) -> bool:
    """Is character offset ``at`` inside one of the ascending ``regions``?"""
    k = bisect_right(regions, (at, float("inf"))) - 1
    return k >= 0 and regions[k][0] <= at < regions[k][1]
