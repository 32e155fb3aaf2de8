"""Terminal tables line up in terminal columns, and a case id can never break a row."""

from __future__ import annotations

import json

from claimgate.cli.terminal import CASE_ID_CHARS, display_width, frame_table, shown_case_id, text_table
from hypothesis import given
from hypothesis import strategies as st

from ..helpers import FIXTURES, cli


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


# ----------------------------------------------------------------------------- wcwidth and one table style


def test_an_emoji_with_a_skin_tone_and_a_family_sequence_take_two_columns():
    assert display_width("👍🏽") == 2
    assert display_width("👨\u200d👩\u200d👧") == 2
    assert display_width("🇫🇷") == 2
    assert display_width("a\u200bb") == 2  # a zero-width space takes none


def test_a_row_with_a_skin_tone_emoji_lines_up():
    table = text_table([["👍🏽 yes", "ready"], ["plain", "refused"]], ["case", "status"])
    header, rule, *rows = table.splitlines()
    starts = {display_width(line[: line.index(status)]) for line, status in zip(rows, ["ready", "refused"])}
    assert starts == {display_width(rule.split("  ")[0]) + 2}


@given(
    st.lists(
        st.lists(st.sampled_from(["a", "日", "👍🏽", "e\u0301", "😀", "Ω", "👨\u200d👩\u200d👧", "x"]), max_size=6).map(
            "".join
        ),
        min_size=1,
        max_size=6,
    )
)
def test_every_second_column_starts_at_the_same_terminal_column(cells):
    table = text_table([[cell, "|"] for cell in cells], ["case", "s"])
    _, rule, *rows = table.splitlines()
    assert {display_width(row[: row.rindex("|")]) for row in rows} == {display_width(rule.split("  ")[0]) + 2}


def test_frame_table_is_the_text_table_of_a_frame():
    import pandas as pd

    frame = pd.DataFrame({"status": ["ready", "refused"], "cases": [2, 10]})
    assert frame_table(frame) == text_table([["ready", "2"], ["refused", "10"]], ["status", "cases"])


def _is_text_table(block: list[str]) -> bool:
    header, rule = block[0], block[1]
    return set(rule) <= {"-", " "} and len(rule.split("  ")) == len(header.split())


def test_the_gate_and_audit_counts_use_the_same_table_style(tmp_path, capsys):
    gate = ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json")]
    code, out, _ = cli(capsys, *gate, "--output", str(tmp_path / "g.json"))
    assert code == 0
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if line.startswith("status") and "cases" in line))
    assert _is_text_table(lines[at : at + 2]) and lines[at].split() == ["status", "reason", "cases"]
    audit = FIXTURES / "audit"
    args = ["audit", "--corpus", str(audit / "corpus.json"), "--citations", str(audit / "citations.jsonl")]
    code, out, _ = cli(capsys, *args, "--output", str(tmp_path / "a.jsonl"))
    assert code == 0
    lines = out.splitlines()
    at = lines.index(next(line for line in lines if line.split() == ["verdict", "citations"]))
    assert _is_text_table(lines[at : at + 2])
    rows = json.loads("[" + ",".join((tmp_path / "a.jsonl").read_text().splitlines()) + "]")
    assert len(lines[at + 2 :]) >= len({r["verdict"] for r in rows})
