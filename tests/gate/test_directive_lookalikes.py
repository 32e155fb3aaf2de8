"""Look-alike directives (docs/gate-rules.md, "Directives"): a line whose folded copy (NFKC, invisible
characters removed, Cyrillic/Greek look-alikes folded) is directive-like is read, and refused as
``malformed_directive`` unless the raw line is exactly ``<prefix> <operation> <key>=<value>``. Never skipped.
"""

from __future__ import annotations

import dataclasses
import unicodedata

import pytest
from claimgate.errors import DirectiveError
from claimgate.gate.directives import ignored_lines_of, is_directive_like, parse_directives
from claimgate.gate.reference import decide_case
from claimgate.gate.schema import load_schema
from claimgate.lookalikes import LOOKALIKES, fold_lookalikes
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import pin_sources
from .test_gate_rules import case, run_cases

QUILL = load_schema()
PREFIX_SCOPE = dataclasses.replace(QUILL, directive_scope="prefix")
DIRECTIVE = "@quill create_copy existing_path=refuse"
OTHER_VALUE = "create_copy existing_path=overwrite"

# Each spells "@quill" to the eye: full-width and small commercial at, Cyrillic і, Cyrillic ӏ,
# a zero-width space inside the prefix, full-width letters.
LOOKALIKE_PREFIXES = ["＠quill", "﹫quill", "@quіll", "@quiӏl", "@qu\u200bill", "@ｑｕｉｌｌ"]


def malformed(text, schema):
    with pytest.raises(DirectiveError) as caught:
        parse_directives(text, schema, "page")
    return caught.value.reason == "malformed_directive"


@pytest.mark.parametrize("prefix", LOOKALIKE_PREFIXES)
@pytest.mark.parametrize("schema", [QUILL, PREFIX_SCOPE], ids=["scope_line", "scope_prefix"])
def test_lookalike_directive_is_malformed_not_silently_skipped(prefix, schema):
    assert malformed(f"{DIRECTIVE}\n{prefix} {OTHER_VALUE}\n", schema)


@pytest.mark.parametrize("schema", [QUILL, PREFIX_SCOPE], ids=["scope_line", "scope_prefix"])
def test_indented_fullwidth_at_line_is_directive_like(schema):
    assert is_directive_like("  ＠quill create_copy existing_path=overwrite", "@quill", "line")
    assert malformed(f"{DIRECTIVE}\n\u3000＠quill {OTHER_VALUE}\n", schema)


def test_cyrillic_e_in_prefix_is_malformed_under_prefix_scope():
    zeta = dataclasses.replace(PREFIX_SCOPE, prefix="@zeta")
    assert malformed("@zeta create_copy existing_path=refuse\n@zеta create_copy existing_path=overwrite\n", zeta)


def test_lookalike_prefix_mid_line_is_listed_as_ignored_under_prefix_scope():
    text = f"{DIRECTIVE}\nWrite to help@quіll.dev for help.\n"
    assert parse_directives(text, PREFIX_SCOPE, "page")[0]["value"] == "refuse"
    assert ignored_lines_of(text, PREFIX_SCOPE, "page") == [
        {"source_id": "page", "line": 2, "rule": "scope_prefix", "quote": "Write to help@quіll.dev for help."}
    ]


def test_non_ascii_prose_beside_a_directive_is_still_read():
    text = f"Café résumé — naïve prose.\n{DIRECTIVE}\nΕλληνικά, русский.\n"
    assert [d["value"] for d in parse_directives(text, QUILL, "page")] == ["refuse"]


def test_fullwidth_at_page_is_refused_by_the_batch_gate_and_the_reference(tmp_path):
    sources = {"page": ("1.0", f"{DIRECTIVE}\n＠quill {OTHER_VALUE}\n".encode())}
    manifest, _ = pin_sources(tmp_path, sources)
    result = run_cases(tmp_path, [case("c", ["page"])], manifest)["c"]
    assert (result["status"], result["reason"]) == ("refused", "malformed_directive")
    record = {"source_id": "page", "version": "1.0", "text": f"{DIRECTIVE}\n＠quill {OTHER_VALUE}\n"}
    reference = decide_case(case("c", ["page"]), {"page": record}, QUILL)
    assert (reference["status"], reference["reason"]) == ("refused", "malformed_directive")


def test_ascii_text_is_not_folded():
    line = "Plain ASCII @ line"
    assert fold_lookalikes(line) is line


TWINS = {**LOOKALIKES, "＠": "@", "\uff41": "a", "\uff45": "e"}  # plus full-width at and letters
SUBSTITUTIONS = [(i, k) for i, ch in enumerate(DIRECTIVE) for k, v in TWINS.items() if v == ch]


@settings(max_examples=200, deadline=None)
@given(substitution=st.sampled_from(SUBSTITUTIONS), scope=st.sampled_from([QUILL, PREFIX_SCOPE]))
def test_any_lookalike_character_in_a_directive_line_fails_closed(substitution, scope):
    """Replacing one character of a valid directive by a look-alike of it is refused, never skipped."""
    position, lookalike = substitution
    line = DIRECTIVE[:position] + lookalike + DIRECTIVE[position + 1 :]
    assert malformed(f"{DIRECTIVE}\n{line}\n", scope)


def test_every_invisible_format_character_is_deleted_by_the_fold():
    """A Cf character anywhere in Unicode (zero-width space, tag characters) cannot hide the prefix."""
    invisible = [chr(cp) for cp in range(0x80, 0x110000) if unicodedata.category(chr(cp)) == "Cf"]
    assert all(fold_lookalikes(f"@qu{ch}ill") == "@quill" for ch in invisible), [
        hex(ord(ch)) for ch in invisible if fold_lookalikes(f"@qu{ch}ill") != "@quill"
    ]
