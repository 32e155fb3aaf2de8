"""The answer splitter: abbreviations, decimals, versions, list items and code stay whole."""

from __future__ import annotations

from claimgate.audit.answer.sentences import markers, split_claims
from hypothesis import given
from hypothesis import strategies as st


def texts(text: str) -> list[str]:
    return [p.text for p in split_claims(text)]


def test_sentences_end_at_terminal_punctuation_before_a_capital():
    assert texts("The cache is on. It expires daily! Does it? Yes.") == [
        "The cache is on.",
        "It expires daily!",
        "Does it?",
        "Yes.",
    ]


def test_abbreviations_do_not_end_a_sentence():
    text = "Use a flag, e.g. Verbose mode, as Dr. Ng and Prof. Ray did, i.e. Always. Done."
    assert texts(text) == ["Use a flag, e.g. Verbose mode, as Dr. Ng and Prof. Ray did, i.e. Always.", "Done."]


def test_one_letter_initials_do_not_end_a_sentence():
    assert texts("It was J. R. Smith who wrote it. Then it shipped.") == [
        "It was J. R. Smith who wrote it.",
        "Then it shipped.",
    ]


def test_decimals_stay_whole():
    assert texts("Days fell by 4.1 days. The rate was 0.05 per cent.") == [
        "Days fell by 4.1 days.",
        "The rate was 0.05 per cent.",
    ]


def test_versions_and_file_names_stay_whole():
    assert texts("Upgrade to v2.10.3 first. Then edit config.toml and pyproject.toml. Go.") == [
        "Upgrade to v2.10.3 first.",
        "Then edit config.toml and pyproject.toml.",
        "Go.",
    ]


def test_a_version_at_the_sentence_end_still_ends_it():
    assert texts("It needs Python 3.11. Older ones fail.") == ["It needs Python 3.11.", "Older ones fail."]


def test_a_lower_case_continuation_is_not_a_new_sentence():
    assert texts("See the docs. and then run it.") == ["See the docs. and then run it."]


def test_list_items_are_claims_of_their_own_and_keep_their_marker():
    text = "Steps:\n- Install it. Then pin it [1].\n- Verify it\n1. Numbered step v1.2.\n2) Another step"
    pieces = split_claims(text)
    assert [(p.kind, p.text) for p in pieces] == [
        ("sentence", "Steps:"),
        ("list_item", "- Install it."),
        ("list_item", "Then pin it [1]."),
        ("list_item", "- Verify it"),
        ("list_item", "1. Numbered step v1.2."),
        ("list_item", "2) Another step"),
    ]


def test_a_fenced_code_block_is_one_claim_never_split():
    text = "Run this. Now.\n\n```python\nx = 1. Y = 2\n\ny = 3\n```\nAfter it."
    pieces = split_claims(text)
    assert [p.kind for p in pieces] == ["sentence", "sentence", "code", "sentence"]
    assert pieces[2].text == "```python\nx = 1. Y = 2\n\ny = 3\n```"


def test_an_unclosed_fence_runs_to_the_end():
    assert [p.kind for p in split_claims("Intro.\n~~~\ncode. More code.")] == ["sentence", "code"]


def test_inline_code_is_never_cut():
    assert texts("Call `a. B. c()` here. Then stop.") == ["Call `a. B. c()` here.", "Then stop."]


def test_a_heading_is_a_claim_of_its_own():
    pieces = split_claims("# Install. Now\nText follows here.")
    assert [(p.kind, p.text) for p in pieces] == [("heading", "# Install. Now"), ("sentence", "Text follows here.")]


def test_markers_after_the_period_stay_with_their_sentence():
    assert texts("It is fast.[1] It is small. [2][3] Done.") == ["It is fast.[1]", "It is small. [2][3]", "Done."]


def test_soft_wrapped_lines_join_and_a_blank_line_ends_a_paragraph():
    assert texts("One line\ncontinues here\n\nNew paragraph") == ["One line\ncontinues here", "New paragraph"]


def test_pieces_without_a_letter_or_digit_are_not_claims():
    assert texts("- \n\n[1]\n\n...") == []
    assert texts("") == []


def test_markers_are_read_in_order_each_once():
    assert markers("A [2] b [1, 2] c [3] [sic] [x]") == ["2", "1", "3"]


words = st.sampled_from(
    ["cache", "Dr.", "e.g.", "4.1", "v1.2.0", "It", "is", "`a. B`", "fast.", "Done!", "[1]", "\n", "\n\n", "- ", "x?"]
)


@given(st.lists(words, max_size=40).map(" ".join))
def test_pieces_are_in_order_disjoint_and_point_at_their_text(text):
    pieces = split_claims(text)
    assert split_claims(text) == pieces  # deterministic
    end = 0
    for piece in pieces:
        assert piece.start >= end and piece.end > piece.start
        assert text[piece.start : piece.end] == piece.text == piece.text.strip()
        end = piece.end


@given(st.lists(st.sampled_from(["4.1", "1.2.0", "0.05", "3.11.2", "word", "e.g.", "Dr."]), min_size=1, max_size=12))
def test_numbers_versions_and_abbreviations_are_never_cut(tokens):
    text = " ".join(tokens) + " end."
    assert texts(text) == [text]
