"""Parsing JSON input text so that every way it can fail is a ``json.JSONDecodeError``.

Why this exists: ``json.loads`` raises a plain ``ValueError`` (not a ``JSONDecodeError``)
for an integer literal longer than Python's integer-string limit (4,300 digits by
default, ``sys.get_int_max_str_digits``), so a reader that catches ``JSONDecodeError``
lets a hostile number through as a traceback. ``loads_json`` turns that one error into
a ``JSONDecodeError`` with the position of the number, so each reader's existing
refusal (``invalid_case_table``, ``invalid_citation_table``, ``invalid_manifest``,
``invalid_corpus``) names it with its line. Such a number is refused, not read: it could
not be written back out either.
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


def loads_json(text: str, object_pairs_hook: Callable[[list[tuple[str, object]]], object] | None = None) -> object:
    """``json.loads(text, object_pairs_hook=...)``, raising only ``json.JSONDecodeError`` for text that is not JSON.

    An integer longer than the integer-string limit becomes a ``JSONDecodeError``
    ("a number has more than N digits") placed at the first digit run that long
    (line and column 1-based, as ``JSONDecodeError`` counts them). Errors raised by
    ``object_pairs_hook`` itself (subclasses of ``ValueError`` included) pass through.
    """
    try:
        return json.loads(text, object_pairs_hook=object_pairs_hook)
    except json.JSONDecodeError:
        raise
    except ValueError as exc:
        # int() raises exactly ValueError for a too-long literal; a hook's own error is a subclass.
        if type(exc) is not ValueError:
            raise
        limit = sys.get_int_max_str_digits()
        position = _too_long_number_position(text, limit)
        raise json.JSONDecodeError(f"a number has more than {limit} digits", text, position) from None


#: ``bytes.translate`` table: ASCII digits stay ``0``, every other byte becomes a space.
_DIGITS_ONLY = bytes(48 if 48 <= byte <= 57 else 32 for byte in range(256))
#: A run of 19 digits: an integer orjson would read as a float (beyond 64 bits), or a long mantissa.
_LONG_DIGIT_RUN = b"0" * 19


def has_long_digit_run(text: str) -> bool:
    """Whether ``text`` holds 19 or more ASCII digits in a row (a byte translation and a search, not a regex)."""
    return _LONG_DIGIT_RUN in text.encode("utf-8", "surrogatepass").translate(_DIGITS_ONLY)


def loads_json_row(text: str) -> object:
    """``loads_json(text)`` for one small row (a JSON Lines line), read by ``orjson`` where that gives the same value.

    ``orjson`` is about twice as fast on rows of a few hundred characters. It is used
    only where it returns exactly what ``json.loads`` returns (tested on random JSON): text
    holding a run of 19 or more digits (an integer beyond 64 bits, which orjson reads as a
    float, or a long mantissa) and text orjson refuses (``NaN``, ``1e400``, an escaped lone
    surrogate, malformed JSON) go to ``loads_json``, so its values and its refusals are
    unchanged.
    """
    if not has_long_digit_run(text):
        try:
            return orjson.loads(text)
        except orjson.JSONDecodeError:
            pass  # the standard parser reads it, or refuses it with its own wording
    return loads_json(text)
