"""Text edge cases (docs/gate-rules.md, "Manifest and sources"): defined, tested behaviour through the whole gate.

Every case pins a page given as raw bytes, runs the gate, and checks the claim's lines and
character offsets against the decoded text (``text[start:end] == quote``). The rules: text is
strict UTF-8 with one leading BOM dropped (offsets count after it); a line is what
``str.splitlines`` yields (CRLF, CR, U+2028 and the other Unicode boundaries split lines);
offsets are code points, not bytes; nothing is normalized (tabs, NULs and decomposed accents
stay as written), and a directive-like line must fit the grammar exactly.
"""

from __future__ import annotations

import hashlib
import unicodedata

import pytest
from claimgate.execution import drivers
from claimgate.gate.directives import parse_directives
from claimgate.gate.schema import load_schema

from ..helpers import pin_sources

DIRECTIVE = "@quill create_copy existing_path=refuse"
QUILL = load_schema()


def gate_page(tmp_path, raw: bytes) -> tuple[dict, str]:
    """Pin one page with ``raw`` bytes, ask for ``existing_path`` at 1.0; return ``(result, verified text)``."""
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", raw)})
    run = drivers.run_gate(manifest, cases)
    (result,) = run.results["result"]
    (text,) = run.verified_sources["text"]
    return result, text


def the_claim(tmp_path, raw: bytes) -> tuple[dict, str]:
    result, text = gate_page(tmp_path, raw)
    assert result["status"] == "ready", result
    (claim,) = result["claims"]
    assert text[claim["start"] : claim["end"]] == claim["quote"] == DIRECTIVE
    assert claim["source_sha256"] == hashlib.sha256(raw).hexdigest()  # the pin is over raw bytes
    return claim, text


def refused_reason(tmp_path, raw: bytes) -> str:
    result, _ = gate_page(tmp_path, raw)
    assert result["status"] == "refused" and result["error"] == "DirectiveError"
    return result["reason"]


def span(claim: dict) -> tuple[int, int, int, int]:
    return claim["start_line"], claim["end_line"], claim["start"], claim["end"]


# ----------------------------------------------------------------------------- line endings


def test_crlf_line_endings_count_lines_and_exclude_the_terminator(tmp_path):
    claim, text = the_claim(tmp_path, f"# T\r\n\r\n{DIRECTIVE}\r\nafter\r\n".encode())
    assert span(claim) == (3, 3, 7, 7 + len(DIRECTIVE))
    assert text[claim["end"] : claim["end"] + 2] == "\r\n"  # kept in the text, not in the quote


def test_cr_only_line_endings_split_lines(tmp_path):
    claim, _ = the_claim(tmp_path, f"# T\r\r{DIRECTIVE}\rafter".encode())
    assert span(claim) == (3, 3, 5, 5 + len(DIRECTIVE))


def test_mixed_line_endings_each_count_as_one_boundary(tmp_path):
    claim, _ = the_claim(tmp_path, f"a\nb\r\nc\rd\n{DIRECTIVE}\n".encode())
    assert span(claim) == (5, 5, 9, 9 + len(DIRECTIVE))  # 2 + 3 + 2 + 2 characters before it


def test_a_missing_final_newline_ends_the_directive_at_the_end_of_the_text(tmp_path):
    claim, text = the_claim(tmp_path, f"# T\n{DIRECTIVE}".encode())
    assert span(claim) == (2, 2, 4, len(text))


def test_a_page_that_is_only_the_directive_is_line_one(tmp_path):
    claim, _ = the_claim(tmp_path, DIRECTIVE.encode())
    assert span(claim) == (1, 1, 0, len(DIRECTIVE))


# ----------------------------------------------------------------------------- byte-order mark


def test_a_utf8_bom_is_dropped_and_offsets_count_after_it(tmp_path):
    claim, text = the_claim(tmp_path, b"\xef\xbb\xbf" + f"# T\n{DIRECTIVE}\n".encode())
    assert not text.startswith("\ufeff")
    assert span(claim) == (2, 2, 4, 4 + len(DIRECTIVE))


def test_a_bom_right_before_the_directive_is_dropped_so_line_one_is_the_directive(tmp_path):
    claim, _ = the_claim(tmp_path, b"\xef\xbb\xbf" + DIRECTIVE.encode())
    assert span(claim) == (1, 1, 0, len(DIRECTIVE))


def test_a_bom_inside_the_text_is_kept_and_makes_a_directive_line_malformed(tmp_path):
    assert refused_reason(tmp_path, f"# T\n\ufeff{DIRECTIVE}\n".encode()) == "malformed_directive"


# ----------------------------------------------------------------------------- tabs and white space


def test_a_tab_in_prose_counts_as_one_character(tmp_path):
    claim, _ = the_claim(tmp_path, f"\tindented\tprose\n{DIRECTIVE}\n".encode())
    assert span(claim) == (2, 2, 16, 16 + len(DIRECTIVE))


@pytest.mark.parametrize(
    "line",
    [
        f"\t{DIRECTIVE}",
        DIRECTIVE.replace(" ", "\t", 1),
        f"{DIRECTIVE}\t",
        f"{DIRECTIVE} ",
        f"  {DIRECTIVE}",
        DIRECTIVE.replace(" ", "\u00a0", 1),
    ],
    ids=["leading-tab", "tab-separator", "trailing-tab", "trailing-space", "leading-spaces", "nbsp-separator"],
)
def test_white_space_other_than_single_spaces_makes_a_directive_malformed(tmp_path, line):
    assert refused_reason(tmp_path, f"# T\n{line}\n".encode()) == "malformed_directive"


# ----------------------------------------------------------------------------- NUL bytes


def test_a_nul_byte_in_prose_is_one_character_and_not_a_line_boundary(tmp_path):
    claim, text = the_claim(tmp_path, f"a\x00b\n{DIRECTIVE}\n".encode())
    assert "\x00" in text
    assert span(claim) == (2, 2, 4, 4 + len(DIRECTIVE))


def test_a_nul_byte_inside_a_directive_line_makes_it_malformed(tmp_path):
    assert refused_reason(tmp_path, f"{DIRECTIVE}\x00\n".encode()) == "malformed_directive"


# ----------------------------------------------------------------------------- very long lines


def test_a_very_long_prose_line_only_shifts_the_offsets(tmp_path):
    long_line = "word " * 200_000  # a million characters on one line
    claim, _ = the_claim(tmp_path, f"{long_line}\n{DIRECTIVE}\n".encode())
    assert span(claim) == (2, 2, len(long_line) + 1, len(long_line) + 1 + len(DIRECTIVE))


def test_a_very_long_directive_like_line_is_malformed_with_a_short_one_line_detail(tmp_path):
    manifest, cases = pin_sources(tmp_path, {"page": ("1.0", f"{DIRECTIVE} {'x' * 500_000}\n".encode())})
    run = drivers.run_gate(manifest, cases)
    (detail,) = run.results["detail"]
    assert run.results["reason"].tolist() == ["malformed_directive"]
    assert "\n" not in detail and len(detail) < 400


# ----------------------------------------------------------------------------- Unicode line separators


@pytest.mark.parametrize(
    "separator",
    ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"],
    ids=["U+2028", "U+2029", "NEL", "VT", "FF", "FS", "GS", "RS"],
)
def test_unicode_line_separators_split_lines_as_str_splitlines_does(tmp_path, separator):
    text = f"# T{separator}prose{separator}{DIRECTIVE}{separator}after"
    claim, decoded = the_claim(tmp_path, text.encode())
    assert decoded.splitlines()[claim["start_line"] - 1] == DIRECTIVE
    assert span(claim) == (3, 3, 10, 10 + len(DIRECTIVE))


def test_a_line_separator_inside_a_directive_splits_it_into_a_malformed_line(tmp_path):
    line = DIRECTIVE.replace(" existing_path", "\u2028existing_path")
    assert refused_reason(tmp_path, f"{line}\n".encode()) == "malformed_directive"


# ----------------------------------------------------------------------------- accents and code points


def test_decomposed_accents_count_code_points_not_bytes_or_graphemes(tmp_path):
    prose = "Cafe\u0301 re\u0301sume\u0301"  # 3 combining accents: 14 code points, 20 bytes, 11 graphemes
    claim, text = the_claim(tmp_path, f"{prose}\n{DIRECTIVE}\n".encode())
    assert len(prose) == 14
    assert span(claim) == (2, 2, 15, 15 + len(DIRECTIVE))
    assert unicodedata.normalize("NFC", text) != text  # nothing was normalized


def test_multibyte_characters_before_a_directive_count_as_one_offset_each(tmp_path):
    prose = "日本語 🙂 Ünïcödé"
    claim, _ = the_claim(tmp_path, f"{prose}\n{DIRECTIVE}\n".encode())
    assert claim["start"] == len(prose) + 1 < len(prose.encode()) + 1


@pytest.mark.parametrize(
    "value", ["refus\u00e9", "refuse\u0301", "r\u0435fuse"], ids=["precomposed", "decomposed", "cyrillic-e"]
)
def test_a_directive_value_with_a_non_ascii_letter_is_malformed_never_normalized(tmp_path, value):
    assert refused_reason(tmp_path, f"@quill create_copy existing_path={value}\n".encode()) == "malformed_directive"


def test_offsets_and_lines_agree_with_parse_directives_on_every_edge_text():
    texts = [
        f"\ufeffa\r\nb\rc\u2028d\x85e\x00\tf\n{DIRECTIVE}",
        f"Cafe\u0301\r\n\r\n{DIRECTIVE}\r\n",
    ]
    for text in texts:
        (claim,) = parse_directives(text, QUILL)
        assert text[claim["start"] : claim["end"]] == DIRECTIVE
        assert text.splitlines()[claim["start_line"] - 1] == DIRECTIVE


def test_line_terminators_are_exactly_the_characters_splitlines_breaks_at():
    from claimgate.textlines import LINE_TERMINATORS

    breaking = {chr(c) for c in range(0x110000) if len(f"a{chr(c)}b".splitlines()) == 2}
    assert breaking == set(LINE_TERMINATORS)
