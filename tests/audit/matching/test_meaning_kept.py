"""Changed symbols, case, fractions and digits never pass; honest spellings of the same text do.

Each test names the failure mode it guards; the rules are in docs/audit-rules.md ("Symbols",
"Case", "Numbers", "Normalization").
"""

from __future__ import annotations

import unicodedata

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference
from claimgate.audit.text.normalize import normalize_text
from claimgate.audit.text.reference import normalize_text_reference
from claimgate.audit.text.token_rules import SYMBOL_CHARS, TYPOGRAPHIC_SYMBOLS, keeps_case
from hypothesis import given, settings
from hypothesis import strategies as st

from .verdicts import FOUND, verdict

CHANGED = ("not_found", "no_verbatim_match")

# --- symbols are tokens -------------------------------------------------------------------

SYMBOL_SWAPS = [
    ("The annual fee of €250 is charged per seat.", "The annual fee of $250 is charged per seat."),
    ("Rent is ₹900 per month in the outer district.", "Rent is £900 per month in the outer district."),
    ("Support matrix: macOS ✅ Windows ❌ for the beta.", "Support matrix: macOS ✅ Windows ✅ for the beta."),
    ("Status of the mirror 🟢 east and 🔴 west today.", "Status of the mirror 🔴 east and 🔴 west today."),
    ("Throughput → 40 requests per second after tuning.", "Throughput ← 40 requests per second after tuning."),
    ("The model is accurate to ± 3 degrees at noon.", "The model is accurate to 3 degrees at noon."),
    ("The warm-up takes ≈ 12 minutes on a cold start.", "The warm-up takes 12 minutes on a cold start."),
    ("Expect ~ 40 files in the output folder each run.", "Expect 40 files in the output folder each run."),
]


@pytest.mark.parametrize(("source", "quote"), SYMBOL_SWAPS)
def test_symbol_changed_is_not_found(source: str, quote: str) -> None:
    assert verdict(quote, source) == CHANGED
    assert verdict(source.rstrip("."), source) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Projects written in C# build with the SDK only.", "Projects written in C build with the SDK only."),
        ("The build needs g++ version twelve or newer here.", "The build needs g version twelve or newer here."),
        ("Teams that use F# keep the old compiler flag.", "Teams that use F keep the old compiler flag."),
        ("Code in C++ links against the runtime statically.", "Code in C links against the runtime statically."),
    ],
)
def test_name_suffix_plus_or_hash_dropped_is_not_found(source: str, quote: str) -> None:
    assert verdict(quote, source) == CHANGED
    assert verdict(source.rstrip("."), source) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Write to ops.team@corp.example for access rights.", "Write to ops@team.corp.example for access rights."),
        ("Send reports to a.b@x.example within the week.", "Send reports to a@b.x.example within the week."),
        (
            "The docs live at https://docs.example.org/v2/setup for now.",
            "The docs live at https://docs.example.org/v2.setup for now.",
        ),
    ],
)
def test_email_or_url_punctuation_moved_is_not_found(source: str, quote: str) -> None:
    assert verdict(quote, source) == CHANGED
    assert verdict(source.rstrip("."), source) == FOUND


def test_typographic_symbols_stay_separators() -> None:
    # a table rule, a bullet and a backtick are layout: the quote without them is honest
    source = "| name of the field | and its `default` value |"
    assert verdict("name of the field and its default value", source) == FOUND
    assert verdict("first item second item third", "◦ first item ▪ second item ■ third") == FOUND


_FOUND_SOURCE = "The price rose to 40 € in the spring of that year."
_SYMBOLS = sorted(c for c in SYMBOL_CHARS if unicodedata.category(c) in ("Sc", "So", "Sm") and c != "€")


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(_SYMBOLS))
def test_any_symbol_replaced_in_a_found_quote_never_stays_found(symbol: str) -> None:
    quote = "The price rose to 40 € in the spring".replace("€", symbol)
    result = verdict(quote, _FOUND_SOURCE)
    if normalize_text_reference(symbol).tokens == ("€",):  # a compatibility spelling of the same symbol
        return
    assert result != FOUND


def test_typographic_list_holds_only_symbols_or_layout() -> None:
    assert not (set(TYPOGRAPHIC_SYMBOLS) & SYMBOL_CHARS)


# --- case that carries meaning ------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Each upload is capped at 5 MB per file by default.", "Each upload is capped at 5 mb per file by default."),
        ("Each upload is capped at 5 MB per file by default.", "Each upload is capped at 5 Mb per file by default."),
        ("The sensor draws 3 mA while it is idle here.", "The sensor draws 3 MA while it is idle here."),
        ("Replies arrive within 10 ms on the local network.", "Replies arrive within 10 Ms on the local network."),
        ("The link sustains 40Gbps between the two racks.", "The link sustains 40GBps between the two racks."),
        ("Set readTimeout before the client is created.", "Set ReadTimeout before the client is created."),
        ("The HTTPServer class handles one request.", "The HttpServer class handles one request."),
    ],
)
def test_meaningful_case_changed_is_not_found(source: str, quote: str) -> None:
    assert verdict(quote, source) == CHANGED
    assert verdict(source.rstrip("."), source) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("INSTALLATION REQUIRES THE BUILD TOOLS", "Installation requires the build tools"),
        ("the cache is cleared on every restart", "The cache is cleared on every restart"),
        ("Getting Started With The Command Line", "getting started with the command line"),
        ("The limit is 5 MB for each upload.", "the limit is 5 MB for each upload"),
    ],
)
def test_heading_sentence_start_and_title_case_still_match(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


_LETTERS = st.text(alphabet=st.sampled_from("abcdefgxyzABCDEFGXYZ"), min_size=2, max_size=8)


@settings(max_examples=300, deadline=None)
@given(_LETTERS)
def test_case_rule_is_general(word: str) -> None:
    # all-lower, all-upper and initial-capital words fold; a word with a lower letter before an
    # upper one, or two uppers before a lower one, keeps its case
    inner = any(a.islower() and b.isupper() for a, b in zip(word, word[1:])) or any(
        a.isupper() and b.isupper() and c.islower() for a, b, c in zip(word, word[1:], word[2:])
    )
    assert keeps_case(word, after_number=False) == inner
    token = normalize_text_reference(f"see {word} here").tokens[1]
    assert token == (word if inner else word.lower())
    assert normalize_text(f"see {word} here") == normalize_text_reference(f"see {word} here")


# --- fractions, digits of other scripts, tatweel, Turkish i -------------------------------


def test_vulgar_fraction_is_not_merged_with_the_whole_number() -> None:
    source = "The pipe measures 2¾ inches across at the joint."
    assert verdict("The pipe measures 23/4 inches across", source) == CHANGED
    assert verdict("The pipe measures 2 3/4 inches across", source) == FOUND
    assert verdict("The pipe measures 2¾ inches across", source) == FOUND
    assert verdict("The tank is ½ full after the first pass", "The tank is 1/2 full after the first pass.") == FOUND
    assert verdict("The tank is 12 full after the first pass", "The tank is 1/2 full after the first pass.") == CHANGED


@pytest.mark.parametrize("digits", ["٣٠", "३०", "３０", "۳۰", "৩০"])
def test_digits_of_other_scripts_compare_by_value(digits: str) -> None:
    source = f"The queue holds {digits} jobs at most per worker."
    assert verdict("The queue holds 30 jobs at most", source) == FOUND
    assert verdict("The queue holds 31 jobs at most", source) == CHANGED


def test_arabic_tatweel_is_removed() -> None:
    assert verdict("قال المدير إن الكتاب جديد جدا", "قال المديـــر إن الكتـــاب جديد جدا.") == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("İstanbul ve İzmir arasında günde üç sefer var.", "İSTANBUL VE İZMİR ARASINDA GÜNDE ÜÇ SEFER VAR"),
        ("istanbul ve izmir arasında günde üç sefer var.", "İstanbul ve İzmir arasında günde üç sefer"),
        ("KAPI her gece saat onda kilitlenir.", "kapı her gece saat onda kilitlenir"),
    ],
)
def test_turkish_dotted_and_dotless_i_match(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("The configu- ration file is read once at start.", "The configuration file is read once"),
        ("Each parti- tion is written to its own folder.", "Each partition is written to its own folder"),
        ("Each partition is written to its own folder.", "Each parti- tion is written to its own folder"),
    ],
)
def test_hyphen_then_space_inside_a_word_joins(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


# --- footnote markers --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("In the last quarter the rate[4] rose slowly across all regions.", "In the last quarter the rate rose slowly"),
        ("Prices rose[^2] sharply in the spring of that year.", "Prices rose sharply in the spring of that year"),
        ("The two cohorts[3, 7] were followed for a decade.", "The two cohorts were followed for a decade"),
        ("Median income grew[12–14]. Rents grew faster still.", "Median income grew. Rents grew faster still"),
    ],
)
def test_footnote_marker_left_out_is_honest_and_reported_as_elided(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND
    index = build_corpus_index({"d": source})
    result = audit_quote(quote, "d", index, report_elided=True)
    assert result == audit_quote_reference(quote, "d", index, report_elided=True)
    markers = [e for e in result["elided"] if e["position"] == "marker"]
    assert len(markers) == 1 and markers[0]["text"][0].isdigit()
    assert verdict(source.rstrip("."), source) == FOUND  # the marker quoted as written still matches


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        ("Set x[0] = 1 before the loop starts.", "Set x = 1 before the loop starts"),
        ("Read `items[2] first` from the list.", "Read items first from the list"),
        ("The rate[4] rose slowly across all regions.", "The rate 5 rose slowly across all regions"),
    ],
)
def test_subscripts_and_changed_markers_are_not_footnotes(source: str, quote: str) -> None:
    assert verdict(quote, source) == CHANGED


_FRACTIONS = sorted(
    c for c in map(chr, range(0x80, 0x2190)) if "\u2044" in unicodedata.normalize("NFKC", c) and c != "\u2044"
)
_NON_ASCII_DIGITS = sorted(c for c in map(chr, range(0x80, 0x20000)) if unicodedata.category(c) == "Nd")


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1, max_value=99), st.sampled_from(_FRACTIONS))
def test_vulgar_fraction_reads_apart_from_any_whole_number(whole: int, fraction: str) -> None:
    spelled = unicodedata.normalize("NFKC", fraction).replace("\u2044", "/")
    tokens = normalize_text_reference(f"{whole}{fraction} cups").tokens
    assert tokens == normalize_text_reference(f"{whole} {spelled} cups").tokens
    assert tokens != normalize_text_reference(f"{whole}{spelled} cups").tokens
    assert normalize_text(f"{whole}{fraction} cups") == normalize_text_reference(f"{whole}{fraction} cups")


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_NON_ASCII_DIGITS), min_size=1, max_size=4))
def test_any_decimal_digits_compare_by_value(digits: list[str]) -> None:
    value = "".join(str(unicodedata.decimal(d)) for d in digits)
    assert normalize_text_reference(f"queue {''.join(digits)} jobs").tokens == ("queue", value, "jobs")
