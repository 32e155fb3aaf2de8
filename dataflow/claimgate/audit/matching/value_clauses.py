"""Alternative-value clauses: a clause saying what another value means, whose negator scopes over it only.

Why this module exists: API documentation writes ``, or None for no limit,`` inside a sentence; the
``no`` there negates ``limit`` and nothing the quote keeps, so an ellipsis over the whole clause is
honest. The matcher (:mod:`claimgate.audit.matching.matcher`) asks this module which elided
negations lie in such a clause. Rules and what they give up: docs/audit-rules.md,
"Alternative-value clauses".

What it refuses to do: read meaning. A clause is found by its punctuation, its value and its link
(the data below); a writer's clause of another shape is not one.
"""

from __future__ import annotations

from bisect import bisect_left as _bisect
from collections.abc import Sequence

from claimgate.audit.matching.deciding import is_value

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
