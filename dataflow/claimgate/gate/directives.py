"""The directive parser: explicit machine-readable claims, never prose.

A source declares claims with whole lines such as ``@quill create_copy
existing_path=refuse``. The parser reads only those lines; it never interprets the
prose around them. A line (without its terminator, as ``str.splitlines`` splits) is
*directive-like* when it contains the schema prefix or its first non-space
character is the prefix's first character; a directive-like line must then match
``<prefix> <operation> <key>=<value>`` in full (single spaces, no leading or
trailing white space), each name ``[a-z_]+`` (docs/gate-rules.md, "Directives").

Errors (``DirectiveError``; the first in line order wins), checked per line in this
order: ``malformed_directive``, ``unsupported_operation``, ``unsupported_claim_key``,
``unknown_directive_value``, then ``duplicate_directive`` (the same operation and key
declared twice in one source, whatever the values).
"""

from __future__ import annotations

import re

from claimgate.errors import DirectiveError
from claimgate.gate.schema import ClaimSchema
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


def is_directive_like(line: str, prefix: str) -> bool:
    """Whether ``line`` (no terminator) must be read as a directive under ``prefix``."""
    return prefix in line or line.lstrip().startswith(prefix[0])


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
    first = prefix[0]
    pattern = _pattern(prefix)
    directives: list[dict] = []
    seen: set[tuple[str, str]] = set()
    # Fast path: a text with neither the prefix nor its first character has no directives.
    if first not in text:
        return directives
    offset = 0
    for number, raw in enumerate(text.splitlines(keepends=True), start=1):
        start = offset
        offset += len(raw)
        # Both directive-like conditions need the prefix's first character on the line: this
        # C-level test skips ordinary prose lines without building a stripped copy of each.
        if first not in raw:
            continue
        # A kept line ends in exactly one terminator (one or two characters, "\r\n"), never
        # inside the line: splitlines would have split there.
        line = raw.rstrip(LINE_TERMINATORS)
        end = start + len(line)
        if not is_directive_like(line, prefix):
            continue
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
                "unknown_directive_value", f"{where}: {operation}.{key}={value[:60]} not in {list(allowed[key])}"
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
