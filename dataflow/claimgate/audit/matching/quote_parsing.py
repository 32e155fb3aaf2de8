"""Parsing a quote: ellipses split it into fragments, brackets split a fragment into segments.

Why this module exists: the editor's marks are a quote's only licence, and each reading of them
(editorial, or the source's own punctuation) gives a different shape to match. This module turns a
quote string into that shape, with token ids of one corpus index; it decides nothing about any document.

What it refuses to do: it never guesses which reading is right (:func:`quote_readings` hands them down
in a fixed order and :mod:`claimgate.audit.matching.audit` keeps the best verdict), and a bracket at a
fragment's edge stands for no source token, so a number or a negation in it is recorded as a violation
up front. Rules: docs/audit-rules.md, "Ellipses and brackets" (with "Readings") and "Minimum evidence".
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace

from claimgate.audit.matching.code_and_case import (
    CaseVariants,
    WrittenPunctuation,
    is_caseless,
    reads_as_code,
    with_case_variants,
    written_punctuation,
)
from claimgate.audit.matching.deciding import (  # noqa: F401 - the violation bits, re-exported
    BRACKET_REASONS,
    CHANGES_NUMBER,
    COVERS_UNCHECKED_SCRIPT,
    DROPS_NEGATION,
    INSERTS_NEGATION,
    added_bits,
    written_code_bits,
)
from claimgate.audit.matching.identifier_case import WrittenTokens, written_tokens
from claimgate.audit.matching.source_marks import gives_no_token, source_marks_reading
from claimgate.audit.text.marks import BRACKET_RE, ELLIPSIS_RE, fold_ellipses
from claimgate.audit.text.memo import normalized as normalized_text
from claimgate.audit.text.negation import DEGREE_NEGATION_TOKENS, negation_positions, unchecked_script_positions
from claimgate.audit.text.reference import (
    CJK_RANGES,
    NO_SPACE_SCRIPT_RANGES,
    SOUTHEAST_ASIAN_RANGES,
    JoinedWord,
    joined_word_alternatives,
)

#: Most source tokens one bracketed editorial insertion may stand for.
BRACKET_MAX_TOKENS = 4
#: Source tokens checked for a negation next to a leading or trailing ellipsis.
EDGE_ELISION_TOKENS = 3

_CJK_RE = re.compile(f"[{CJK_RANGES}]")
_NO_SPACE_RE = re.compile(f"[{NO_SPACE_SCRIPT_RANGES}]")
_SOUTHEAST_ASIAN_RE = re.compile(f"[{SOUTHEAST_ASIAN_RANGES}]")
#: Evidence of one token, in sixths of a word (docs/audit-rules.md, "Minimum evidence"):
#: a word or number is one word; a CJK character two thirds of one (1.5 characters
#: per word); a Thai, Lao, Khmer or Myanmar character one third (3 per word).
WORD_EVIDENCE, CJK_EVIDENCE, SOUTHEAST_ASIAN_EVIDENCE = 6, 4, 2

#: How brackets are read, in the order tried (see :func:`claimgate.audit.matching.audit.audit_quote`):
#: editorial with a fused letter spliced into its word ('[T]he' -> 'The'); editorial with a fused
#: letter as the source's own bracketed token ('J[c]=p' -> 'J c = p'); every bracket the source's own.
BRACKET_READINGS = ("editorial", "editorial_fused_literal", "literal")
#: How ellipses are read, in the order tried: the editor's (split into fragments), then the source's own
#: punctuation ('1, 2, ..., n' quoted verbatim: one fragment). A leading or trailing ellipsis is the
#: editor's in both readings (it elides the source text beyond the quote's edge, see :func:`edge_ellipses`).
ELLIPSIS_READINGS = ("editorial", "literal")


@dataclass(frozen=True)
class Segment:
    """Literal quote tokens matched contiguously (ids; -1 = not in the corpus vocabulary)."""

    token_ids: tuple[int, ...]
    #: position -> joined-word readings of the quote's own line-end hyphens
    joined_words: dict[int, tuple[JoinedWord, ...]]
    #: positions not touched by a quote join: each must equal one corpus token
    unjoined_positions: frozenset[int]
    #: ``token_ids`` as native int32 bytes (compared with a document's token bytes)
    needle: bytes


@dataclass(frozen=True)
class Bracket:
    """Bracketed editor's text between two segments (adjacent brackets merged)."""

    negates: bool  # holds a negation of its own
    numbers: tuple[int, ...]  # ids of its tokens with a digit, sign included (-1: in no document)
    degree: bool = False  # holds a negative adverb of degree ("hardly"): never a stand-in for another negation
    unchecked: bool = False  # holds letters of a script with no negator list
    tokens: tuple[str, ...] = ()  # its normalized tokens (a deciding word or value it repeats)
    adds: int = 0  # violation bits of its text standing for no source token (deciding.added_bits)


@dataclass(frozen=True)
class Fragment:
    """One ellipsis fragment: segments separated by bracketed editor's text."""

    segments: tuple[Segment, ...]
    brackets: tuple[Bracket, ...]  # per gap between segments
    edge_violations: int  # violation bits of leading/trailing brackets, which stand for no source token
    n_tokens: int
    evidence: int  # sixths of a word (see WORD_EVIDENCE)
    punctuation: WrittenPunctuation | None = None  # compared with a placement's source text (matcher)
    written: WrittenTokens | None = None  # its tokens as written: their case is compared where code


@dataclass(frozen=True)
class ParsedQuote:
    """A quote read one way: its fragments, its marks and its edge ellipses."""

    fragments: tuple[Fragment, ...]
    has_ellipsis: bool
    has_brackets: bool
    lead_elided: bool  # an ellipsis before the first fragment
    trail_elided: bool  # an ellipsis after the last fragment

    @property
    def match_kind(self) -> str:
        return "elided" if self.has_ellipsis else "bracketed" if self.has_brackets else "exact"


def _token_evidence(token: str) -> int:
    if token[0] < "\u0e00":  # below Thai: Latin, Greek, Cyrillic, Arabic, digits, symbols
        return WORD_EVIDENCE
    if _CJK_RE.match(token):
        return CJK_EVIDENCE
    if _SOUTHEAST_ASIAN_RE.match(token):
        return SOUTHEAST_ASIAN_EVIDENCE
    return WORD_EVIDENCE


def _bracket(content: str, token_id: Callable[[str], int]) -> Bracket:
    """The editor's bracket ``[content]``: does it negate, which numbers does it state."""
    normalized = normalized_text(content)
    tokens = normalized.tokens
    negates = len(negation_positions(normalized)) > 0
    numbers = tuple(token_id(t) for t in tokens if any(c.isdigit() for c in t))
    degree = negates and not DEGREE_NEGATION_TOKENS.isdisjoint(tokens)
    unchecked = len(unchecked_script_positions(normalized)) > 0
    return Bracket(negates, numbers, degree, unchecked, tokens, added_bits(tokens) | written_code_bits(content))


def _merge(a: Bracket | None, b: Bracket) -> Bracket:
    """Brackets with nothing between them read as one."""
    if a is None:
        return b
    return Bracket(
        a.negates or b.negates,
        a.numbers + b.numbers,
        a.degree or b.degree,
        a.unchecked or b.unchecked,
        a.tokens + b.tokens,
        a.adds | b.adds | added_bits(a.tokens + b.tokens),
    )


def _unanchored(bracket: Bracket) -> int:
    """Violation bits of a bracket that stands for no source token (at a fragment's edge)."""
    return (
        (CHANGES_NUMBER if bracket.numbers else 0)
        | (INSERTS_NEGATION if bracket.negates else 0)
        | (COVERS_UNCHECKED_SCRIPT if bracket.unchecked else 0)
        | bracket.adds
    )


def edge_ellipses(quote: str) -> tuple[bool, bool]:
    """``(leading, trailing)``: does an ellipsis come before the quote's first / after its last token?"""
    parts = ELLIPSIS_RE.split(quote)
    if len(parts) < 2:
        return False, False
    return gives_no_token(parts[0]), gives_no_token(parts[-1])


def is_fused(raw: str, m: re.Match) -> bool:
    """Is the bracket ``m`` of ``raw`` a word of at most three letters fused to a word (``[T]he``)?

    Only letters of scripts written with spaces: in Chinese or Thai every character touches its
    neighbours, so a bracket there is always the editor's insertion.
    """
    content = m.group(1)
    before = raw[m.start() - 1] if m.start() > 0 else ""
    after = raw[m.end()] if m.end() < len(raw) else ""
    if not content.isalpha() or len(content) > 3 or _NO_SPACE_RE.search(content):
        return False
    return before.isalnum() or after.isalnum()


def has_fused_bracket(quote: str) -> bool:
    """Does the quote have a fused bracket (the same in both ellipsis readings: an ellipsis is no letter)?"""
    return any(is_fused(raw, m) for raw in ELLIPSIS_RE.split(quote) for m in BRACKET_RE.finditer(raw))


def _pieces(raw: str, brackets: str, token_id: Callable[[str], int]) -> list[str | Bracket]:
    """Literal text and editor's brackets of one fragment's raw text, in order."""
    pieces: list[str | Bracket] = []
    literal = ""
    pos = 0
    for m in BRACKET_RE.finditer(raw):
        if brackets == "literal":
            continue
        content = m.group(1)
        literal += raw[pos : m.start()]
        pos = m.end()
        if is_fused(raw, m):
            # '[T]he' is 'The'; in the second reading '[c]' is the source's own token
            literal += content if brackets == "editorial" else f" {content} "
            continue
        pieces.append(literal)
        pieces.append(_bracket(content, token_id))
        literal = ""
    pieces.append(literal + raw[pos:])
    return pieces


def _fragment(
    pieces: list[str | Bracket], token_id: Callable[[str], int], variants: CaseVariants | None = None
) -> Fragment | None:
    """Segments and bracket gaps of one fragment; ``None`` if it has neither."""
    segments: list[Segment] = []
    gaps: list[Bracket] = []
    pending: Bracket | None = None
    edge_violations = n_tokens = evidence = 0
    written: list[tuple[str, tuple[int, ...], tuple[int, ...]]] = []
    for piece in pieces:
        if isinstance(piece, Bracket):
            if segments:
                pending = _merge(pending, piece)
            else:  # a leading bracket is unanchored: it stands for nothing
                edge_violations |= _unanchored(piece)
            continue
        normalized = normalized_text(piece)
        if not normalized.tokens:
            continue
        token_ids = tuple(token_id(t) for t in normalized.tokens)
        written.append((piece, normalized.starts, normalized.ends))
        joined = joined_word_alternatives(normalized.tokens, normalized.joins, token_id)
        touched = set()
        for j in normalized.joins:
            touched.update((j, j + 1))
        unjoined = frozenset(range(len(token_ids))) - touched
        if variants is not None:
            joined, unjoined = with_case_variants(normalized.tokens, token_ids, joined, unjoined, variants)
        if segments:
            # adjacent literal pieces cannot happen (kept total): an empty bracket
            gaps.append(pending if pending is not None else Bracket(False, ()))
        segments.append(Segment(token_ids, joined, unjoined, array("i", token_ids).tobytes()))
        pending = None
        n_tokens += len(token_ids) - len(normalized.joins)
        evidence += sum(map(_token_evidence, normalized.tokens)) - WORD_EVIDENCE * len(normalized.joins)
    if pending is not None:  # a trailing bracket is unanchored too
        edge_violations |= _unanchored(pending)
    if segments:
        kept = written_tokens(written)
        return Fragment(tuple(segments), tuple(gaps), edge_violations, n_tokens, evidence, written=kept)
    if any(isinstance(p, Bracket) for p in pieces):
        return Fragment((), (), edge_violations, 0, 0)  # bracket-only fragment: too short
    return None


def parse_quote(
    quote: object,
    token_id: Callable[[str], int],
    brackets: str = "editorial",
    ellipses: str = "editorial",
    variants: CaseVariants | None = None,
    shape: str | None = None,
) -> ParsedQuote | None:
    """Split a quote into fragments and segments; ``None`` if it is not a str.

    ``token_id`` maps a normalized token to its corpus id (-1: in no document). ``brackets`` is one of
    :data:`BRACKET_READINGS` (``literal``: non-ellipsis brackets are the source's own punctuation,
    separators like any bracket in a document); ``ellipses`` one of :data:`ELLIPSIS_READINGS`
    (``literal``: the quote is one fragment, inner ellipses are separators). ``match_kind`` follows the
    quote's marks whatever the reading. ``shape``: the quote as written, of the same length, whose
    punctuation a code-shaped quote compares (default ``quote``; the source's-marks reading blanks them).
    """
    if not isinstance(quote, str):
        return None
    has_ellipsis = bool(ELLIPSIS_RE.search(quote))
    fragments: list[Fragment] = []
    raws = [ELLIPSIS_RE.sub(" ", quote)] if ellipses == "literal" else ELLIPSIS_RE.split(quote)
    has_brackets = any(BRACKET_RE.search(raw) for raw in raws)  # an ellipsis '[...]' is no bracket
    written = written_punctuation(quote, quote if shape is None else shape, ellipses == "literal")
    empty_raws: list[bool] = []  # per raw: no token and no bracket (an edge ellipsis if first or last)
    for k, raw in enumerate(raws):
        fragment = _fragment(_pieces(raw, brackets, token_id), token_id, variants)
        if fragment is not None and written and (brackets == "literal" or not BRACKET_RE.search(raw)):
            fragment = replace(fragment, punctuation=written[k])  # docs: "Brackets in code and values"
        if fragment is not None:
            fragments.append(fragment)
        empty_raws.append((fragment is None or not fragment.segments) and not BRACKET_RE.search(raw))
    if ellipses == "literal":
        lead_elided, trail_elided = edge_ellipses(quote) if has_ellipsis else (False, False)
    else:
        lead_elided = len(raws) > 1 and empty_raws[0]
        trail_elided = len(raws) > 1 and empty_raws[-1]
    return ParsedQuote(tuple(fragments), has_ellipsis, has_brackets, lead_elided, trail_elided)


def insufficient_reason(parsed: ParsedQuote | None, min_tokens: int, min_fragment_tokens: int) -> str | None:
    """The ``insufficient_quote`` reason of a parsed quote, ``None`` if it has enough evidence.

    Evidence is counted in words: a word or a number (``12,500``, ``10^-3``) is one;
    characters of scripts without spaces count as a fraction of one (see
    :data:`WORD_EVIDENCE` and docs/audit-rules.md, "Minimum evidence"), so with the
    defaults a Chinese quote needs 6 characters (5 per fragment) and a Thai one 12 (9).
    """
    if parsed is None:
        return "empty_quote"
    if sum(f.n_tokens for f in parsed.fragments) == 0:
        return "empty_quote"
    if sum(f.evidence for f in parsed.fragments) < WORD_EVIDENCE * min_tokens:
        return "too_few_tokens"
    if parsed.has_ellipsis and any(f.evidence < WORD_EVIDENCE * min_fragment_tokens for f in parsed.fragments):
        return "fragment_too_short"  # only an ellipsis makes fragments: without one, min_tokens decides alone
    return None


@dataclass(frozen=True)
class Reading:
    """One reading of a quote's marks, parsed: what the matcher is handed.

    ``cited_only``: the reading of the marks that are the cited document's own
    (:func:`source_marks_reading`); it is matched against the cited document only
    and counts only if it is ``found``.
    """

    parsed: ParsedQuote | None
    cited_only: bool = False


def quote_readings(
    quote: object,
    token_id: Callable[[str], int],
    source_brackets: frozenset[str] | None = None,
    source_has_ellipsis: bool = False,
    case_variants: CaseVariants | None = None,
) -> Iterator[Reading]:
    """Every reading of ``quote``'s marks, in the order they are tried, each parsed when asked for.

    ``source_brackets``/``source_has_ellipsis``: the cited document's own brackets and whether it has
    an ellipsis (``source_brackets=None``: the cited document is not in the corpus). First, when the
    cited document has marks of the quote as its own, the quote with those marks read literally
    (``cited_only``); then the editorial reading; then (a str quote only) ellipsis readings outer,
    bracket readings inner, each in declared order, only for marks the quote has, skipping a reading
    equal to one before it. A non-str quote gives one reading, parsed as ``None``. Rules:
    docs/audit-rules.md, "Ellipses and brackets" (the readings of the marks).
    """
    if not isinstance(quote, str):
        yield Reading(parse_quote(quote, token_id))
        return
    quote = fold_ellipses(quote)  # every dot spelling an ellipsis, before ellipses are looked for
    # a quote in capitals matches source tokens of any case ('IMAGENET' for 'ImageNet', docs: "Case")
    v = case_variants if case_variants is not None and is_caseless(quote) else None
    code = reads_as_code(quote)  # its brackets are the code's own: literal text
    first = "literal" if code else "editorial"
    if source_brackets is not None:
        # marks that are the cited source's own are matched literally first (in code, so is a subscript)
        own = source_marks_reading(quote, source_brackets, source_has_ellipsis, code)
        if own is not None:
            yield Reading(parse_quote(own, token_id, variants=v, shape=quote), cited_only=True)
    yield Reading(parse_quote(quote, token_id, first, variants=v))
    bracket_readings = BRACKET_READINGS if BRACKET_RE.search(quote) else BRACKET_READINGS[:1]
    if not has_fused_bracket(quote):  # without a fused letter the second reading is the first one
        bracket_readings = tuple(r for r in bracket_readings if r != "editorial_fused_literal")
    if code:
        bracket_readings = ("literal",)
    ellipsis_readings = ELLIPSIS_READINGS if ELLIPSIS_RE.search(quote) else ELLIPSIS_READINGS[:1]
    for ellipses in ellipsis_readings:
        for brackets in bracket_readings:
            if (ellipses, brackets) != ("editorial", first):
                yield Reading(parse_quote(quote, token_id, brackets, ellipses, v))
