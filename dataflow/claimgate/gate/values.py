"""Typed directive values: how a value token is read for a key the schema types (docs/gate-rules.md, "Typed values").

A schema key is either an enumeration (a list of names, the seed's rule, unchanged)
or a typed table ``{ type = "bool" | "number" | "integer" | "string", pattern = "…" }``
(``pattern`` only for ``string``). A directive's value token is the characters of
``VALUE_TOKEN`` (no white space, no ``<``, ``>``, quotes or ``=``); a typed key reads
it with the rule of its type below, strictly (no trimming, no guessing). Two values
agree when their typed values are equal: ``5`` and ``5.0`` for ``number``, ``True``
and ``true`` for ``bool``; the spelling as written is kept beside the typed value.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass

#: The characters a value token may hold (the directive grammar's ``<value>``).
VALUE_TOKEN = r"[A-Za-z0-9_.+:/-]+"

#: The value types a schema may name, each with the full-match rule of its spelling.
VALUE_TYPES: dict[str, re.Pattern[str]] = {
    "bool": re.compile(r"(?:true|false|True|False)\Z"),
    "integer": re.compile(r"[+-]?[0-9]+\Z"),
    "number": re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?\Z"),
    "string": re.compile(VALUE_TOKEN + r"\Z"),
}


@dataclass(frozen=True)
class ValueType:
    """A typed schema key: ``type`` (a key of ``VALUE_TYPES``) and, for ``string``, an optional ``pattern``.

    ``pattern`` is a regular expression the whole spelling must match (``""``: any token).
    Immutable and picklable.
    """

    type: str
    pattern: str = ""

    def read(self, spelling: str) -> bool | int | float | str | None:
        """The typed value of ``spelling``, or ``None`` when it is not a value of this type.

        ``bool``: ``true``/``True`` → ``True``, ``false``/``False`` → ``False``;
        ``integer``: decimal digits with an optional sign → ``int``; ``number``: a decimal
        with optional fraction and exponent → finite ``float``; ``string``: the spelling
        itself when it matches ``pattern`` in full.
        """
        if not VALUE_TYPES[self.type].match(spelling):
            return None
        if self.type == "bool":
            return spelling.lower() == "true"
        if self.type == "integer":
            return int(spelling)
        if self.type == "number":
            number = float(spelling)
            return number if math.isfinite(number) else None
        if self.pattern and re.fullmatch(self.pattern, spelling) is None:
            return None
        return spelling

    def as_dict(self) -> dict:
        """``{"type"[, "pattern"]}``: the schema's table as JSON."""
        return {"type": self.type, "pattern": self.pattern} if self.pattern else {"type": self.type}


def agreement_key(typed: bool | int | float | str) -> str:
    """The string two typed values of one key share exactly when they agree (typed equality).

    ``json.dumps`` of the typed value: ``5.0`` for both ``5`` and ``5.0`` read as ``number``,
    ``true`` for ``True``/``true``.
    """
    return json.dumps(typed)


def value_type_from(table: object, where: str) -> ValueType:
    """Validate a schema's typed table; raises ``ValueError`` with a one-line reason (the schema refuses it)."""
    if not isinstance(table, dict):
        raise ValueError(f"{where} must be a list of values or a table {{ type = ... }}")
    unknown = sorted(set(table) - {"type", "pattern"})
    if unknown:
        raise ValueError(f"{where} has an unknown key {unknown[0]!r} (known: type, pattern)")
    kind = table.get("type")
    if kind not in VALUE_TYPES:
        raise ValueError(f"{where}.type must be one of {', '.join(VALUE_TYPES)}, not {kind!r}")
    pattern = table.get("pattern", "")
    if "pattern" in table:
        if kind != "string":
            raise ValueError(f'{where}.pattern is only for type = "string"')
        if not isinstance(pattern, str) or not pattern:
            raise ValueError(f"{where}.pattern must be a non-empty string")
        try:
            re.compile(pattern)
        except re.error as exc:
            raise ValueError(f"{where}.pattern is not a regular expression: {exc}") from None
    return ValueType(kind, pattern)


def typed_columns(directive: dict) -> dict:
    """``typed_value``, ``agreement`` and ``agreed`` of one parsed directive or claim record.

    ``typed_value``: the typed value (``None`` for an enumeration key); ``agreement``: a
    string equal for two claims exactly when they agree (the enumeration value itself, or
    ``agreement_key``); ``agreed``: what ``agreed_value`` reports (the typed value, or the
    enumeration value).
    """
    typed = directive.get("typed_value")
    if typed is None:
        return {"typed_value": None, "agreement": directive["value"], "agreed": directive["value"]}
    return {"typed_value": typed, "agreement": agreement_key(typed), "agreed": typed}
