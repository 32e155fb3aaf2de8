"""The Unicode facts the tokenizer's tables are built from, scanned once per Unicode version and stored.

Why: ``token_rules`` and ``reference`` build their character classes from scans of the Unicode database
(which characters are symbols, decimal digits, upper- or lowercase letters, combining marks); the scans
took about 0.04 s of every audit and recheck process. They depend only on ``unicodedata.unidata_version``,
so the facts of this package's Python (``unicode_facts.json``, written by ``python -m
claimgate.audit.text.unicode_facts``) are read instead; any other Unicode version is scanned at import, as
before. Which characters the rules then pick from these facts stays in the rules' modules
(docs/audit-rules.md, "Symbols" and "Case").

What it refuses to do: trust a stored file that is not of this Unicode version or not of the facts'
shape: it is scanned again. ``tests/audit/text/test_unicode_facts.py`` holds the stored facts equal to a
scan on the Python that runs the tests.
"""

from __future__ import annotations

import json
import sys
import unicodedata
from functools import lru_cache
from importlib import resources

#: Unicode general categories whose characters are tokens of their own (one character each).
SYMBOL_CATEGORIES = ("Sc", "Sm", "So", "Sk")
#: Symbols at or above this code point are not scanned (none of the categories is assigned there today).
SYMBOL_SCAN_LIMIT = 0x20000
#: Where each fact is scanned, ``(first code point, end)``: the rules' own ranges.
SCANNED_RANGES = {
    "symbols": (0, SYMBOL_SCAN_LIMIT),
    "decimal_digits": (0x80, 0x20000),
    "upper": (0, 0x10000),
    "lower": (0, 0x10000),
    "marks": (0x300, 0x10000),
}
#: The stored facts, beside this module (package data).
STORED = "unicode_facts.json"


def runs(code_points: list[int]) -> list[list[int]]:
    """Ascending code points as ``[first, last]`` runs of consecutive ones."""
    runs: list[list[int]] = []
    for cp in code_points:
        if runs and cp == runs[-1][1] + 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    return runs


def scanned() -> dict:
    """The facts of the running Python's Unicode database: ``{"unidata_version": str, "symbols", "upper",
    "lower", "marks": [[first, last], ...] (code point runs, ascending), "decimal_digits": [[code point,
    digit], ...]}``, each scanned over its ``SCANNED_RANGES``.

    ``symbols``: categories ``SYMBOL_CATEGORIES``; ``decimal_digits``: category ``Nd`` and its
    ``unicodedata.decimal``; ``upper``/``lower``: ``str.isupper``/``str.islower`` letters (``isalpha``);
    ``marks``: categories ``M*``.
    """
    category = unicodedata.category

    def where(fact: str, test) -> list[list[int]]:
        lo, hi = SCANNED_RANGES[fact]
        return runs([cp for cp in range(lo, hi) if test(chr(cp))])

    lo, hi = SCANNED_RANGES["decimal_digits"]
    return {
        "unidata_version": unicodedata.unidata_version,
        "symbols": where("symbols", lambda c: category(c) in SYMBOL_CATEGORIES),
        "upper": where("upper", lambda c: c.isupper() and c.isalpha()),
        "lower": where("lower", lambda c: c.islower() and c.isalpha()),
        "marks": where("marks", lambda c: category(c).startswith("M")),
        "decimal_digits": [[cp, unicodedata.decimal(chr(cp))] for cp in range(lo, hi) if category(chr(cp)) == "Nd"],
    }


def _well_formed(facts: object) -> bool:
    if not isinstance(facts, dict) or facts.get("unidata_version") != unicodedata.unidata_version:
        return False
    runs = [facts.get(name) for name in ("symbols", "upper", "lower", "marks")]
    pairs = [*runs, facts.get("decimal_digits")]
    return all(
        isinstance(items, list)
        and all(isinstance(p, list) and len(p) == 2 and all(type(v) is int for v in p) for p in items)
        for items in pairs
    )


def stored() -> dict | None:
    """The stored facts when they are of this Python's Unicode version and well formed, else ``None``."""
    try:
        facts = json.loads(resources.files(__package__).joinpath(STORED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return facts if _well_formed(facts) else None


@lru_cache(maxsize=1)
def facts() -> dict:
    """The facts (``scanned``'s shape): stored ones of this Unicode version, else a scan (once per process;
    the dict is shared: read it, never change it)."""
    return stored() or scanned()


def code_points(runs: list[list[int]]) -> list[int]:
    """Every code point of ``[first, last]`` runs, ascending."""
    return [cp for first, last in runs for cp in range(first, last + 1)]


def main() -> int:
    """Write the facts of this Python's Unicode version to stdout (redirect into ``unicode_facts.json``)."""
    sys.stdout.write(json.dumps(scanned(), separators=(",", ":")) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
