"""Deciding words and values an editor's mark may not hide: the checks beside the negation checks.

Why this module exists: an ellipsis over ``unless`` or ``up to``, a bracket standing for
``False`` or ``3.4``, or one adding ``[or True]`` or ``[at most]``, changes what a quote says as
surely as a hidden ``not``. The matcher
(:mod:`claimgate.audit.matching.matcher`, :mod:`claimgate.audit.matching.alignment`) asks
this module, with the document's token strings, whether a placement's marks hide one.
Rules and what each gives up: docs/audit-rules.md, "Deciding words" and "Brackets in code
and values".

What it refuses to do: read meaning. The lists are data
(:data:`claimgate.audit.text.negation.DECIDING_WORDS_BY_LANGUAGE`); a listed word is
refused wherever the rule says, even where it decides nothing.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from claimgate.audit.text.negation import (
    DECIDING_FIRST_TOKENS,
    deciding_words,
    is_number_token,
    is_number_word,
    prefix_negates,
)
from claimgate.audit.text.token_rules import SYMBOL_CHARS

#: How far, in source tokens, a bound binds: a bound or comparative within this many elided
#: tokens of a kept fragment is refused (``... 5% of runs fail`` hiding ``fewer than``), and a
#: number within this many kept tokens of an elision holding a number is refused.
BOUND_REACH = 3
#: An elision starting with a number (within this many tokens) before a kept number moves it.
NUMBER_REACH = 2
#: Literals of code that a bracket may not replace (normalized tokens).
LITERALS = frozenset({"true", "false", "none", "null", "nil", "nan", "undefined"})
#: Words that add a condition or an alternative when a bracket adds them (beside the ``condition``
#: deciding words): ``[if enabled]``, ``[or True]``, ``[when idle]``. Elided they decide nothing alone.
ADDED_CONDITION_WORDS = frozenset(
    {"if", "when", "whenever", "or", "either", "wenn", "falls", "oder", "si", "ou", "o", "cuando", "quand"}
)

# Violation bits of a placement (0: clean), see docs/audit-rules.md, "Ellipses and brackets".
DROPS_NEGATION = 1  # the bracket covers a source negation and has none of its own
INSERTS_NEGATION = 2  # the bracket has a negation, the covered source tokens none
CHANGES_NUMBER = 4  # a number of the bracket is not among the covered source tokens
COVERS_UNCHECKED_SCRIPT = 8  # the covered tokens (no negation), or the bracket, in a script with no negator list
DROPS_BOUND = 16  # the bracket stands for a bound or comparative it does not repeat
DROPS_CONDITION = 32  # the bracket stands for a condition or exception it does not repeat
REPLACES_VALUE = 64  # the bracket stands for a number, literal, identifier or symbol it does not repeat
INSERTS_VALUE = 128  # the bracket holds a literal, identifier or symbol the covered source tokens do not
INSERTS_CONDITION = 256  # the bracket holds a condition or an alternative (``or X``) the covered tokens do not
INSERTS_BOUND = 512  # the bracket holds a bound or comparative the covered source tokens do not
#: Reason for a placement's violation bits, first match wins.
BRACKET_REASONS = (
    (CHANGES_NUMBER, "bracket_changes_number"),
    (REPLACES_VALUE, "bracket_replaces_value"),
    (INSERTS_NEGATION, "bracket_inserts_negation"),
    (DROPS_NEGATION, "bracket_drops_negation"),
    (DROPS_CONDITION, "bracket_drops_condition"),
    (DROPS_BOUND, "bracket_drops_bound"),
    (INSERTS_VALUE, "bracket_inserts_value"),
    (INSERTS_CONDITION, "bracket_inserts_condition"),
    (INSERTS_BOUND, "bracket_inserts_bound"),
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
    kept = {t.casefold() for t in covered}
    dropped, added = kept - own, own - kept
    if any(prefix_negates(word, bare) for word in dropped for bare in added):  # "[safe]" for "unsafe"
        bits |= DROPS_NEGATION
    if any(prefix_negates(word, bare) for word in added for bare in dropped):  # "[unsafe]" for "safe"
        bits |= INSERTS_NEGATION
    return bits


#: Code in a bracket's text as written, which its tokens no longer show (``os.path`` is ``os path``): a dotted
#: name of two words of two or more characters (not ``i.e.``), a call, or an assignment.
CODE_TEXT_RE = re.compile(r"\w{2,}\.\w{2,}|\w\(|\w\s*=(?!=)")


def written_code_bits(content: str) -> int:
    """:data:`INSERTS_VALUE` if a bracket's text as written holds code (:data:`CODE_TEXT_RE`), else 0."""
    return INSERTS_VALUE if CODE_TEXT_RE.search(content) else 0


def added_bits(bracket_tokens: Sequence[str], covered: Sequence[str] = ()) -> int:
    """Violation bits of what a bracket's own text adds to the source tokens ``covered`` it stands for.

    Every value (:func:`is_value`), number word, deciding word and added condition word
    (:data:`ADDED_CONDITION_WORDS`; an ``or`` that starts a bound, ``[or more]``, is that bound) of
    the bracket must be among ``covered``, as a digit must (``bracket_changes_number``). A bracket
    standing for no source token (``covered`` empty) may add only words that state no fact:
    ``[sic]``, ``[the model]``. Rule: docs/audit-rules.md, "Ellipses and brackets".
    """
    if not bracket_tokens:
        return 0
    have = {t.casefold() for t in covered}
    bits = 0
    bound_starts = set()
    for first, end, kind in deciding_words(bracket_tokens):
        if kind == "bound":
            bound_starts.add(first)
        if not all(t.casefold() in have for t in bracket_tokens[first:end]):
            bits |= INSERTS_CONDITION if kind == "condition" else INSERTS_BOUND
    covered_number = any(map(is_number_token, covered))
    for k, token in enumerate(bracket_tokens):
        folded = token.casefold()
        if folded in have or is_number_token(token):
            continue  # a digit is checked as a number (``bracket_changes_number``)
        if folded in ADDED_CONDITION_WORDS and not (folded == "or" and k + 1 in bound_starts):
            bits |= INSERTS_CONDITION
        elif is_number_word(folded):
            bits |= REPLACES_VALUE if covered_number else CHANGES_NUMBER
        elif is_value(token):
            bits |= INSERTS_VALUE
    return bits


def _is_number(token: str) -> bool:
    return is_number_token(token) or is_number_word(token)


def _has_number(tokens: Sequence[str]) -> bool:
    return any(map(_is_number, tokens))


def _numbers(tokens: Sequence[str]) -> frozenset[str]:
    return frozenset(t.casefold() for t in tokens if _is_number(t))


def _leading_numbers(tokens: Sequence[str], lo: int, hi: int, bounds: dict[int, int]) -> frozenset[str]:
    """The numbers among the first :data:`NUMBER_REACH` tokens of ``tokens[lo:hi]`` that are in no bound run.

    ``bounds``: first position -> end of a bound run (``at most 5``: the ``5`` leads, ``at most`` does not).
    """
    out: set[str] = set()
    p, counted = lo, 0
    while p < hi and counted < NUMBER_REACH:
        if p in bounds:
            p = max(bounds[p], p + 1)
            continue
        if _is_number(tokens[p]):
            out.add(tokens[p].casefold())
        p, counted = p + 1, counted + 1
    return frozenset(out)


def elision_reason(
    tokens: Sequence[str], chain: Sequence[tuple[int, int]], lead_elided: bool, trail_elided: bool
) -> str | None:
    """The reason a clean chain's ellipses are refused, or ``None``.

    ``tokens``: the document's tokens; ``chain``: ``(start, end)`` token positions per fragment.
    Between two fragments the elided tokens may hold no condition; no bound of a hidden number
    that starts right after the kept text (``The limit is [at most 5 and the timeout is] 30 seconds``), ends right
    before the next fragment (it bound the kept text: ``weigh [up to] 20 kg``) or starts within
    two tokens after a fragment ending in a number (``20 kg [or more]``); and they may not start
    with a number (within :data:`NUMBER_REACH` tokens, the tokens of a bound not counted: ``[at
    least five and]``; a number word counts) when a kept number follows within
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
        bounds: dict[int, int] = {}  # first -> end of the bound runs starting in the elided tokens
        for first, end, kind in deciding_words(tokens[window_lo:window_hi]):
            first, end = first + window_lo, end + window_lo
            if end <= lo or first >= hi:
                continue  # wholly kept
            if kind == "condition":
                found.add("elision_drops_condition")
                continue
            if first >= lo:
                bounds[first] = max(end, bounds.get(first, end))
            # a bound of a hidden number right after the kept text (``is [at most 5 and ...]``)
            starts_at_kept = (
                where == "between" and first == lo and _has_number(tokens[end : min(hi, end + NUMBER_REACH)])
            )
            if where == "after" or end >= hi or starts_at_kept or (kept_number_before and first < lo + 2):
                found.add("elision_drops_bound")
        moved = _leading_numbers(tokens, lo, hi, bounds) if where == "between" else frozenset()
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
