"""Which tokens negate: the data behind the elision and bracket checks.

Why this module exists: an ellipsis or a bracket that hides a negation reverses
what a quote says. The matcher needs one answer to "does this token negate?" for
documents (found once, when the index is built) and for bracketed editor's text.

Rule: see docs/audit-rules.md, "Negation".
"""

from __future__ import annotations

#: Grammatical negators (a hidden one reverses the meaning of an elided quote). Lexical
#: negatives such as "lack" or "fail" are deliberately not listed (see
#: docs/audit-rules.md, "Negation").
NEGATION_WORDS = frozenset(
    {
        "not", "no", "never", "none", "nor", "neither", "nobody", "nothing", "nowhere",
        "without", "cannot",
        # contractions written without an apostrophe
        "cant", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont",
        "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "aint", "mustnt",
        "neednt", "shant", "mightnt",
    }
)  # fmt: skip


def is_negation(previous: str | None, token: str) -> bool:
    """True if ``token`` negates (``n't`` is split by normalization into ``...n`` + ``t``)."""
    return token in NEGATION_WORDS or (token == "t" and previous is not None and previous.endswith("n"))
