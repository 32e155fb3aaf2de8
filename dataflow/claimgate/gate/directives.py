"""The directive parser: explicit machine-readable claims, never prose.

A source declares claims with whole lines such as ``@quill create_copy
existing_path=refuse``. The parser reads only those lines; it never interprets the
prose around them. A line (without its terminator, as ``str.splitlines`` splits) is
*directive-like* under the seed's rule (schema ``[directives] scope = "line"``, the
default) when it contains the schema prefix or its first non-space character is the
prefix's first character; a directive-like line must then match
``<prefix> <operation> <key>=<value>`` in full (single spaces, no leading or
trailing white space), each name ``[a-z0-9_]+``, bare or in one of ``DIRECTIVE_FORMS``
(an HTML, reStructuredText or MyST comment; docs/gate-rules.md, "Directives" and
"Directive forms"). A typed key's value is read by ``values.ValueType``.

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
``unknown_directive_value`` (an enumeration key) or ``wrong_value_type`` (a typed key),
then ``duplicate_directive`` (the same operation and key declared twice in one source,
whatever the values). ``directive_problems`` lists every problem instead (``claimgate lint``).
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from claimgate.errors import DirectiveError
from claimgate.gate.context import context_span
from claimgate.gate.schema import ClaimSchema
from claimgate.gate.values import VALUE_TOKEN, ValueType
from claimgate.lookalikes import fold_lookalikes
from claimgate.textlines import LINE_TERMINATORS

#: ``DirectiveError`` reasons, in the order each line is checked (the tests check every raise is listed).
DIRECTIVE_ERROR_REASONS = (
    "malformed_directive",
    "unsupported_operation",
    "unsupported_claim_key",
    "unknown_directive_value",
    "wrong_value_type",
    "duplicate_directive",
)

#: Fields of one parsed directive, in order (offsets are characters; lines are 1-based).
DIRECTIVE_FIELDS = ("operation", "claim_key", "value", "start_line", "end_line", "start", "end", "quote")

_PATTERNS: dict[str, re.Pattern[str]] = {}


def _pattern(prefix: str) -> re.Pattern[str]:
    if prefix not in _PATTERNS:
        _PATTERNS[prefix] = re.compile(
            re.escape(prefix) + rf" (?P<operation>[a-z0-9_]+) (?P<key>[a-z0-9_]+)=(?P<value>{VALUE_TOKEN})"
        )
    return _PATTERNS[prefix]


#: The forms a directive may take on its line, as ``(name, opening, closing)``: the line must be exactly
#: ``opening + directive + closing`` (single spaces, nothing before or after). Every form is read by
#: every schema; a directive-like line that fits none is ``malformed_directive`` (docs/gate-rules.md,
#: "Directive forms").
DIRECTIVE_FORMS = (
    ("line", "", ""),
    ("html_comment", "<!-- ", " -->"),
    ("rst_comment", ".. ", ""),
    ("myst_comment", "% ", ""),
)

#: An enumeration value keeps the seed's rule: a name, else the line is malformed (never a guess at a type).
_ENUM_VALUE = re.compile(r"[a-z0-9_]+\Z")


def directive_of(line: str, prefix: str) -> tuple[str, int, re.Match[str]] | None:
    """``(form name, offset of the directive in the line, match)`` for a line in one of ``DIRECTIVE_FORMS``.

    The match is the grammar ``<prefix> <operation> <key>=<value>`` on the directive's own
    characters (``line[offset:offset + len(match[0])]``); ``None`` when no form fits in full.
    """
    pattern = _pattern(prefix)
    for name, opening, closing in DIRECTIVE_FORMS:
        if line.startswith(opening) and line.endswith(closing) and len(line) >= len(opening) + len(closing):
            match = pattern.fullmatch(line, len(opening), len(line) - len(closing))
            if match is not None:
                return name, len(opening), match
    return None


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
        if tokens and tokens[0] != prefix:
            # A hidden form's opening (``<!--``, ``..``, ``%``) may stand before the prefix.
            for _, opening, _ in DIRECTIVE_FORMS[1:]:
                if line.startswith(opening):
                    tokens = line[len(opening) :].split(maxsplit=1)
                    break
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
    ``operation, claim_key, value`` (str, the value as written), ``start_line, end_line``
    (1-based, equal for a one-line directive), ``start, end`` (character offsets with
    ``text[start:end] == quote``) and ``quote`` (the directive's own characters: the
    whole line for a bare directive, without the comment markers of a hidden form);
    a typed key's directive adds ``typed_value`` (``values.ValueType.read``).
    A text with no directive-like line returns ``[]``.

    Raises ``DirectiveError`` (reason codes in the module docstring); its detail
    names ``source_id`` and the 1-based line.
    """
    directives: list[dict] = []
    for item in read_directives(text, schema, source_id):
        if isinstance(item, DirectiveError):
            raise item
        directives.append(item)
    return directives


def directive_problems(text: str, schema: ClaimSchema, source_id: str = "") -> tuple[list[dict], list[tuple]]:
    """Every directive and **every** problem of one text (``parse_directives`` stops at the first).

    Returns ``(directives, problems)``: the directives that are well formed (as
    ``parse_directives`` gives them) and one ``(line, reason, detail)`` per refused line
    (``line`` 1-based), both in line order. Used by ``claimgate lint`` (docs/gate-rules.md, "Lint").
    """
    directives: list[dict] = []
    problems: list[tuple] = []
    for item in read_directives(text, schema, source_id):
        if isinstance(item, DirectiveError):
            problems.append((item.line, item.reason, item.detail))
        else:
            directives.append(item)
    return directives, problems


def read_directives(text: str, schema: ClaimSchema, source_id: str = ""):
    """Yield, in line order, each directive (a dict) or the ``DirectiveError`` refusing its line (``.line`` set)."""
    prefix = schema.prefix
    seen: set[tuple[str, str]] = set()
    # Fast path: an ASCII text without the prefix's first character has no directive-like line.
    if prefix[0] not in text and text.isascii():
        return
    for number, start, line, ignored in _candidate_lines(text, schema):
        if ignored:
            continue
        where = f"{source_id}:{number}" if source_id else f"line {number}"
        error = _line_error(line, number, where, schema, seen)
        if isinstance(error, DirectiveError):
            error.line = number
            yield error
            continue
        offset, match, typed = error
        operation, key, value = match["operation"], match["key"], match["value"]
        seen.add((operation, key))
        directive = {
            "operation": operation,
            "claim_key": key,
            "value": value,
            "start_line": number,
            "end_line": number,
            "start": start + offset,
            "end": start + offset + len(match[0]),
            "quote": match[0],
        }
        if typed is not None:
            directive["typed_value"] = typed
        if schema.context:
            directive["context"] = context_span(text, directive["start"], prefix)
        yield directive


def _line_error(line: str, number: int, where: str, schema: ClaimSchema, seen: set):
    """The ``DirectiveError`` refusing one directive-like line, else ``(offset, match, typed value or None)``."""
    found = directive_of(line, schema.prefix)
    if found is None:
        return DirectiveError("malformed_directive", f"{where}: {line[:120]!r} is not {schema.grammar}")
    _, offset, match = found
    operation, key, value = match["operation"], match["key"], match["value"]
    spec = schema.operations.get(operation, {}).get(key)
    if not isinstance(spec, ValueType) and not _ENUM_VALUE.match(value):
        # Only a typed key reads a value that is not a name (the seed's grammar, checked first).
        return DirectiveError("malformed_directive", f"{where}: {line[:120]!r} is not {schema.grammar}")
    if operation not in schema.operations:
        return DirectiveError("unsupported_operation", f"{where}: operation {operation!r}")
    if spec is None:
        return DirectiveError("unsupported_claim_key", f"{where}: {operation}.{key}")
    typed = None
    if isinstance(spec, ValueType):
        typed = spec.read(value)
        if typed is None:
            wanted = spec.type + (f" matching {spec.pattern}" if spec.pattern else "")
            return DirectiveError("wrong_value_type", f"{where}: {operation}.{key}={value[:60]} is not a {wanted}")
    elif value not in spec:
        return DirectiveError(
            "unknown_directive_value", f"{where}: {operation}.{key}={value[:60]} not in {allowed_values(spec)}"
        )
    if (operation, key) in seen:
        return DirectiveError("duplicate_directive", f"{where}: {operation}.{key} declared again")
    return offset, match, typed


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
