"""The tokenizer's Unicode tables are the same whether their facts are stored or scanned.

``audit.text.unicode_facts`` stores the scans of this Python's Unicode database (``unicode_facts.json``);
``token_rules`` and ``reference`` build their classes from them. Each table is checked here against the
scan written out again in its plain form (every code point tested), so a stale or wrong stored file fails.
"""

from __future__ import annotations

import json
import re
import unicodedata
from importlib import resources

import pytest
from claimgate.audit.text import reference, token_rules, unicode_facts
from claimgate.audit.text.unicode_facts import STORED, _well_formed, code_points, scanned, stored


def class_body(code_points_: list[int]) -> str:
    """A character-class body of ascending code points, one ``a-b`` range per run (the rules' spelling)."""
    out, runs = [], []
    for cp in code_points_:
        if runs and cp == runs[-1][1] + 1:
            runs[-1][1] = cp
        else:
            runs.append([cp, cp])
    for first, last in runs:
        out.append(f"{re.escape(chr(first))}-{re.escape(chr(last))}")
    return "".join(out)


def test_the_stored_facts_are_a_scan_of_this_pythons_unicode_database():
    on_disk = json.loads(resources.files("claimgate.audit.text").joinpath(STORED).read_text(encoding="utf-8"))
    if on_disk["unidata_version"] == unicodedata.unidata_version:
        assert stored() == scanned() == on_disk
    else:  # another Python: its own scan is used
        assert stored() is None and unicode_facts.facts() == scanned()


def test_the_letter_classes_are_every_cased_letter_of_the_bmp():
    assert token_rules._UPPER == class_body([cp for cp in range(0x10000) if chr(cp).isupper() and chr(cp).isalpha()])
    assert token_rules._LOWER == class_body([cp for cp in range(0x10000) if chr(cp).islower() and chr(cp).isalpha()])


def test_the_mark_class_is_every_combining_mark_of_the_bmp():
    marks = [cp for cp in range(0x300, 0x10000) if unicodedata.category(chr(cp)).startswith("M")]
    assert reference._MARKS == class_body(marks)


def test_the_symbols_and_digits_are_the_categories_the_rules_name():
    skip = set(token_rules.TYPOGRAPHIC_SYMBOLS) | set(token_rules._OWN_RULES)
    symbols = {chr(cp) for cp in range(0x20000) if unicodedata.category(chr(cp)) in ("Sc", "Sm", "So", "Sk")} - skip | {
        "%"
    }
    assert token_rules.SYMBOL_CHARS == symbols
    assert token_rules.SYMBOL_CLASS == class_body(sorted(map(ord, symbols)))
    nd = [cp for cp in range(0x80, 0x20000) if unicodedata.category(chr(cp)) == "Nd"]
    digits = {cp: str(unicodedata.decimal(chr(cp))) for cp in nd}
    assert token_rules.DECIMAL_DIGITS == digits


def test_the_runs_are_ascending_and_give_back_their_code_points():
    facts = scanned()
    for name in ("symbols", "upper", "lower", "marks"):
        points = code_points(facts[name])
        assert points == sorted(set(points)) and unicode_facts.runs(points) == facts[name]


@pytest.mark.parametrize(
    "change",
    [
        lambda f: f.update(unidata_version="1.1.0"),
        lambda f: f.pop("marks"),
        lambda f: f.update(upper=[[1, "2"]]),
        lambda f: f.update(lower=[[1, 2, 3]]),
        lambda f: f.update(decimal_digits="0-9"),
        lambda f: f.update(symbols=[[1.0, 2]]),
    ],
    ids=["other version", "a fact missing", "a string", "a triple", "not a list", "a float"],
)
def test_a_stored_file_of_another_version_or_shape_is_not_used(change):
    facts = json.loads(json.dumps(scanned()))
    assert _well_formed(facts)
    change(facts)
    assert not _well_formed(facts)


def test_without_a_usable_stored_file_the_facts_are_scanned(monkeypatch):
    monkeypatch.setattr(unicode_facts, "stored", lambda: None)
    unicode_facts.facts.cache_clear()
    try:
        assert unicode_facts.facts() == scanned()
    finally:
        unicode_facts.facts.cache_clear()
