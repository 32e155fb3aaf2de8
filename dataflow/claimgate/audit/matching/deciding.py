"""Deciding words and values an editor's mark may not hide: the checks beside the negation checks.

Why this module exists: an ellipsis over ``unless`` or ``up to``, or a bracket standing for
``False`` or ``3.4``, changes what a quote says as surely as a hidden ``not``. The matcher
(:mod:`claimgate.audit.matching.matcher`, :mod:`claimgate.audit.matching.alignment`) asks
this module, with the document's token strings, whether a placement's marks hide one.
Rules and what each gives up: docs/audit-rules.md, "Deciding words" and "Brackets in code
and values".

What it refuses to do: read meaning. The lists are data
(:data:`claimgate.audit.text.negation.DECIDING_WORDS_BY_LANGUAGE`); a listed word is
refused wherever the rule says, even where it decides nothing.
"""

from __future__ import annotations

from collections.abc import Sequence

from claimgate.audit.text.negation import DECIDING_FIRST_TOKENS, deciding_words, is_number_token
from claimgate.audit.text.token_rules import SYMBOL_CHARS

#: How far, in source tokens, a bound binds: a bound or comparative within this many elided
#: tokens of a kept fragment is refused (``... 5% of runs fail`` hiding ``fewer than``), and a
#: number within this many kept tokens of an elision holding a number is refused.
BOUND_REACH = 3
#: An elision starting with a number (within this many tokens) before a kept number moves it.
NUMBER_REACH = 2
#: Literals of code that a bracket may not replace (normalized tokens).
LITERALS = frozenset({"true", "false", "none", "null", "nil", "nan", "undefined"})

# Violation bits of a placement (0: clean), see docs/audit-rules.md, "Ellipses and brackets".
DROPS_NEGATION = 1  # the bracket covers a source negation and has none of its own
INSERTS_NEGATION = 2  # the bracket has a negation, the covered source tokens none
CHANGES_NUMBER = 4  # a number of the bracket is not among the covered source tokens
COVERS_UNCHECKED_SCRIPT = 8  # the covered tokens (no negation), or the bracket, in a script with no negator list
DROPS_BOUND = 16  # the bracket stands for a bound or comparative it does not repeat
DROPS_CONDITION = 32  # the bracket stands for a condition or exception it does not repeat
REPLACES_VALUE = 64  # the bracket stands for a number, literal, identifier or symbol it does not repeat
#: Reason for a placement's violation bits, first match wins.
BRACKET_REASONS = (
    (CHANGES_NUMBER, "bracket_changes_number"),
    (REPLACES_VALUE, "bracket_replaces_value"),
    (INSERTS_NEGATION, "bracket_inserts_negation"),
    (DROPS_NEGATION, "bracket_drops_negation"),
    (DROPS_CONDITION, "bracket_drops_condition"),
    (DROPS_BOUND, "bracket_drops_bound"),
    (COVERS_UNCHECKED_SCRIPT, "elision_unchecked_script"),
)

#: Reasons, in the order they are named.
ELISION_REASONS = ("elision_drops_condition", "elision_drops_bound", "elision_moves_number")


def is_value(token: str) -> bool:
    """Is ``token`` (normalized) a value a bracket may not replace?

    A number (a digit), a literal (:data:`LITERALS`), an identifier (an underscore, a dot, or
    a capital kept by the case rules: ``readTimeout``), an e-mail address or URL, or a symbol.
    """
    return (
        any(c.isdigit() for c in token)
        or token in LITERALS
        or "_" in token
        or "." in token
        or "@" in token
        or token != token.lower()
        or token in SYMBOL_CHARS
    )


def bites(token: str) -> bool:
    """Can a bracket standing for ``token`` break a rule here (a value, or a deciding word's first token)?"""
    return is_value(token) or token.casefold() in DECIDING_FIRST_TOKENS


def gap_bits(covered: Sequence[str], bracket_tokens: Sequence[str]) -> int:
    """Violation bits of a bracket with ``bracket_tokens`` standing for source tokens ``covered``."""
    if not covered:
        return 0
    own = {t.casefold() for t in bracket_tokens}
    bits = 0
    for first, end, kind in deciding_words(covered):
        if not all(t.casefold() in own for t in covered[first:end]):
            bits |= DROPS_CONDITION if kind == "condition" else DROPS_BOUND
    if any(is_value(t) and t.casefold() not in own for t in covered):
        bits |= REPLACES_VALUE
    return bits


def _has_number(tokens: Sequence[str]) -> bool:
    return any(map(is_number_token, tokens))


def _numbers(tokens: Sequence[str]) -> frozenset[str]:
    return frozenset(filter(is_number_token, tokens))


def elision_reason(
    tokens: Sequence[str], chain: Sequence[tuple[int, int]], lead_elided: bool, trail_elided: bool
) -> str | None:
    """The reason a clean chain's ellipses are refused, or ``None``.

    ``tokens``: the document's tokens; ``chain``: ``(start, end)`` token positions per fragment.
    Between two fragments the elided tokens may hold no condition; no bound that ends right
    before the next fragment (it bound the kept text: ``weigh [up to] 20 kg``) or starts within
    two tokens after a fragment ending in a number (``20 kg [or more]``); and they may not start
    with a number (within :data:`NUMBER_REACH` tokens) when a kept number follows within
    :data:`BOUND_REACH` tokens (``is now [3.4 (it] was 3.1``), unless the two hold the same
    numbers (``mature [2D encoders ...] sequences of 2D slices``: nothing moves). Before a leading ellipsis the
    :data:`BOUND_REACH` hidden tokens may hold no condition and no bound ending at the quote's
    first token; after a trailing one, no condition and no bound.
    """
    n = len(tokens)
    found: set[str] = set()
    spans = [(e, s, "between") for (_, e), (s, _) in zip(chain, chain[1:])]
    if lead_elided and chain:
        spans.append((max(0, chain[0][0] - BOUND_REACH), chain[0][0], "before"))
    if trail_elided and chain:
        spans.append((chain[-1][1], min(n, chain[-1][1] + BOUND_REACH), "after"))
    for lo, hi, where in spans:
        if hi <= lo:
            continue
        window_lo, window_hi = max(0, lo - BOUND_REACH), min(n, hi + BOUND_REACH)
        kept_number_before = where == "between" and _has_number(tokens[max(0, lo - 1) : lo])
        for first, end, kind in deciding_words(tokens[window_lo:window_hi]):
            first, end = first + window_lo, end + window_lo
            if end <= lo or first >= hi:
                continue  # wholly kept
            if kind == "condition":
                found.add("elision_drops_condition")
            elif where == "after" or end >= hi or (kept_number_before and first < lo + 2):
                found.add("elision_drops_bound")
        moved = _numbers(tokens[lo : min(hi, lo + NUMBER_REACH)]) if where == "between" else frozenset()
        if moved:
            kept = _numbers(tokens[hi:window_hi])
            if kept and kept != moved:
                found.add("elision_moves_number")  # the same number moved onto itself changes nothing
    return next((r for r in ELISION_REASONS if r in found), None)


def at_deciding_word(
    tokens: Sequence[str], negations: Sequence[int], chain: Sequence[tuple[int, int]], lead: bool, trail: bool
) -> bool:
    """Does a quote placed at ``chain`` start right after, or end right before, a deciding word or negation?

    Only an edge without an ellipsis counts (an ellipsis there is checked by
    :func:`elision_reason`). ``negations``: the document's negation positions (ascending).
    """
    if not chain:
        return False
    start, end = chain[0][0], chain[-1][1]
    negation_set = set(negations[max(0, _bisect(negations, start - 1)) : _bisect(negations, end + 1)])
    if not lead and start > 0:
        if start - 1 in negation_set:
            return True
        lo = max(0, start - BOUND_REACH)
        if any(e + lo == start for _, e, _ in deciding_words(tokens[lo:start])):
            return True
    if not trail and end < len(tokens):
        if end in negation_set:
            return True
        if any(f == 0 for f, _, _ in deciding_words(tokens[end : end + BOUND_REACH])):
            return True
    return False


def _bisect(positions: Sequence[int], value: int) -> int:
    from bisect import bisect_left

    return bisect_left(positions, value)


#: Alternative-value clauses: a clause that says what another value means (``, or None for no limit,``,
#: ``(0 means no timeout)``, ``; use -1 for no cap;``, ``— or null for none —``). Its negator scopes
#: over the clause only, so an ellipsis over the whole clause is honest (docs/audit-rules.md,
#: "Alternative-value clauses"). The clause's head: at most :data:`VALUE_CLAUSE_LEAD_IN` tokens after
#: its opening boundary, a value (a number, a code literal, an identifier, the end of a backtick span),
#: one of these links right after it (or a ``:`` right after the value), then the negator within
#: :data:`VALUE_CLAUSE_NEGATOR_REACH` tokens of the link. ``is`` alone is no link: ``None is not
#: accepted`` states a rule about the value itself.
VALUE_CLAUSE_LINKS: tuple[str, ...] = (
    "for", "means", "meaning", "mean", "to mean", "denotes", "indicates", "signals", "signifies", "stands for",
    "selects", "is treated as", "is read as", "is interpreted as", "=", ">", "→", "⇒",
)  # fmt: skip
VALUE_CLAUSE_LEAD_IN = 3
VALUE_CLAUSE_NEGATOR_REACH = 2
#: Most tokens of an alternative-value clause, from its first token to its last.
VALUE_CLAUSE_MAX_TOKENS = 12
#: Per opening boundary, the closing boundaries that end the clause; any other boundary found first
#: is read through (a comma inside parentheses) unless it is in :data:`CLAUSE_STOPS`. A clause opened
#: by a comma must start with ``or`` (an inserted alternative); one opened by a sentence start, ``;``
#: or ``:`` is a clause of its own and ends only at a strong boundary (``. ! ? ; :``, a paragraph
#: break, the text's end) or a closing bracket, so ``; 0 means no wait, and the call ...`` is no clause.
CLAUSE_CLOSES: dict[str, tuple[str, ...]] = {
    "(": (")",),
    "[": ("]",),
    "dash": ("dash", "strong", ")", "]"),
    ",": (",", "dash", "strong", ")", "]"),
    "strong": ("strong", ")", "]"),
}
#: Boundaries that end the search for a clause's close without one (the clause is not self-contained).
CLAUSE_STOPS: dict[str, tuple[str, ...]] = {"(": ("strong", "]"), "[": ("strong", ")")}
_BOUNDARY = {"(": "(", "[": "[", ")": ")", "]": "]", ",": ",", "—": "dash", "–": "dash", ";": "strong", ":": "strong"}
_SENTENCE_END = frozenset(".!?")
_CLOSING_MARKS = "\"'\u201d\u2019)]`"
_VALUE_LINK_RUNS = tuple(tuple(phrase.split()) for phrase in VALUE_CLAUSE_LINKS)


def _ends_sentence(rest: str, at_edge: bool) -> bool:
    """After a ``.``, ``!`` or ``?`` (and closing marks): white space, or nothing at the text's end."""
    return rest[:1].isspace() or (at_edge and not rest)


def _gap_boundaries(gap: str, at_edge: bool) -> list[str]:
    """The clause boundaries in the text between two tokens, in order (``strong`` at a text edge)."""
    found = []
    for i, c in enumerate(gap):
        if c in _BOUNDARY:
            found.append(_BOUNDARY[c])
        elif c in _SENTENCE_END and _ends_sentence(gap[i + 1 :].lstrip(_CLOSING_MARKS), at_edge):
            found.append("strong")  # a sentence end, not the dot of ``math.inf``
        elif c == "-" and (gap[i - 1 : i + 2] == " - " or gap[i : i + 2] == "--"):
            found.append("dash")
        elif c == "\n" and "\n" in gap[i + 1 :] and not gap[i + 1 : gap.index("\n", i + 1)].strip():
            found.append("strong")  # a paragraph break
    return found + ["strong"] if at_edge else found


def _is_clause_value(tokens, original: str, starts, ends, p: int) -> bool:
    token = tokens[p]
    if ends[p] < len(original) and original[ends[p]] == "`":
        return True  # the end of a code span
    if token == "none":  # the prose word is a negator; the literal is spelled None
        return original[starts[p] : ends[p]] == "None"
    return is_value(token)


def _link_end(tokens, original: str, starts, ends, value: int) -> int | None:
    """Where the link after a value ends (token position), or ``None`` if no link follows it."""
    n = len(tokens)
    if value + 1 < n and ":" in original[ends[value] : starts[value + 1]]:
        return value + 1
    for run in _VALUE_LINK_RUNS:
        end = value + 1 + len(run)
        if end <= n and tuple(t.casefold() for t in tokens[value + 1 : end]) == run:
            if not any(_gap_boundaries(original[ends[q - 1] : starts[q]], False) for q in range(value + 1, end)):
                return end
    return None


def value_clause(tokens, original: str, starts, ends, negations: frozenset, p: int) -> tuple[int, int] | None:
    """The alternative-value clause ``(first, end)`` (token positions, end exclusive) holding negation ``p``.

    ``tokens``: the document's normalized tokens (a sequence of str); ``original``/``starts``/
    ``ends``: its text and per-token character offsets; ``negations``: its negation positions.
    ``None`` when ``p`` is not in such a clause (rule: :data:`VALUE_CLAUSE_LINKS`).
    """
    n = len(tokens)
    reach = VALUE_CLAUSE_LEAD_IN + max(map(len, _VALUE_LINK_RUNS)) + VALUE_CLAUSE_NEGATOR_REACH
    for value in range(p, max(-1, p - reach - 1), -1):
        if not _is_clause_value(tokens, original, starts, ends, value):
            continue
        link_end = _link_end(tokens, original, starts, ends, value)
        if link_end is None or not (value == p or link_end <= p <= link_end + VALUE_CLAUSE_NEGATOR_REACH):
            continue
        opened = next(
            (
                (first, kinds[-1])
                for first in range(value, max(-1, value - VALUE_CLAUSE_LEAD_IN - 1), -1)
                if (kinds := _gap_boundaries(original[ends[first - 1] if first else 0 : starts[first]], first == 0))
            ),
            None,
        )
        if opened is None or opened[1] not in CLAUSE_CLOSES or any(q in negations for q in range(opened[0], value)):
            continue
        first, opener = opened
        if opener == "," and tokens[first].casefold() != "or":
            continue
        for t in range(max(p, link_end), min(n, first + VALUE_CLAUSE_MAX_TOKENS)):
            gap = original[ends[t] : starts[t + 1] if t + 1 < n else len(original)]
            kinds = _gap_boundaries(gap, t + 1 == n)
            if not kinds:
                continue
            if kinds[0] in CLAUSE_CLOSES[opener]:
                return first, t + 1
            if kinds[0] in CLAUSE_STOPS.get(opener, ()):
                break
    return None


def value_clauses(tokens, original: str, starts, ends, negations: Sequence[int], lo: int, hi: int) -> dict:
    """Negation positions in ``[lo, hi)`` that lie in an alternative-value clause -> its ``(first, end)``."""
    at, stop = _bisect(negations, lo), _bisect(negations, hi)
    near = frozenset(negations[max(0, at - VALUE_CLAUSE_MAX_TOKENS) : stop + VALUE_CLAUSE_MAX_TOKENS])
    out = {}
    for p in negations[at:stop]:
        clause = value_clause(tokens, original, starts, ends, near, p)
        if clause is not None:
            out[p] = clause
    return out


def elides_whole_clauses(chain: Sequence[tuple[int, int]], clauses: dict, lead: int, trail: int, n: int) -> bool:
    """Does every elided span of ``chain`` that holds a clause negation hold that whole clause?

    ``chain``: ``(start, end)`` per kept fragment; ``clauses``: from :func:`value_clauses`;
    ``lead``/``trail``: tokens an edge ellipsis hides (0: none). Between two fragments the
    clause lies inside the gap; before a leading ellipsis it ends at or before the first kept
    token; after a trailing one it starts at or after the last kept token's end.
    """
    spans = [(e, s, e, s) for (_, e), (s, _) in zip(chain, chain[1:])]
    if lead and chain:
        spans.append((max(0, chain[0][0] - lead), chain[0][0], -1, chain[0][0]))
    if trail and chain:
        spans.append((chain[-1][1], min(n, chain[-1][1] + trail), chain[-1][1], n))
    for lo, hi, may_start, may_end in spans:
        for p, (first, end) in clauses.items():
            if lo <= p < hi and not (first >= may_start and end <= may_end):
                return False
    return True
