"""The punctuation inside a run of code: slices, option dashes, signs before names, paths, operator runs.

Why this module exists: the tokens leave punctuation out, and in code the punctuation inside a run of
characters without white space is the meaning: ``a[:i]`` is not ``a[i:]``, ``-inf`` not ``inf``,
``--recursive`` not ``-recursive`` or ``—recursive``, ``s3://bucket/`` not ``s3://bucket``, ``-->`` not
``->``. A quote's runs are compared with the runs of the source span it matched, after the prose
punctuation at a run's edges and the dashes and apostrophes between two letters are left out. Rules:
docs/audit-rules.md, "Punctuation in code runs".

What it refuses to do: compare prose punctuation. A sentence's commas and periods, quotation marks,
enclosing brackets and dashes between words or standing alone stay normalized as the tokens have them.
"""

from __future__ import annotations

import re
import unicodedata
from typing import NamedTuple

from claimgate.audit.text.marks import FOOTNOTE_RE
from claimgate.audit.text.token_rules import SYMBOL_CLASS, VULGAR_FRACTIONS, runs_class_body
from claimgate.audit.text.unicode_facts import facts, runs

#: The reason a placement that changes a code run's punctuation is refused with (its only placements).
CODE_RUN_REASON = "code_punctuation_changed"
#: Spellings of one mark: the hyphen characters and the minus sign (U+2212) are ``-``, curly quotes straight.
#: The en and em dash are kept: before a name (``—recursive``) they are not an option's ``--``.
RUN_FOLDS = str.maketrans(
    {"\u2010": "-", "\u2011": "-", "\u2212": "-", "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'}
    | {"\u2044": "/"}  # the fraction slash, as the numbers read it
)
#: Superscript and subscript digits as the tokens read them (``10⁶`` is ``10^6``, ``H₂O`` is ``H_2O``), and
#: vulgar fractions apart (``2¾`` is ``2 3/4``): docs/audit-rules.md, "Numbers".
_SCRIPTS_RE = re.compile(r"[⁺⁻]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+|[₊₋]?[₀₁₂₃₄₅₆₇₈₉]+")
_ASTRAL_RE = re.compile("[\U00010000-\U0010ffff]")
_SCRIPT_CHARACTER_RE = re.compile("[⁺⁻⁰¹²³⁴⁵⁶⁷⁸⁹₊₋₀₁₂₃₄₅₆₇₈₉]")
_FRACTION_RE = re.compile("[" + "".join(map(re.escape, VULGAR_FRACTIONS)) + "]")
_FOLDED_RE = re.compile("[" + "".join(re.escape(chr(cp)) for cp in RUN_FOLDS) + "]")
#: Left out before runs are read: format characters (category Cf: soft hyphen, zero-width space, bidi
#: marks; the blocks that hold them) and combining marks (``unicode_facts``, "marks"), which belong to the
#: letter before them (a Devanagari vowel sign is no punctuation).
_FORMAT_BLOCKS = ((0xAD, 0xAD), (0x600, 0x61C), (0x6DD, 0x70F), (0x890, 0x8E2), (0x180E, 0x180E),
                  (0x200B, 0x206F), (0xFEFF, 0xFEFF), (0xFFF9, 0xFFFB), (0x110BD, 0x110CD), (0x13430, 0x1343F),
                  (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0001, 0xE007F))  # fmt: skip
_FORMAT = [cp for lo, hi in _FORMAT_BLOCKS for cp in range(lo, hi + 1) if unicodedata.category(chr(cp)) == "Cf"]
_LEFT_OUT_RE = re.compile(f"[{runs_class_body(facts()['marks'])}{runs_class_body(runs(_FORMAT))}]")
_SUPERSCRIPTS = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻₀₁₂₃₄₅₆₇₈₉₊₋", "0123456789+-0123456789+-")
#: Prose and markup at a run's start and end, left out: sentence punctuation, quotation marks, Markdown
#: emphasis and backticks. A bracket at an edge is left out when the run does not close (or open) it, or
#: when it encloses the whole run (``(nan,`` ``-inf)`` ``(see)``); a bracket the run holds inside stays.
LEADING_PROSE = frozenset("\"'«‹„‚¿¡*_~`")
TRAILING_PROSE = frozenset(".,;:!?\"'»›…*_~`")
OPENERS = {"(": ")", "[": "]", "{": "}"}
CLOSERS = {v: k for k, v in OPENERS.items()}
#: Between two letters or digits, dashes and an apostrophe are prose (``well-known``, ``10–12``, ``don't``).
INNER_PROSE_RE = re.compile(r"(?<=[^\W_])(?:[-\u2013\u2014]+|')(?=[^\W_])")
#: A word, a number or a symbol token (compared by the tokens themselves): one placeholder ``w``.
WORD_RUN_RE = re.compile(f"[\\w{SYMBOL_CLASS}]+")
#: A run of dashes alone is a prose dash (``word — word``, ``word -- word``); a run of layout alone is
#: layout: a heading's ``#``, a list bullet, box drawing, a Markdown table's rule (``|``, ``|---|:--:|``).
DASHES_RE = re.compile(r"[-\u2013\u2014]+")
LAYOUT_RUN_RE = re.compile(r"#+|[*•‣⁃·◦▪▫■□►▸▹▻]|[\u2500-\u257f]+|[|¦:=+\-\u2013\u2014]*[|¦][|¦:=+\-\u2013\u2014]*")
#: A run that is one word with prose punctuation only at its edges needs no further look.
_PLAIN_RUN = r"[\"'(“‘]?[^\W_]+[.,;:!?\"')”’]*"
#: A run that is not such a plain word: the runs :func:`run_shape` reads (the others count as words).
_OTHER_RUN_RE = re.compile(f"(?<!\\S)(?!{_PLAIN_RUN}(?!\\S))\\S+")
#: A word broken by a hyphen at a line end, or before blanks only, between two letters (``configu-  ration``,
#: as PDF extraction leaves a line-end hyphen): joined when the runs are read (docs/audit-rules.md,
#: "Normalization", 8).
BROKEN_WORD_RE = re.compile(r"-(?:(?<=\w-)[^\S\n]*\n\s*(?=\w)|(?<=[^\W\d_]-)[^\S\n]+(?=[^\W\d_]))")

#: A text's code marks: per run that keeps punctuation, (the plain runs since the previous such run, its shape).
Marks = tuple[tuple[int, str], ...]


def run_shape(run: str) -> str:
    """``run`` (no white space, folded) with its prose edges left out and each word, number or symbol as ``w``.

    ``""`` for a run of prose dashes or punctuation only, ``"w"`` for a plain word (``(nan,``), else the
    run's shape: ``w[:w]``, ``--w``, ``-w``, ``w://w/``, ``--w`` (``-->``: ``>`` is a symbol token).
    """
    while run:
        first, last = run[0], run[-1]
        if last in TRAILING_PROSE or _other_script_punctuation(last):
            run = run[:-1]
        elif first in LEADING_PROSE or _other_script_punctuation(first):
            run = run[1:]
        elif len(run) > 1 and first in OPENERS and last == OPENERS[first] and _encloses(run):
            run = run[1:-1]
        elif first in OPENERS and run.count(first) > run.count(OPENERS[first]):
            run = run[1:]
        elif last in CLOSERS and run.count(last) > run.count(CLOSERS[last]):
            run = run[:-1]
        else:
            break
    if not run or DASHES_RE.fullmatch(run) or LAYOUT_RUN_RE.fullmatch(run):
        return ""
    return WORD_RUN_RE.sub("w", INNER_PROSE_RE.sub("", run))


def _other_script_punctuation(c: str) -> bool:
    """Is ``c`` punctuation outside ASCII other than a dash (``।`` ``。`` ``「``)? At a run's edge it is prose."""
    return c > "\x7f" and unicodedata.category(c)[0] == "P" and unicodedata.category(c) != "Pd"


def _encloses(run: str) -> bool:
    """Does ``run``'s first character (an opener) close at its last character, not before?"""
    opener, closer, depth = run[0], OPENERS[run[0]], 0
    for i, c in enumerate(run):
        depth += (c == opener) - (c == closer)
        if depth == 0:
            return i == len(run) - 1
    return False


def fold(text: str) -> str:
    """NFKC, a word broken by a hyphen at a line end (or before a space) joined, format characters and
    combining marks left out, a lone surrogate read as a space, and :data:`RUN_FOLDS` (superscripts,
    subscripts and vulgar fractions as the tokens read them)."""
    if text.isascii():
        return BROKEN_WORD_RE.sub("", text) if "-" in text else text
    if _SCRIPT_CHARACTER_RE.search(text):
        text = _SCRIPTS_RE.sub(_script, text)
    text = _SURROGATE_RE.sub(" ", _FRACTION_RE.sub(_fraction, text))
    text = unicodedata.normalize("NFKC", text)
    if "-" in text:
        text = BROKEN_WORD_RE.sub("", text)
    text = _LEFT_OUT_RE.sub("", text)
    if _ASTRAL_RE.search(text):  # the stored marks are the BMP's: beyond it, each character's category
        text = "".join(c for c in text if unicodedata.category(c)[0] != "M" and unicodedata.category(c) != "Cf")
    return _FOLDED_RE.sub(_folded, text)


#: A lone surrogate separates like white space (docs/audit-rules.md, "Normalization", 7).
_SURROGATE_RE = re.compile("[\ud800-\udfff]")


def _fraction(m: re.Match) -> str:
    return VULGAR_FRACTIONS[m.group()]


def _folded(m: re.Match) -> str:
    return RUN_FOLDS[ord(m.group())]


def _script(m: re.Match) -> str:
    return ("^" if m.group()[-1] in "⁰¹²³⁴⁵⁶⁷⁸⁹" else "_") + m.group().translate(_SUPERSCRIPTS)


def code_marks(text: str) -> Marks:
    """The runs of ``text`` that keep punctuation (:func:`run_shape` other than ``""`` and ``"w"``), each
    with the number of plain-word runs since the previous one: where each stands among the words."""
    return _marks(text)[0]


def _marks(text: str) -> tuple[Marks, int]:
    """:func:`code_marks` of ``text`` and the number of plain-word runs after the last of them."""
    marks = []
    words = at = 0
    text = fold(text)
    for m in _OTHER_RUN_RE.finditer(text):
        shape = run_shape(m.group())
        words += len(text[at : m.start()].split())  # the plain words before it
        at = m.end()
        if shape == "w":
            words += 1
        elif shape:
            marks.append((words, shape))
            words = 0
    return tuple(marks), words + len(text[at:].split())


def _edge_runs(outside: str, before: bool, text_edge: bool) -> tuple[list[str], str]:
    """The white-space-separated runs of the non-word text ``outside`` a span (``before`` it or after it) and,
    apart, the run fused to the span's edge token (``""`` if none). ``outside`` reaches the next word
    character (or the text's end: ``text_edge``); a run fused to that word belongs to it and is left out,
    unless it is fused to the span too (``[:`` of ``a[:i]`` before ``i``): then it is the fused run."""
    runs = outside.split()
    to_span = not (outside[-1] if before else outside[0]).isspace()
    to_word = not text_edge and not (outside[0] if before else outside[-1]).isspace()
    if to_span and to_word and len(runs) == 1:
        return [], runs[0]
    if to_word:
        runs.pop(0 if before else -1)
    fused = (runs.pop() if before else runs.pop(0)) if to_span and runs else ""
    return runs, fused


_LEAD_RE = re.compile(r"[^\w]*\Z")
_TRAIL_RE = re.compile(r"[^\w]*")


class WrittenRuns(NamedTuple):
    """A quote fragment's code marks (:func:`code_marks`), its text without white space at its edges, and
    how many characters of punctuation of its own it starts (``lead``) and ends (``trail``) with: where
    there are any, the source's run there is compared whole."""

    marks: Marks
    text: str
    lead: int
    trail: int


_TOKEN_CHARACTERS = f"[\\w{SYMBOL_CLASS}]"
#: Characters before a text's first token character (read on the text reversed: after its last).
_LEAD_CHARACTERS_RE = re.compile(f"(?:(?!{_TOKEN_CHARACTERS}).)*", re.DOTALL)


def written_runs(text: str) -> WrittenRuns:
    """The :class:`WrittenRuns` of a quote fragment ``text`` as written."""
    text = text.strip()
    lead = _LEAD_CHARACTERS_RE.match(text).end()
    trail = 0 if lead == len(text) else _LEAD_CHARACTERS_RE.match(text[::-1]).end()
    return WrittenRuns(code_marks(text), text, lead, trail)


def _same_runs(source: str, text: str) -> bool:
    """Are ``source`` and ``text`` the same runs (the same text but for its white space; without a hyphen,
    which a line break may join)?"""
    return source == text or ("-" not in text and source.split() == text.split())


def same_code_marks(written: WrittenRuns, original: str, start: int, end: int) -> bool:
    """Do a quote fragment's code marks (``written``) equal those of the source span ``original[start:end]``?

    Where the quote starts (ends) with punctuation of its own, the span is read with the run of marks
    fused to its first (last) token (``--`` of ``--recursive``, ``/`` of ``bucket/``), and the quote may
    also hold runs of punctuation alone standing just before (after) it (``-->``); a quote that starts
    (ends) at a word reads the span from (to) that word, as a literal part of the source is. A source's
    footnote markers may be left out (docs/audit-rules.md, "Footnote markers")."""
    lo, hi = start - written.lead, end + written.trail
    if lo >= 0 and _same_runs(original[lo:hi], written.text):  # the quote as the source writes it, unless
        if not written.lead or lo == 0 or original[lo - 1].isspace():  # a run it starts or ends inside goes on
            if not written.trail or hi == len(original) or original[hi].isspace():
                return True
    lead: list[str] = []
    trail: list[str] = []
    lead_fused = trail_fused = ""
    if written.lead:
        lo = _LEAD_RE.search(original, max(0, start - 64), start).start()
        if lo < start:
            lead, lead_fused = _edge_runs(original[lo:start], True, lo == 0)
    if written.trail:
        hi = _TRAIL_RE.match(original, end, min(len(original), end + 64)).end()
        if end < hi:
            trail, trail_fused = _edge_runs(original[end:hi], False, hi == len(original))
    cores = [lead_fused + original[start:end] + trail_fused]
    if FOOTNOTE_RE.search(cores[0]):
        cores.append(FOOTNOTE_RE.sub("", cores[0]))
    before = [(0, s) for s in map(run_shape, map(fold, lead)) if s]
    marks = list(written.marks)
    for core in cores:
        found, words = _marks(core)
        core_marks = list(found)
        after = [(0, s) for s in map(run_shape, map(fold, trail)) if s]
        if after:  # the first run after the span stands after the span's last words
            after[0] = (words, after[0][1])
        for i in range(len(before) + 1):
            for j in range(len(after) + 1):
                if marks == before[i:] + core_marks + after[:j]:
                    return True
    return False
