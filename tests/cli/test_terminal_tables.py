"""Terminal tables line up in terminal columns, and a case id can never break a row."""

from __future__ import annotations

from claimgate.cli.terminal import CASE_ID_CHARS, display_width, shown_case_id, text_table


def test_wide_characters_take_two_columns_and_combining_marks_none():
    assert display_width("abc") == 3
    assert display_width("日本語") == 6
    assert display_width("😀") == 2
    assert display_width("e\u0301") == 1


def test_rows_with_wide_characters_line_up_with_the_rule():
    table = text_table([["日本語", "x"], ["😀ok", "y"], ["plain", "z"]], ["case", "status"])
    header, rule, *rows = table.splitlines()
    column = display_width(rule.split("  ")[0]) + 2
    for line in rows:
        first = line[: len(line) - 1]  # the last character is the one-column status
        assert display_width(first) == column, line


def test_a_case_id_with_a_line_separator_or_a_lone_surrogate_is_shown_escaped():
    assert shown_case_id("a\u2028b") == "a\\u2028b"
    assert shown_case_id("\ud800z") == "\\ud800z"
    assert shown_case_id("tab\there") == "tab\\there"
    assert "\n" not in text_table([[shown_case_id("x\ny"), "ready"]], ["case", "status"]).splitlines()[2]


def test_a_long_case_id_is_clipped_in_the_table():
    shown = shown_case_id("c" * 100)
    assert len(shown) == CASE_ID_CHARS and shown.endswith("…")
    assert shown_case_id("short-id") == "short-id"


def test_every_cell_of_a_table_is_shown_printable():
    table = text_table([["esc-\x1b[31mRED", "lone-\udfff", "a\rb"]], ["a", "b", "c"])
    assert table.isascii() and "\x1b" not in table and "\r" not in table
    header, rule, row = table.splitlines()
    assert row.split("  ")[0] == "esc-\\x1b[31mRED"
    assert len(row) == len(rule)  # every column as wide as its rule: the escapes are counted as shown
