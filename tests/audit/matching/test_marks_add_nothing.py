"""An ellipsis may not hide a bound of a hidden number; a bracket may not add a fact.

Two failure modes, each with examples and a property: an ellipsis right after the kept text
hiding a bound of any length and the number it binds (``The limit is ... 30 seconds`` hiding
``at most 5 and the timeout is``), and a bracket standing for no source text that adds a value,
a condition, an alternative, a bound or a number (``retry=False [or True]``, ``[at most] five``).
Rules: docs/audit-rules.md, "Deciding words", "Ellipses and brackets", "Brackets in code and values".
"""

from __future__ import annotations

import pytest
from claimgate.audit.matching.deciding import ADDED_CONDITION_WORDS, LITERALS
from claimgate.audit.text.negation import DECIDING_WORDS_BY_LANGUAGE, NUMBER_WORDS, negation_positions
from claimgate.audit.text.reference import normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st

from .verdicts import FOUND, verdict

ELIDED_BOUND = ("not_found", "elision_drops_bound")


def _negates(phrase: str) -> bool:
    return bool(negation_positions(normalize_text_reference(phrase)))


#: Every bound phrase of the data (all languages), negating ones (``no more than``) apart.
BOUNDS = sorted({b for kinds in DECIDING_WORDS_BY_LANGUAGE.values() for b in kinds["bound"] if not _negates(b)})
MULTI_WORD_BOUNDS = [b for b in BOUNDS if len(normalize_text_reference(b).tokens) > 1]
CONDITIONS = sorted({c for kinds in DECIDING_WORDS_BY_LANGUAGE.values() for c in kinds["condition"]})

# --- an ellipsis hiding a bound of a hidden number ---------------------------------------------

LIMIT = "The limit is {} 5 and the timeout is 30 seconds for each request."
LIMIT_QUOTE = "The limit is ... 30 seconds for each request"


@pytest.mark.parametrize("bound", MULTI_WORD_BOUNDS)
def test_elided_multi_word_bound_right_after_the_kept_text_is_refused(bound: str) -> None:
    assert verdict(LIMIT_QUOTE, LIMIT.format(bound)) == ELIDED_BOUND


@pytest.mark.parametrize("bound", ["under", "about", "only", "up to", "more than"])
def test_elided_bound_with_a_number_word_is_refused(bound: str) -> None:
    source = f"The limit is {bound} five and the timeout is 30 seconds for each request."
    assert verdict(LIMIT_QUOTE, source) == ELIDED_BOUND


def test_real_docs_limit_and_timeout_sentence_is_refused() -> None:
    source = "The limit must be at least 5 and the timeout may be 30 seconds for each request."
    assert verdict("The limit must be ... 30 seconds for each request.", source) == ELIDED_BOUND


@pytest.mark.parametrize("bound", ["at most", "up to", "fewer than", "at least"])
def test_number_behind_a_bound_is_a_moved_number(bound: str) -> None:
    # the bound is not right after the kept text; the number it binds still leads the elision
    source = f"The limit is now {bound} 5 and the timeout is 30 seconds for each request."
    assert verdict(LIMIT_QUOTE, source) == ("not_found", "elision_moves_number")
    source = f"The limit is now {bound} five and the timeout is 30 seconds for each request."
    assert verdict(LIMIT_QUOTE, source) == ("not_found", "elision_moves_number")


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        (
            "Das Limit ist bis zu 5 und das Timeout ist 30 Sekunden pro Anfrage.",
            "Das Limit ist ... 30 Sekunden pro Anfrage",
        ),
        (
            "La limite est au plus 5 et le délai est de 30 secondes par requête.",
            "La limite est ... 30 secondes par requête",
        ),
        (
            "El límite es como máximo 5 y el tiempo es de 30 segundos por petición.",
            "El límite es ... 30 segundos por petición",
        ),
    ],
)
def test_elided_multi_word_bound_in_other_languages_is_refused(source: str, quote: str) -> None:
    assert verdict(quote, source) == ELIDED_BOUND


@pytest.mark.parametrize(
    ("source", "quote"),
    [
        # a bound right after the kept text that binds no number stays allowed
        ("The recieve call blocks until data arrives on the socket.", "The recieve call blocks ... on the socket"),
        (
            "The method is more robust to noise and it scales to large graphs.",
            "The method is ... it scales to large graphs",
        ),
        # a bound deep in a long elision binds nothing kept
        (
            "The cache is cleared on restart, and after a long while it may hold at most 5 entries of the old run.",
            "The cache is cleared on restart ... of the old run",
        ),
    ],
)
def test_honest_elisions_near_bounds_are_found(source: str, quote: str) -> None:
    assert verdict(quote, source) == FOUND


@settings(max_examples=40, deadline=None)
@given(
    st.sampled_from(BOUNDS),
    st.one_of(st.integers(2, 999).map(str), st.sampled_from(["two", "five", "twelve", "twenty", "hundred"])),
    st.sampled_from(["and the timeout is", "while the timeout is", "and each wait is"]),
)
def test_eliding_a_bound_and_its_number_next_to_kept_text_is_never_found(bound: str, number: str, filler: str) -> None:
    source = f"The limit is {bound} {number} {filler} 30 seconds for each request."
    assert verdict(LIMIT_QUOTE, source)[0] == "not_found"
    assert verdict(source, source) == FOUND  # the verbatim quote always is


# --- a bracket standing for no source text ------------------------------------------------------

MAKEDIRS = "makedirs(name [, mode=0o777][, exist_ok=False])"


@pytest.mark.parametrize(
    "quote",
    [
        "makedirs(name [, mode=0o777][, exist_ok=True])",
        "makedirs(name [, mode=0o777][, exist_ok=None])",
        "makedirs(name [, mode=0o777][, recursive=True])",
        "makedirs(name [, mode=0o777][, exist_ok=False], parents=True)",
    ],
)
def test_optional_argument_brackets_are_code_not_editorial(quote: str) -> None:
    assert verdict(quote, MAKEDIRS)[0] == "not_found"


def test_optional_argument_signature_quoted_verbatim_is_found() -> None:
    assert verdict(MAKEDIRS, MAKEDIRS)[0] == "found"


RETRY = "The retry limit is five attempts per call."


@pytest.mark.parametrize(
    ("quote", "source", "reason"),
    [
        ("Set retry=False [or True] to disable automatic retries", "Set retry=False to disable automatic retries.",
         "bracket_inserts_value"),
        ("Set retry=False to disable [see os.path] automatic retries", "Set retry=False to disable automatic retries.",
         "bracket_inserts_value"),
        ("Set retry=False to disable [exist_ok] automatic retries", "Set retry=False to disable automatic retries.",
         "bracket_inserts_value"),
        ("Set retry=False to disable [x=1] automatic retries", "Set retry=False to disable automatic retries.",
         "no_verbatim_match"),  # ``[x=1]`` reads as code: its brackets are literal text
        ("Set retry=False [or None] to disable automatic retries", "Set retry=False to disable automatic retries.",
         "bracket_inserts_value"),
        ("The retry limit is five attempts per call [unless disabled].", RETRY, "bracket_inserts_condition"),
        ("The retry limit is five attempts per call [if enabled]", RETRY, "bracket_inserts_condition"),
        ("The retry limit is five attempts [or ten] per call", RETRY, "bracket_changes_number"),
        ("The retry limit [when idle] is five attempts per call", RETRY, "bracket_inserts_condition"),
        ("The retry limit is five attempts [except retries] per call", RETRY, "bracket_inserts_condition"),
        ("The retry limit is five attempts [or fewer] per call", RETRY, "bracket_inserts_bound"),
        ("The retry limit is [at most] five attempts per call", RETRY, "bracket_inserts_bound"),
        ("The retry limit is five [or more] attempts per call", RETRY, "bracket_inserts_bound"),
        ("[Up to] the retry limit is five attempts per call", RETRY, "bracket_inserts_bound"),
        ("The retry limit is five attempts [per user, twice] per call", RETRY, "bracket_changes_number"),
        ("The retry limit is [3] five attempts per call", RETRY, "bracket_changes_number"),
        # a bracket standing for source words may not add a bound they do not hold
        ("The retry limit is [at most] five attempts per call", "The retry limit is exactly five attempts per call.",
         "bracket_inserts_bound"),
    ],
)  # fmt: skip
def test_bracket_adding_a_fact_is_refused(quote: str, source: str, reason: str) -> None:
    assert verdict(quote, source) == ("not_found", reason)


@pytest.mark.parametrize(
    ("quote", "source"),
    [
        ("The retry limit is five attempts per call [sic]", RETRY),
        ("The retry limit is [the] five attempts per call", RETRY),
        ("The retry limit is five attempts per call [emphasis added]", RETRY),
        (
            "In our tests [the model] improves recall on long documents",
            "In our tests it improves recall on long documents.",
        ),
        ("The limit is [at most] five attempts per call", "The limit is at most five attempts per call."),
        ("Backups run nightly [unless] the disk is full", "Backups run nightly unless the disk is full."),
    ],
)
def test_bracket_adding_no_fact_or_repeating_the_source_is_found(quote: str, source: str) -> None:
    assert verdict(quote, source)[0] == "found"


#: Bracket texts that each add a fact: bounds, conditions, alternatives, literals, code, numbers.
ADDED = st.one_of(
    st.sampled_from(BOUNDS),
    st.sampled_from(CONDITIONS),
    st.sampled_from(sorted(ADDED_CONDITION_WORDS)).map(lambda w: f"{w} enabled"),
    st.sampled_from(sorted(LITERALS)).map(lambda w: w.capitalize()),
    st.sampled_from(["x=1", "exist_ok", "readTimeout", "or True", "os.path"]),
    st.integers(0, 10_000).map(str),
    st.sampled_from(sorted(NUMBER_WORDS)),
)


@settings(max_examples=60, deadline=None)
@given(ADDED, st.integers(0, 8))
def test_inserting_a_fact_in_brackets_is_never_found(added: str, at: int) -> None:
    words = RETRY.rstrip(".").split()
    quote = " ".join([*words[:at], f"[{added}]", *words[at:]])
    assert verdict(quote, RETRY)[0] == "not_found", quote


@pytest.mark.parametrize(
    "code, reason",
    [
        ("os.path", "bracket_inserts_value"),
        ("path.join(a, b)", "bracket_inserts_value"),
        ("retries=3", "no_verbatim_match"),  # an assignment in a bracket reads as code: brackets literal
        ("np.float64", "bracket_changes_number"),  # its digits are a number the source words lack
    ],
)
def test_code_written_in_a_bracket_that_stands_for_other_words_is_refused(code, reason):
    # docs/audit-rules.md, "Ellipses and brackets": code of a bracket's own must be among the words it stands for
    source = "Call it to join the two parts of the path name safely."
    assert verdict(f"Call [{code}] to join the two parts of the path name safely.", source) == ("not_found", reason)
    assert verdict("Call [the helper] to join the two parts of the path name safely.", source) == FOUND
    if reason != "no_verbatim_match":  # an editor's bracket that repeats the source's own code stays found
        own = f"Call {code} to join the two parts of the path name safely."
        assert verdict(f"Call [{code}] to join the two parts of the path name safely.", own) == FOUND
