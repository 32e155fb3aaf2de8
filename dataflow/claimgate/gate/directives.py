"""The directive parser: explicit machine-readable claims, never prose.

A source declares claims with whole lines such as ``@quill create_copy
existing_path=refuse``. The parser reads only those lines; it never interprets the
prose around them. A line (without its terminator, as ``str.splitlines`` splits) is
*directive-like* under the seed's rule (schema ``[directives] scope = "line"``, the
default) when it contains the schema prefix or its first non-space character is the
prefix's first character; a directive-like line must then match
``<prefix> <operation> <key>=<value>`` in full (single spaces, no leading or
trailing white space), each name ``[a-z_]+`` (docs/gate-rules.md, "Directives").

Directive-likeness is decided on a *folded* copy of a non-ASCII line
(:func:`claimgate.lookalikes.fold_lookalikes`: invisible format characters removed,
NFKC, Cyrillic/Greek look-alike letters folded to Latin), so ``＠quill`` (full-width)
or ``@quіll`` (Cyrillic і) is directive-like; the full match is then checked on the
raw line, so such a line is ``malformed_directive`` (fail closed), never skipped. An
ASCII line is never folded (folding is the identity there).

Two opt-ins of the schema narrow what is directive-like (docs/gate-rules.md,
"Directive opt-ins"): ``scope = "prefix"`` makes a line directive-like only when its
first white-space-separated token is exactly the prefix; ``skip_fenced_code = true``
never reads a line inside a Markdown fenced code block (a line of three or more
backticks or tildes, indented at most three spaces, up to the closing fence of the
same character and at least the same length, or the end of the text). A line that
contains the prefix (look-alikes folded), or that the schema's scope would read, but is not read because
of an opt-in is reported by ``ignored_lines_of``, never silently used or dropped.

Errors (``DirectiveError``; the first in line order wins), checked per line in this
order: ``malformed_directive``, ``unsupported_operation``, ``unsupported_claim_key``,
``unknown_directive_value``, then ``duplicate_directive`` (the same operation and key
declared twice in one source, whatever the values).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from claimgate.errors import DirectiveError
from claimgate.gate.schema import ClaimSchema
from claimgate.lookalikes import fold_lookalikes
from claimgate.textlines import LINE_TERMINATORS

#: ``DirectiveError`` reasons, in the order each line is checked (the tests check every raise is listed).
DIRECTIVE_ERROR_REASONS = (
    "malformed_directive",
    "unsupported_operation",
    "unsupported_claim_key",
    "unknown_directive_value",
    "duplicate_directive",
)

#: Fields of one parsed directive, in order (offsets are characters; lines are 1-based).
DIRECTIVE_FIELDS = ("operation", "claim_key", "value", "start_line", "end_line", "start", "end", "quote")

_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(prefix: str) -> re.Pattern[str]:
    if prefix not in _PATTERNS:
        _PATTERNS[prefix] = re.compile(
            re.escape(prefix) + r" (?P<operation>[a-z_]+) (?P<key>[a-z_]+)=(?P<value>[a-z_]+)"
        )
    return _PATTERNS[prefix]


#: Why a line holding the prefix was not read, as listed by ``ignored_lines_of``.
IGNORED_RULES = ("skip_fenced_code", "scope_prefix")

# An opening fence: up to three spaces, then three or more backticks or tildes (CommonMark);
# a backtick fence's info string may not contain a backtick.
_FENCE_OPEN = re.compile(r"^ {0,3}(?P<fence>`{3,}(?=[^`]*\Z)|~{3,})")


def is_directive_like(line: str, prefix: str, scope: str = "line") -> bool:
    """Whether ``line`` (no terminator) must be read as a directive under ``prefix``.

    ``scope="line"`` (the seed's rule): it contains the prefix or its first non-space
    character is the prefix's first character. ``scope="prefix"``: its first
    white-space-separated token is exactly the prefix. Both are decided on the folded
    line when it is not ASCII (full-width ``＠``, Cyrillic ``е`` count as ``@``, ``e``),
    so a look-alike directive is read, and refused as malformed, never skipped.
    """
    if not line.isascii():
        # Decide on the folded line: a look-alike of the prefix must not pass as prose.
        line, prefix = fold_lookalikes(line), fold_lookalikes(prefix)
    if scope == "prefix":
        tokens = line.split(maxsplit=1)
        return bool(tokens) and tokens[0] == prefix
    return prefix in line or line.lstrip().startswith(prefix[0])


def holds_prefix(line: str, prefix: str) -> bool:
    """Whether ``line`` contains ``prefix``, look-alikes folded on a non-ASCII line (see ``is_directive_like``)."""
    if line.isascii():
        return prefix in line
    return fold_lookalikes(prefix) in fold_lookalikes(line)


def _closes(line: str, fence: str) -> bool:
    """Whether ``line`` closes a block opened by ``fence``: same character, at least as long, nothing after."""
    stripped = line.lstrip(" ")
    if len(line) - len(stripped) > 3:
        return False
    body = stripped.rstrip(" \t")
    return len(body) >= len(fence) and body == fence[0] * len(body)


def _candidate_lines(text: str, schema: ClaimSchema) -> Iterator[tuple[int, int, str, str]]:
    """``(line number, start offset, line, ignored_rule)`` for every line the parser must look at.

    ``ignored_rule`` is ``""`` for a directive-like line to read, else the opt-in
    (``IGNORED_RULES``) that keeps a line holding the prefix from being read. Lines
    that are neither are not yielded.
    """
    prefix, scope, skip_fences = schema.prefix, schema.directive_scope, schema.skip_fenced_code
    first = prefix[0]
    folded_first = fold_lookalikes(prefix)[0]
    fence = ""  # the opening fence of the code block we are in, "" outside one
    offset = 0
    for number, raw in enumerate(text.splitlines(keepends=True), start=1):
        start = offset
        offset += len(raw)
        if skip_fences:
            # Fences must be tracked on every line, so this path has no prose fast path.
            line = raw.rstrip(LINE_TERMINATORS)
            if fence:
                if _closes(line, fence):
                    fence = ""
                if holds_prefix(line, prefix) or is_directive_like(line, prefix, scope):
                    yield number, start, line, "skip_fenced_code"
                continue
            opening = _FENCE_OPEN.match(line) if ("`" in line or "~" in line) else None
            if opening is not None:
                fence = opening["fence"]
                if holds_prefix(line, prefix):
                    yield number, start, line, "skip_fenced_code"
                continue
        # Both directive-like conditions (and holding the prefix) need the prefix's first character
        # on the line, after folding for a non-ASCII line (full-width '＠'): these C-level tests skip
        # ordinary prose lines without building a stripped copy of each.
        if first not in raw and (raw.isascii() or folded_first not in fold_lookalikes(raw)):
            continue
        # A kept line ends in exactly one terminator (one or two characters, "\r\n"), never
        # inside the line: splitlines would have split there.
        line = raw.rstrip(LINE_TERMINATORS)
        if is_directive_like(line, prefix, scope):
            yield number, start, line, ""
        elif scope == "prefix" and holds_prefix(line, prefix):
            yield number, start, line, "scope_prefix"


#: The longest list of allowed values a refusal spells in full (characters, as ``['refuse', 'overwrite']``);
#: a longer enumeration is named by its count and its first values.
ENUMERATION_CHARS = 200


def allowed_values(values) -> str:  # noqa: ANN001 - the schema's tuple of allowed values
    """The enumeration as a refusal names it: the list itself when short, else its count and first values."""
    listed = str(list(values))
    if len(listed) <= ENUMERATION_CHARS:
        return listed  # the seed's spelling, byte for byte
    shown: list[str] = []
    for value in values:
        if len(", ".join([*shown, repr(value)])) > ENUMERATION_CHARS // 2:
            break
        shown.append(repr(value))
    return f"the {len(values)} allowed values ({', '.join(shown)}, ...)"


def parse_directives(text: str, schema: ClaimSchema, source_id: str = "") -> list[dict]:
    """Parse every directive of one source text.

    Returns one dict per directive, in line order, with ``DIRECTIVE_FIELDS``:
    ``operation, claim_key, value`` (str), ``start_line, end_line`` (1-based, equal
    for a one-line directive), ``start, end`` (character offsets with
    ``text[start:end] == quote``) and ``quote`` (the whole directive line).
    A text with no directive-like line returns ``[]``.

    Raises ``DirectiveError`` (reason codes in the module docstring); its detail
    names ``source_id`` and the 1-based line.
    """
    prefix = schema.prefix
    pattern = _pattern(prefix)
    directives: list[dict] = []
    seen: set[tuple[str, str]] = set()
    # Fast path: an ASCII text without the prefix's first character has no directive-like line.
    if prefix[0] not in text and text.isascii():
        return directives
    for number, start, line, ignored in _candidate_lines(text, schema):
        if ignored:
            continue
        end = start + len(line)
        where = f"{source_id}:{number}" if source_id else f"line {number}"
        match = pattern.fullmatch(line)
        if match is None:
            raise DirectiveError("malformed_directive", f"{where}: {line[:120]!r} is not {schema.grammar}")
        operation, key, value = match["operation"], match["key"], match["value"]
        if operation not in schema.operations:
            raise DirectiveError("unsupported_operation", f"{where}: operation {operation!r}")
        allowed = schema.operations[operation]
        if key not in allowed:
            raise DirectiveError("unsupported_claim_key", f"{where}: {operation}.{key}")
        if value not in allowed[key]:
            raise DirectiveError(
                "unknown_directive_value",
                f"{where}: {operation}.{key}={value[:60]} not in {allowed_values(allowed[key])}",
            )
        if (operation, key) in seen:
            raise DirectiveError("duplicate_directive", f"{where}: {operation}.{key} declared again")
        seen.add((operation, key))
        directives.append(
            {
                "operation": operation,
                "claim_key": key,
                "value": value,
                "start_line": number,
                "end_line": number,
                "start": start,
                "end": end,
                "quote": line,
            }
        )
    return directives


def ignored_lines_of(text: str, schema: ClaimSchema, source_id: str = "") -> list[dict]:
    """Lines an opt-in keeps from being read that hold the prefix or that the scope would read, in line order.

    One dict per line: ``source_id``, ``line`` (1-based), ``rule`` (``"skip_fenced_code"``
    or ``"scope_prefix"``) and ``quote`` (the whole line, at most 200 characters). Always
    ``[]`` under the seed's rule (no opt-in), which reads every such line.
    """
    if not (schema.skip_fenced_code or schema.directive_scope != "line") or (
        schema.prefix[0] not in text and text.isascii()
    ):
        return []
    return [
        {"source_id": source_id, "line": number, "rule": rule, "quote": line[:200]}
        for number, _, line, rule in _candidate_lines(text, schema)
        if rule
    ]
