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

from claimgate.audit.text.reference import NormalizedText, normalize_text_reference

#: Negating words per language, in their ordinary spelling (a token equal to one of
#: them, after normalization, negates). See docs/audit-rules.md, "Negation".
NEGATORS_BY_LANGUAGE: dict[str, tuple[str, ...]] = {
    "english": (
        "not", "no", "never", "none", "nor", "neither", "nobody", "nothing", "nowhere",
        "without", "cannot",
        # negative adverbs ("hardly ever", "scarcely any")
        "hardly", "scarcely", "barely",
        # contractions written without an apostrophe
        "cant", "dont", "doesnt", "didnt", "isnt", "arent", "wasnt", "werent", "wont",
        "wouldnt", "shouldnt", "couldnt", "hasnt", "havent", "hadnt", "aint", "mustnt",
        "neednt", "shant", "mightnt",
    ),
    "german": (
        "nicht", "kein", "keine", "keinen", "keinem", "keiner", "keines", "keinerlei", "keineswegs",
        "keinesfalls", "nie", "niemals", "nimmer", "nimmermehr", "nichts", "niemand", "niemandem",
        "niemanden", "nirgends", "nirgendwo", "ohne", "weder", "kaum", "mitnichten",
    ),
    "french": (
        "ne", "pas", "jamais", "aucun", "aucune", "aucunement", "nullement", "rien", "nul", "nulle", "ni",
        "sans", "non", "guère",
    ),
    "spanish": (
        "no", "nunca", "jamás", "ningún", "ninguno", "ninguna", "ningunos", "ningunas", "nada", "nadie", "ni",
        "sin", "tampoco", "apenas",
    ),
    "italian": (
        "non", "mai", "nessuno", "nessuna", "nessun", "niente", "nulla", "né", "senza", "neanche",
        "nemmeno", "neppure", "affatto",
    ),
    "portuguese": (
        "não", "nunca", "jamais", "nenhum", "nenhuma", "nenhuns", "nenhumas", "nada", "ninguém", "nem", "sem",
        "tampouco",
    ),
    "dutch": ("niet", "geen", "nooit", "nimmer", "niets", "niemand", "nergens", "zonder", "noch", "geenszins",
              "nauwelijks"),
    "swedish": ("inte", "icke", "ej", "aldrig", "ingen", "inget", "inga", "ingenting", "ingenstans", "utan",
                "varken", "knappt", "ingalunda"),
    "danish_norwegian": (
        "ikke", "ikkje", "aldrig", "aldri", "ingen", "intet", "inget", "ingenting", "ingensteds", "uden", "uten",
        "hverken", "verken", "næppe", "neppe",
    ),
    "polish": (
        "nie", "nigdy", "nigdzie", "żaden", "żadna", "żadne", "żadnego", "żadnej", "żadnym", "żadnych", "nic",
        "niczego", "niczym", "nikt", "nikogo", "nikomu", "bez", "ani", "ledwo",
    ),
    "russian": (
        "не", "нет", "нету", "ни", "никогда", "ничего", "ничто", "ничуть", "никто", "никого", "нигде", "никуда",
        "никак", "никакой", "никакая", "никакое", "никакие", "никакого", "нисколько", "без", "нельзя", "едва",
    ),
    "ukrainian": (
        "не", "ні", "ніколи", "нічого", "ніщо", "ніхто", "ніде", "нікуди", "ніяк", "ніякий", "жоден", "жодна",
        "жодне", "жодного", "без", "немає", "нема", "ледве",
    ),
    "greek": (
        "δεν", "δε", "μην", "μη", "όχι", "ούτε", "ουδέ", "μηδέ", "κανένας", "κανείς", "κανένα", "καμία", "καμιά",
        "τίποτα", "τίποτε", "ποτέ", "πουθενά", "χωρίς", "ουδείς", "μήτε",
    ),
    "turkish": ("değil", "yok", "hiç", "hiçbir", "hiçbiri", "asla", "olmadan"),
    "indonesian_malay": ("tidak", "tak", "bukan", "jangan", "belum", "tanpa", "tiada", "enggak", "nggak"),
    "vietnamese": ("không", "chẳng", "chả", "chưa", "đừng", "chớ"),
    "hindi": ("नहीं", "न", "मत", "ना", "बिना"),
    "arabic": ("لا", "لم", "لن", "ليس", "ليست", "لست", "ليسوا", "ما", "غير", "بدون", "بلا", "دون", "أبدا"),
    "persian": ("نه", "نیست", "هیچ", "هرگز", "بدون", "بی"),
    "urdu": ("نہیں", "نہ", "مت", "بغیر"),
    "hebrew": ("לא", "אין", "אל", "בלי", "ללא", "אף", "שום", "מעולם", "אינו", "אינה", "אינם", "אינן", "אינני"),
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

#: Negative adverbs of degree ("hardly ever"): an ellipsis may not hide one, and an
#: editor's bracket holding one never stands in for a source negation (it is read as
#: inserting a negation, see docs/audit-rules.md, "Negation").
DEGREE_NEGATORS: tuple[str, ...] = (
    "hardly", "scarcely", "barely", "kaum", "apenas", "nauwelijks", "knappt", "næppe", "neppe", "ledwo",
    "едва", "ледве",
)  # fmt: skip

#: Negators written as the start of a longer word: Turkish ``değil`` takes suffixes
#: (``değildir``, ``değiller``); Persian writes ``نمی`` (negated present) and ``نیست``
#: (``نیستند``) joined to the word (its zero-width non-joiner is removed by
#: normalization). A token starting with one of these negates. Turkish verb negation
#: (the suffix ``-ma``/``-me``) and Persian ``ن``/``نـ`` on other verbs are inside the
#: verb and cannot be listed (docs/audit-rules.md, "Negation").
NEGATOR_PREFIXES: tuple[str, ...] = ("değil", "نمی", "نیست")
_PREFIX_RE = re.compile("|".join(NEGATOR_PREFIXES), re.IGNORECASE)

#: Prefixes that make a word its opposite (``unsafe``, ``invalid``, ``non-blocking``, ``disabled``,
#: ``asymmetric``, ``deactivate``; German ``unsicher``, French ``illégal``, Spanish ``deshabilitar``):
#: an editor's bracket may not stand for such a word with the word bare (``[safe]`` for ``unsafe``),
#: nor for the bare word with it prefixed (docs/audit-rules.md, "Negation"). A word of a prefix and
#: fewer than :data:`NEGATING_STEM_CHARACTERS` characters is left alone (``in``, ``a``, ``dis``).
NEGATING_PREFIXES: tuple[str, ...] = ("non", "un", "in", "im", "il", "ir", "dis", "des", "de", "dé", "anti", "a")
NEGATING_STEM_CHARACTERS = 3


def prefix_negates(word: str, bare: str) -> bool:
    """Whether ``word`` is ``bare`` with one of :data:`NEGATING_PREFIXES` (and an optional hyphen) before it.

    Compared case-folded; ``bare`` needs at least :data:`NEGATING_STEM_CHARACTERS` characters."""
    word, bare = word.casefold(), bare.casefold()
    if len(bare) < NEGATING_STEM_CHARACTERS or not word.endswith(bare) or len(word) == len(bare):
        return False
    head = word[: len(word) - len(bare)].removesuffix("-")
    return head in NEGATING_PREFIXES


#: Letters of the scripts that have a negator list above (or are only ever read as
#: another listed script's letters): Latin (with IPA and Latin extensions), Greek,
#: Cyrillic, Hebrew, Arabic, Devanagari, Thai, Hangul, Han, Hiragana, Katakana,
#: Bopomofo, and letter-like symbols. A token holding any other letter (Georgian,
#: Armenian, Ethiopic, Tamil, Bengali, Lao, Khmer, Myanmar, ...) is in a script whose
#: negations nothing here can see: an ellipsis or a bracket may not hide it
#: (``elision_unchecked_script``; docs/audit-rules.md, "Negation").
CHECKED_SCRIPT_RANGES = (
    "\u0000-\u02ff"  # Basic Latin, Latin-1, Latin Extended-A/B, IPA, spacing modifiers
    "\u0370-\u03ff\u1f00-\u1fff"  # Greek, Greek Extended
    "\u0400-\u052f\u1c80-\u1c8f\u2de0-\u2dff\ua640-\ua69f"  # Cyrillic and its supplements
    "\u0590-\u05ff\ufb1d-\ufb4f"  # Hebrew
    "\u0600-\u06ff\u0750-\u077f\u08a0-\u08ff\ufb50-\ufdff\ufe70-\ufeff"  # Arabic (Persian, Urdu)
    "\u0900-\u097f\ua8e0-\ua8ff"  # Devanagari
    "\u0e00-\u0e7f"  # Thai
    "\u1100-\u11ff\u3130-\u318f\ua960-\ua97f\uac00-\ud7ff"  # Hangul
    "\u1d00-\u1dbf\u1e00-\u1eff\u2c60-\u2c7f\ua720-\ua7ff\uab30-\uab6f"  # Latin extensions, phonetics
    "\u2100-\u214f"  # letter-like symbols
    "\u3005-\u3007\u3040-\u30ff\u3100-\u312f\u31f0-\u31ff"  # kana, Bopomofo
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\U00020000-\U0003134f"  # Han
)
#: A letter of a script with no negator list.
UNCHECKED_LETTER_RE = re.compile(f"(?![{CHECKED_SCRIPT_RANGES}])[^\\W\\d_]")

#: Deciding words that are not negators, per language and kind (a phrase is its words in a
#: row): ``bound`` (bounds and comparatives: what a number or a claim is limited by) and
#: ``condition`` (conditions and exceptions: when a claim holds). An ellipsis or a bracket may
#: not hide one (docs/audit-rules.md, "Deciding words").
DECIDING_WORDS_BY_LANGUAGE: dict[str, dict[str, tuple[str, ...]]] = {
    "english": {
        "bound": ("up to", "at most", "at least", "no more than", "no less than", "fewer than", "less than",
                  "more than", "less", "more", "fewer", "under", "over", "below", "above", "exceeding", "beyond",
                  "within", "only", "maximum", "minimum", "max", "min", "approximately", "about", "nearly",
                  "almost", "roughly", "until"),
        "condition": ("unless", "except", "excluding", "excepting", "only if", "provided that", "providing that",
                      "as long as", "so long as", "if and only if", "except for", "other than", "save for"),
    },
    "german": {
        "bound": ("bis zu", "höchstens", "mindestens", "weniger", "mehr", "über", "unter", "oberhalb", "unterhalb",
                  "maximal", "minimal", "nur", "ungefähr", "etwa", "fast"),
        "condition": ("außer", "es sei denn", "sofern", "nur wenn", "ausgenommen", "ausser", "vorausgesetzt"),
    },
    "french": {
        "bound": ("jusqu'à", "au plus", "au moins", "moins", "plus", "sous", "environ", "presque", "seulement"),
        "condition": ("sauf", "à moins que", "à moins de", "seulement si", "pourvu que", "excepté", "hormis"),
    },
    "spanish": {
        "bound": ("hasta", "como máximo", "como mínimo", "al menos", "menos", "más", "bajo", "debajo", "encima",
                  "solo", "sólo", "aproximadamente", "casi"),
        "condition": ("salvo", "excepto", "a menos que", "solo si", "siempre que", "a no ser que"),
    },
}  # fmt: skip
#: Bounds in any language: comparison signs (``≥ 18``, ``x ≤ y``).
BOUND_SIGNS = ("≤", "≥")
#: Signs that compare when a number follows (``> 2^31``, ``< 3``): before anything else ``<`` and ``>``
#: are placeholders' brackets or arrows (``<min>``, ``->``), so only ``sign number`` is a bound.
BOUND_SIGNS_BEFORE_A_NUMBER = ("<", ">")
#: Comparison particles (English): the word before one is a comparative whatever it is (``greater than``,
#: ``newer than``, ``wider than``), and the two are a ``bound`` run. German ``als`` and French and Spanish
#: ``que`` also mean "as" and "that", so they are not read this way.
COMPARISON_PARTICLES = ("than",)
#: The reason an elision or a bracket hiding a deciding word of each kind gives.
DECIDING_KINDS = ("bound", "condition")


def _deciding_runs() -> dict[str, dict[tuple[str, ...], str]]:
    """Deciding words as normalized token runs, by first token: run -> kind (a condition wins a tie)."""
    runs: dict[str, dict[tuple[str, ...], str]] = {}
    for kinds in [*DECIDING_WORDS_BY_LANGUAGE.values(), {"bound": BOUND_SIGNS, "condition": ()}]:
        for kind in DECIDING_KINDS:
            for phrase in kinds[kind]:
                run = normalize_text_reference(phrase).tokens
                if runs.setdefault(run[0], {}).get(run) != "condition":
                    runs[run[0]][run] = kind
    return runs


_DECIDING_RUNS = _deciding_runs()
#: The first tokens of the deciding-word runs (normalized).
DECIDING_FIRST_TOKENS = frozenset(_DECIDING_RUNS)


def deciding_words(tokens: tuple[str, ...] | list[str]) -> list[tuple[int, int, str]]:
    """Every deciding-word run in ``tokens`` (normalized): ``(first, end, kind)``, ascending, end exclusive.

    Overlapping runs are all listed (``no more than`` and ``more than``). Negators are not
    deciding words here (:func:`negation_positions` finds those).
    """
    found: list[tuple[int, int, str]] = []
    for p, token in enumerate(tokens):
        for run, kind in _DECIDING_RUNS.get(token.casefold(), {}).items():
            if tuple(t.casefold() for t in tokens[p : p + len(run)]) == run:
                found.append((p, p + len(run), kind))
    spans = {(first, end) for first, end, _ in found}
    for p, token in enumerate(tokens):
        if p and token.casefold() in COMPARISON_PARTICLES and (p - 1, p + 1) not in spans:
            found.append((p - 1, p + 1, "bound"))  # ``<comparative> than``
        elif token in BOUND_SIGNS_BEFORE_A_NUMBER and p + 1 < len(tokens) and is_number_token(tokens[p + 1]):
            found.append((p, p + 2, "bound"))  # ``> 2^31``
    return sorted(found)


#: English number words, read as numbers by a diagnosis ("four weeks" for "five weeks" is a changed number) and
#: by the deciding-word rules (an ellipsis moving ``five``, a bracket adding ``[five]``).
#: Left out on purpose: "second" (a unit of time), "once" (a conjunction), "a"/"an" (articles).
NUMBER_WORDS = frozenset(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty thirty forty fifty sixty seventy eighty ninety hundred thousand million "
    "billion trillion dozen half twice thrice double triple first third fourth fifth sixth seventh eighth ninth "
    "tenth eleventh twelfth hundredth thousandth".split()
)


def is_number_word(token: str) -> bool:
    """Is a normalized token one of :data:`NUMBER_WORDS` (``five``, ``twice``)?"""
    return token.casefold() in NUMBER_WORDS


def is_number_token(token: str) -> bool:
    """Does a normalized token hold a digit (``5``, ``2^31``, ``v1.2``): a number for the deciding-word rules?"""
    return any(c.isdigit() for c in token)


#: Every negating word in its ordinary spelling (all languages), for reports and benchmarks.
NEGATION_WORDS = frozenset(w for words in NEGATORS_BY_LANGUAGE.values() for w in words)


def _one_token(word: str) -> str:
    tokens = normalize_text_reference(word).tokens
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
            run = normalize_text_reference(word).tokens
            runs.setdefault(run[0], []).append(run)
    return runs


_RUNS_BY_FIRST = _runs_by_first()
_KOREAN_PREFIXES = tuple(_one_token(w) for w in KOREAN_PREFIXES)
_KOREAN_WORDS = frozenset(_one_token(w) for w in KOREAN_WORDS)
_NEGATOR_PREFIXES = tuple(_one_token(w) for w in NEGATOR_PREFIXES)
#: :data:`DEGREE_NEGATORS` as normalized tokens (each is also in :data:`NEGATION_TOKENS`).
DEGREE_NEGATION_TOKENS = frozenset(_one_token(w) for w in DEGREE_NEGATORS)
assert DEGREE_NEGATION_TOKENS <= NEGATION_TOKENS  # noqa: S101 - a degree negator must be listed
_TRIGGERS = NEGATION_TOKENS | set(_RUNS_BY_FIRST) | {"t", "n"}
_APOSTROPHES = frozenset("'\u2019\u02bc")


def negation_positions(text: NormalizedText) -> array:
    """Ascending token positions of ``text`` that negate (int32 array; empty if none).

    A token negates if it is a listed word (:data:`NEGATION_TOKENS`), the ``t`` of an
    English ``n't`` (normalization splits ``don't`` into ``don`` + ``t``), the ``n`` of
    a French ``n'`` (an apostrophe follows it in the original), part of a run spelling
    a no-space negator (:data:`NO_SPACE_NEGATORS`: every token of the run), or a
    Korean word with a negator inside it, or starts with one of
    :data:`NEGATOR_PREFIXES`. Rules: docs/audit-rules.md, "Negation".
    """
    tokens = text.tokens
    found: set[int] = set()
    if not _TRIGGERS.isdisjoint(tokens):
        original, ends = text.original, text.ends
        for p, token in enumerate(tokens):
            if token in NEGATION_TOKENS:
                if token != "none" or not is_none_literal(original, text.starts[p], ends[p]):
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
    if _PREFIX_RE.search(text.original):
        found.update(p for p, token in enumerate(tokens) if token.startswith(_NEGATOR_PREFIXES))
    if _HANGUL_RE.search(text.original):
        for p, token in enumerate(tokens):
            if (
                token in _KOREAN_WORDS
                or token.startswith(_KOREAN_PREFIXES)
                or any(syllable in token for syllable in KOREAN_INSIDE)
            ):
                found.add(p)
    return array("i", sorted(found))


#: The text before a ``None`` that starts a sentence: the text start, a line start, or a
#: sentence end (``.``, ``!``, ``?``, ``:``) and white space.
_SENTENCE_START_RE = re.compile(r"(?:^|[\n\r]|[.!?:]\s)\s*[\"'“‘(\[]*$")


def is_none_literal(original: str, start: int, end: int) -> bool:
    """Is the token at ``original[start:end]`` the code literal ``None`` (not a negation)?

    Yes when it is spelled ``None`` (capital N) and does not start a sentence, or is
    written in a backtick span (`` `None` ``). Rule: docs/audit-rules.md, "Negation".
    """
    word = original[start:end]
    if word != "None":
        return word.casefold() == "none" and start > 0 and original[start - 1] == "`"
    return _SENTENCE_START_RE.search(original, max(0, start - 8), start) is None


def needs_token_scan(original: str) -> bool:
    """Whether ``original`` holds a negator prefix or a letter of an unlisted script (one C-level search each).

    The array build of the corpus index (``index.build``) finds listed negators by token
    id; a document for which this is true also gets :func:`negation_positions` and
    :func:`unchecked_script_positions` from its tokens, so both builds agree. False at
    once for ASCII text: ASCII letters are Latin (a listed script) and every negator
    prefix holds a letter that only a non-ASCII character matches, in any case.
    """
    if original.isascii():
        return False
    return _PREFIX_RE.search(original) is not None or UNCHECKED_LETTER_RE.search(original) is not None


def unchecked_script_positions(text: NormalizedText) -> array:
    """Ascending token positions of ``text`` holding a letter of a script with no negator list (int32 array).

    Such a token may hide a negation nobody can see, so an ellipsis or a bracket may
    not stand for it (fail closed; see :data:`CHECKED_SCRIPT_RANGES` and
    docs/audit-rules.md, "Negation"). Empty (and cheap: one C-level search of the
    original) for a text without such letters.
    """
    if UNCHECKED_LETTER_RE.search(text.original) is None:
        return array("i")
    # the original may hold letters normalization folds away (mathematical 𝑥 is x): decide on tokens
    return array("i", [p for p, token in enumerate(text.tokens) if UNCHECKED_LETTER_RE.search(token)])


def negates(text: str) -> bool:
    """Does ``text`` (bracketed editor's text, say) hold a negation?"""
    return len(negation_positions(normalize_text_reference(text))) > 0
