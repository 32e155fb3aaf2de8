"""Which tokens negate, in any language: the data behind the elision and bracket checks.

Why this module exists: an ellipsis or a bracket that hides a negation reverses
what a quote says, in German or Chinese as much as in English. The matcher needs
one answer to "which tokens of this text negate?" for documents (found once, when
the index is built) and for bracketed editor's text, and both must use the same
lists.

What it refuses to do: guess a language. Every list applies to every text, so a
word that negates in one language and means something else in another (Spanish
``sin`` and the sine function) is always read as a negation; that can only reject
an honest quote (an elided ``sin``), never accept a reversed one. The lists, their
sources and their known collisions are in docs/audit-rules.md, "Negation".
"""

from __future__ import annotations

import re
from array import array

from claimgate.audit.normalize import NormalizedText, normalize_text

#: Negating words per language, in their ordinary spelling (a token equal to one of
#: them, after normalization, negates). See docs/audit-rules.md, "Negation".
NEGATORS_BY_LANGUAGE: dict[str, tuple[str, ...]] = {
    "english": (
        "not", "no", "never", "none", "nor", "neither", "nobody", "nothing", "nowhere",
        "without", "cannot",
        # contractions written without an apostrophe
        "cant", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont",
        "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "aint", "mustnt",
        "neednt", "shant", "mightnt",
    ),
    "german": (
        "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "nie", "niemals",
        "nichts", "niemand", "nirgends", "nirgendwo", "ohne", "weder",
    ),
    "french": ("ne", "pas", "jamais", "aucun", "aucune", "rien", "nul", "nulle", "ni", "sans", "non", "guère"),
    "spanish": (
        "no", "nunca", "jamás", "ningún", "ninguno", "ninguna", "nada", "nadie", "ni", "sin", "tampoco",
    ),
    "italian": (
        "non", "mai", "nessuno", "nessuna", "nessun", "niente", "nulla", "né", "senza", "neanche",
        "nemmeno", "neppure",
    ),
    "portuguese": ("não", "nunca", "jamais", "nenhum", "nenhuma", "nada", "ninguém", "nem", "sem"),
    "dutch": ("niet", "geen", "nooit", "niets", "niemand", "nergens", "zonder", "noch"),
    "swedish": ("inte", "icke", "ej", "aldrig", "ingen", "inget", "inga", "ingenting", "utan", "varken"),
    "danish_norwegian": (
        "ikke", "ikkje", "aldrig", "aldri", "ingen", "intet", "inget", "ingenting", "uden", "uten",
        "hverken", "verken",
    ),
    "polish": ("nie", "nigdy", "żaden", "żadna", "żadne", "żadnego", "nic", "niczego", "nikt", "nikogo", "bez", "ani"),
    "russian": (
        "не", "нет", "ни", "никогда", "ничего", "ничто", "никто", "никого", "нигде", "никакой", "без", "нельзя",
    ),
    "ukrainian": ("не", "ні", "ніколи", "нічого", "ніщо", "ніхто", "ніде", "жоден", "жодна", "без", "немає"),
}  # fmt: skip

#: Negators of scripts written without spaces, where every character is its own token
#: (see docs/audit-rules.md, "Normalization"): a run of tokens spelling one of these
#: negates, wherever it stands (checked by character, inside words).
NO_SPACE_NEGATORS: dict[str, tuple[str, ...]] = {
    "chinese": ("不", "没", "沒", "未", "無", "无", "非", "别", "別", "莫", "勿", "毋", "否"),
    "japanese": ("ない", "なかっ", "ず", "ません", "ぬ"),
    "thai": ("ไม่",),
}

#: Korean is written with spaces, but its negators are often inside a word
#: (``않다``, ``없는``, ``못하다``): a token negates if it contains one of
#: ``KOREAN_INSIDE``, starts with one of ``KOREAN_PREFIXES``, or equals one of
#: ``KOREAN_WORDS``.
KOREAN_INSIDE = ("않", "없")
KOREAN_PREFIXES = ("못", "아니", "아닌", "아님")
KOREAN_WORDS = ("안",)
_HANGUL_RE = re.compile("[\uac00-\ud7a3]")

#: Every negating word in its ordinary spelling (all languages), for reports and benchmarks.
NEGATION_WORDS = frozenset(w for words in NEGATORS_BY_LANGUAGE.values() for w in words)


def _one_token(word: str) -> str:
    tokens = normalize_text(word).tokens
    if len(tokens) != 1:  # a list entry the tokenizer splits could never be found
        raise ValueError(f"negator {word!r} normalizes to {tokens!r}, not one token")
    return tokens[0]


#: The negating words as normalized tokens (case-folded, look-alike letters folded).
NEGATION_TOKENS = frozenset(_one_token(w) for w in NEGATION_WORDS)


def _runs_by_first() -> dict[str, list[tuple[str, ...]]]:
    """No-space negators as token runs, by their first token."""
    runs: dict[str, list[tuple[str, ...]]] = {}
    for words in NO_SPACE_NEGATORS.values():
        for word in words:
            run = normalize_text(word).tokens
            runs.setdefault(run[0], []).append(run)
    return runs


_RUNS_BY_FIRST = _runs_by_first()
_KOREAN_PREFIXES = tuple(_one_token(w) for w in KOREAN_PREFIXES)
_KOREAN_WORDS = frozenset(_one_token(w) for w in KOREAN_WORDS)
_TRIGGERS = NEGATION_TOKENS | set(_RUNS_BY_FIRST) | {"t", "n"}
_APOSTROPHES = frozenset("'\u2019\u02bc")


def negation_positions(text: NormalizedText) -> array:
    """Ascending token positions of ``text`` that negate (int32 array; empty if none).

    A token negates if it is a listed word (:data:`NEGATION_TOKENS`), the ``t`` of an
    English ``n't`` (normalization splits ``don't`` into ``don`` + ``t``), the ``n`` of
    a French ``n'`` (an apostrophe follows it in the original), part of a run spelling
    a no-space negator (:data:`NO_SPACE_NEGATORS`: every token of the run), or a
    Korean word with a negator inside it. Rules: docs/audit-rules.md, "Negation".
    """
    tokens = text.tokens
    found: set[int] = set()
    if not _TRIGGERS.isdisjoint(tokens):
        original, ends = text.original, text.ends
        for p, token in enumerate(tokens):
            if token in NEGATION_TOKENS:
                found.add(p)
            elif token == "t":
                if p and tokens[p - 1].endswith("n"):
                    found.add(p)
            elif token == "n":
                if ends[p] < len(original) and original[ends[p]] in _APOSTROPHES:
                    found.add(p)
            for run in _RUNS_BY_FIRST.get(token, ()):
                if tokens[p : p + len(run)] == run:
                    found.update(range(p, p + len(run)))
    if _HANGUL_RE.search(text.original):
        for p, token in enumerate(tokens):
            if (
                token in _KOREAN_WORDS
                or token.startswith(_KOREAN_PREFIXES)
                or any(syllable in token for syllable in KOREAN_INSIDE)
            ):
                found.add(p)
    return array("i", sorted(found))


def negates(text: str) -> bool:
    """Does ``text`` (bracketed editor's text, say) hold a negation?"""
    return len(negation_positions(normalize_text(text))) > 0
