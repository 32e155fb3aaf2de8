"""Parsing JSON input text so that every way it can fail is a ``json.JSONDecodeError``.

Why this exists: ``json.loads`` raises a plain ``ValueError`` (not a ``JSONDecodeError``)
for an integer literal longer than Python's integer-string limit (4,300 digits by
default, ``sys.get_int_max_str_digits``), a ``RecursionError`` for lists or objects
nested about a thousand levels deep, and it reads ``NaN``, ``Infinity`` and numbers
too large for a double (``1e400``), which are not JSON (RFC 8259) and could not be
written back out as JSON. ``loads_json`` turns each of these into a
``JSONDecodeError`` with a position, so each reader's existing refusal
(``invalid_case_table``, ``invalid_citation_table``, ``invalid_manifest``,
``invalid_corpus``) names it with its line: such input is refused, not read. A row of a
table (``loads_json_row``) may also be nested at most ``MAX_ROW_NESTING`` levels (its
values are echoed into the output, and deeper values cannot be written reliably) and may
not name a key twice in one object (``json.loads`` would keep the last value silently).
The rules: docs/gate-rules.md, "Case tables".
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Callable

import orjson


def _too_long_number_position(text: str, limit: int) -> int:
    """Character offset (0-based) of the first run of more than ``limit`` digits in ``text``; 0 if none."""
    match = re.search(rf"[0-9]{{{limit + 1},}}", text)
    return match.start() if match else 0


class _NotJson(ValueError):
    """``NaN``, ``Infinity``, ``-Infinity`` or a number beyond a double's range, met while parsing."""

    def __init__(self, message: str, literal: str) -> None:
        self.literal = literal
        super().__init__(message)


def _refuse_constant(name: str) -> float:
    raise _NotJson(f"{name} is not JSON", name)


def _finite_float(literal: str) -> float:
    value = float(literal)
    if value in (float("inf"), float("-inf")):
        raise _NotJson(f"the number {literal[:40]} is too large for a double", literal)
    return value


#: Where a non-JSON constant or number may stand: after a bracket, comma, colon or at the start.
_CONSTANT_AT = re.compile(r"(?:^|[\[,:])\s*(-?(?:NaN|Infinity|[0-9][0-9.eE+-]*))")


def _constant_position(text: str, literal: str) -> int:
    """Offset of the first ``literal`` standing as a value in ``text`` (0 if it cannot be told)."""
    for match in _CONSTANT_AT.finditer(text):
        value = match.group(1)
        if value == literal or (literal not in ("NaN", "Infinity", "-Infinity") and value[:40] == literal[:40]):
            return match.start(1)
    return 0


def loads_json(text: str, object_pairs_hook: Callable[[list[tuple[str, object]]], object] | None = None) -> object:
    """``json.loads(text, object_pairs_hook=...)``, raising only ``json.JSONDecodeError`` for text that is not JSON.

    Refused as ``JSONDecodeError`` (line and column 1-based, as ``JSONDecodeError``
    counts them): an integer longer than the integer-string limit ("a number has more
    than N digits", at the first digit run that long); ``NaN``, ``Infinity``,
    ``-Infinity`` and a number too large for a double (at the value); lists or objects
    nested too deeply for the parser ("nested too deeply", at offset 0). Errors raised
    by ``object_pairs_hook`` itself (subclasses of ``ValueError`` included) pass through.
    """
    try:
        return json.loads(
            text, object_pairs_hook=object_pairs_hook, parse_constant=_refuse_constant, parse_float=_finite_float
        )
    except json.JSONDecodeError:
        raise
    except _NotJson as exc:
        raise json.JSONDecodeError(str(exc), text, _constant_position(text, exc.literal)) from None
    except RecursionError:
        raise json.JSONDecodeError("lists or objects nested too deeply", text, 0) from None
    except ValueError as exc:
        # int() raises exactly ValueError for a too-long literal; a hook's own error is a subclass.
        if type(exc) is not ValueError:
            raise
        limit = sys.get_int_max_str_digits()
        position = _too_long_number_position(text, limit)
        raise json.JSONDecodeError(f"a number has more than {limit} digits", text, position) from None


#: Deepest nesting of lists and objects in one table row: rows are echoed into the output, and
#: orjson writes at most 254 levels (the standard encoder fails near the recursion limit).
MAX_ROW_NESTING = 100


def where_json_failed(exc: json.JSONDecodeError) -> str:
    """``exc``'s message and place as ``json`` spells them: ``"Expecting value: line 2 column 5"`` (1-based line
    and column in characters; a message such as ``Unterminated string starting at`` reads on into the place)."""
    return f"{exc.msg}: line {exc.lineno} column {exc.colno}"


def nesting_depth(value: object) -> int:
    """Levels of lists and objects in ``value`` (0 for a scalar, 1 for ``[]``); iterative, so any depth is safe."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        current, level = stack.pop()
        if isinstance(current, dict):
            children = current.values()
        elif isinstance(current, list):
            children = current
        else:
            continue
        deepest = max(deepest, level)
        stack.extend((child, level + 1) for child in children)
    return deepest


def row_nesting_problem(row: object, text: str) -> str:
    """``""``, or why ``row`` (parsed from ``text``) is nested too deeply to be a table row."""
    if text.count("[") + text.count("{") <= MAX_ROW_NESTING:  # cheap: most rows hold a handful of brackets
        return ""
    depth = nesting_depth(row)
    return f"nested {depth} levels deep (at most {MAX_ROW_NESTING})" if depth > MAX_ROW_NESTING else ""


#: ``bytes.translate`` table: ASCII digits stay ``0``, every other byte becomes a space.
_DIGITS_ONLY = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
#: A run of 19 digits: an integer orjson would read as a float (beyond 64 bits), or a long mantissa.
_LONG_DIGIT_RUN = b"0" * 19


def has_long_digit_run(text: str | bytes) -> bool:
    """Whether ``text`` (or UTF-8 bytes) holds 19 or more ASCII digits in a row (a byte translation and a search)."""
    data = text if isinstance(text, bytes) else text.encode("utf-8", "surrogatepass")
    return _LONG_DIGIT_RUN in data.translate(_DIGITS_ONLY)


def lines_with_long_digit_runs(data: bytes) -> set[int]:
    """The lines of ``data`` (0-based, as ``bytes.splitlines`` numbers them) for which ``has_long_digit_run`` holds.

    For a whole JSON Lines file at once: one translation of the bytes and a search from run to run, not a
    call per line. A file holding a carriage return is split and searched line by line.
    """
    digits = data.translate(_DIGITS_ONLY)
    if _LONG_DIGIT_RUN not in digits:
        return set()
    if b"\r" in data:
        return {number for number, line in enumerate(data.splitlines()) if has_long_digit_run(line)}
    numbers, line, counted, at = set(), 0, 0, digits.find(_LONG_DIGIT_RUN)
    while at >= 0:
        line += data.count(b"\n", counted, at)
        numbers.add(line)
        counted = data.find(b"\n", at)
        if counted < 0:
            break
        at = digits.find(_LONG_DIGIT_RUN, counted)
    return numbers


class DuplicateKeyError(ValueError):
    """A JSON object repeats a key (``json`` would silently keep the last value)."""

    def __init__(self, key: str) -> None:
        self.key = key
        super().__init__(key)


def unique_keys(pairs: list[tuple[str, object]]) -> dict:
    """``object_pairs_hook`` that refuses a repeated key (``DuplicateKeyError``) instead of letting the last one win."""
    document: dict = {}
    for key, value in pairs:
        if key in document:
            raise DuplicateKeyError(key)
        document[key] = value
    return document


def _pair_count(value: object) -> int:
    """Keys of every object in ``value`` (iteratively, so any depth is safe)."""
    count, stack = 0, [value]
    while stack:
        current = stack.pop()
        if isinstance(current, dict):
            count += len(current)
            stack.extend(current.values())
        elif isinstance(current, list):
            stack.extend(current)
    return count


def repeated_key(value: object, text: str) -> tuple[str, int] | None:
    """``(message, offset)`` when an object in ``text`` (parsed as ``value``) names a key twice, else ``None``.

    Exact and cheap for most rows: every key of the text stands before a colon, so when the
    text holds no more colons than ``value`` has keys, no key can repeat (a repeated key
    leaves one key fewer in ``value``). Otherwise the text is parsed again, noting each key.
    """
    pairs = len(value) if type(value) is dict and text.count("{") == 1 else _pair_count(value)
    if text.count(":") == pairs:
        return None
    try:
        json.loads(text, object_pairs_hook=unique_keys)
    except DuplicateKeyError as exc:
        key = exc.key
        quoted = json.dumps(key, ensure_ascii=False)
        first = text.find(quoted)
        second = text.find(quoted, first + 1) if first >= 0 else -1
        return f"key {key!r} appears twice in one object", max(second, 0)
    return None


def loads_json_row(text: str) -> object:
    """``loads_json(text)`` for one small row (a JSON Lines line), read by ``orjson`` where that gives the same value.

    ``orjson`` is about twice as fast on rows of a few hundred characters. It is used
    only where it returns exactly what ``json.loads`` returns (tested on random JSON): text
    holding a run of 19 or more digits (an integer beyond 64 bits, which orjson reads as a
    float, or a long mantissa) and text orjson refuses (``NaN``, ``1e400``, an escaped lone
    surrogate, malformed JSON) go to ``loads_json``, so its values and its refusals are
    unchanged. A row nested more than ``MAX_ROW_NESTING`` levels deep (at offset 0) and a
    row with an object that names a key twice (``repeated_key``, at the second) are refused
    as ``JSONDecodeError``: which of the two values was meant cannot be told.
    """
    row = _NO_ROW
    if not has_long_digit_run(text):
        try:
            row = orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # the standard parser reads it, or refuses it with its own wording
    if row is _NO_ROW:
        row = loads_json(text)
    if type(row) is dict and text.count("{") == 1 and text.count(":") == len(row):
        # One object (so at most one "[" per level below it) with as many colons as keys: no key repeats,
        # and it nests no deeper than its brackets allow.
        if text.count("[") < MAX_ROW_NESTING:
            return row
    problem = row_nesting_problem(row, text)
    if problem:
        raise json.JSONDecodeError(problem, text, 0)
    repeated = repeated_key(row, text)
    if repeated:
        raise json.JSONDecodeError(repeated[0], text, repeated[1])
    return row


_NO_ROW = object()
