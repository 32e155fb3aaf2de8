"""Quotes from real documents: numbers, identifiers, the source's own marks, negation in any language.

Each test names the failure mode it guards; the rules are in docs/audit-rules.md.
"""

from __future__ import annotations

import pytest
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference
from claimgate.audit.text.marks import DOT_SPELLINGS
from claimgate.audit.text.negation import NEGATORS_BY_LANGUAGE, NO_SPACE_NEGATORS, negation_positions
from claimgate.audit.text.reference import normalize_text_reference
from hypothesis import given, settings
from hypothesis import strategies as st


def audit(quote, cited, index, **kw):
    """Audit with both implementations and require they agree."""
    fast = audit_quote(quote, cited, index, **kw)
    assert fast == audit_quote_reference(quote, cited, index, **kw)
    return fast


def verdict(result):
    return result["verdict"], result["reason"]


# --- negation in any language ----------------------------------------------------------

GERMAN = "Das Mittel senkte den Druck bei älteren Patienten nicht messbar."


def test_german_elided_nicht_is_elision_drops_negation():
    idx = build_corpus_index({"de": GERMAN})
    quote = "Das Mittel senkte den Druck bei älteren Patienten ... messbar"
    # the one-word fragment is too short by default; with fragments of one word the negation decides
    assert verdict(audit(quote, "de", idx)) == ("insufficient_quote", "fragment_too_short")
    r = audit(quote, "de", idx, min_fragment_tokens=1)
    assert verdict(r) == ("not_found", "elision_drops_negation")


LANGUAGE_CASES = [
    # (source, quote eliding the negation)
    (
        "Le traitement n'a pas réduit la douleur des patients âgés.",
        "Le traitement n'a ... réduit la douleur des patients",
    ),
    (
        "Le traitement n'a jamais réduit la douleur chez les patients.",
        "Le traitement n'a ... réduit la douleur chez les patients",
    ),
    ("En el estudio el tratamiento no redujo el dolor.", "En el estudio el tratamiento ... redujo el dolor"),
    ("Nello studio il trattamento non ha ridotto il dolore.", "Nello studio il trattamento ... ha ridotto il dolore"),
    (
        "No estudo o tratamento não reduziu a dor dos pacientes.",
        "No estudo o tratamento ... reduziu a dor dos pacientes",
    ),
    (
        "De behandeling verminderde de pijn niet bij oudere patiënten.",
        "De behandeling verminderde de pijn ... bij oudere patiënten",
    ),
    (
        "I studien minskade behandlingen inte smärtan hos äldre patienter.",
        "I studien minskade behandlingen ... smärtan hos äldre patienter",
    ),
    (
        "I studiet reducerede behandlingen ikke smerten hos ældre patienter.",
        "I studiet reducerede behandlingen ... smerten hos ældre patienter",
    ),
    (
        "W badaniu to leczenie nie zmniejszyło bólu u starszych pacjentów.",
        "W badaniu to leczenie ... zmniejszyło bólu u starszych pacjentów",
    ),
    (
        "В этом исследовании лечение не снизило боль у пожилых пациентов.",
        "В этом исследовании лечение ... снизило боль у пожилых",
    ),
    (
        "У цьому дослідженні лікування не знизило біль у літніх пацієнтів.",
        "У цьому дослідженні лікування ... знизило біль у літніх",
    ),
    ("该药物对老年患者的血压没有明显的降低作用。", "该药物对老年患者的血压…明显的降低作用"),
    ("该药物对老年患者的血压并不明显降低作用。", "该药物对老年患者的血压并⋯⋯明显降低作用"),
    ("この薬は高齢の患者の血圧を下げない効果がある。", "この薬は高齢の患者の血圧を下げ…効果がある"),
    ("この薬は高齢の患者の血圧を下げません。そして効果がある。", "この薬は高齢の患者の血圧を下げ…そして効果がある"),
    (
        "이 약은 노인 환자의 혈압을 낮추지 않았다 그리고 효과가 있었다",
        "이 약은 노인 환자의 혈압을 낮추지 ... 그리고 효과가 있었다",
    ),
    (
        "이 약은 노인 환자의 혈압을 못 낮췄다 그리고 효과가 있었다",
        "이 약은 노인 환자의 혈압을 ... 낮췄다 그리고 효과가 있었다",
    ),
]


@pytest.mark.parametrize("source, quote", LANGUAGE_CASES)
def test_elided_negation_in_any_language_is_not_found(source, quote):
    idx = build_corpus_index({"d": source})
    assert verdict(audit(quote, "d", idx)) == ("not_found", "elision_drops_negation")


@pytest.mark.parametrize("source, quote", LANGUAGE_CASES)
def test_the_negated_sources_quoted_whole_are_found(source, quote):
    # the control: the source itself (negation included) is found
    idx = build_corpus_index({"d": source})
    assert verdict(audit(source.rstrip("。."), "d", idx)) == ("found", "verbatim_match")


def test_bracket_hiding_a_german_negation_is_bracket_drops_negation():
    idx = build_corpus_index({"de": GERMAN})
    r = audit("Das Mittel senkte den Druck bei [den] älteren Patienten [kaum] messbar", "de", idx)
    assert r["verdict"] == "not_found"
    r = audit("Das Mittel senkte den Druck bei älteren Patienten [gar] messbar", "de", idx)
    assert verdict(r) == ("not_found", "bracket_drops_negation")


def test_bracket_inserting_a_spanish_negation_is_bracket_inserts_negation():
    idx = build_corpus_index({"es": "El tratamiento redujo el dolor en los pacientes mayores."})
    r = audit("El tratamiento [no] redujo el dolor en los pacientes mayores", "es", idx)
    assert verdict(r) == ("not_found", "bracket_inserts_negation")
    r = audit("El tratamiento [sin duda] redujo el dolor en los pacientes mayores", "es", idx)
    assert verdict(r) == ("not_found", "bracket_inserts_negation")


def test_bracket_standing_for_a_chinese_negation_with_one_of_its_own_is_found():
    idx = build_corpus_index({"zh": "该药物对老年患者的血压没有明显的降低作用。"})
    r = audit("该药物对老年患者的血压[并无]明显的降低作用", "zh", idx)
    assert verdict(r) == ("found", "verbatim_match")
    r = audit("该药物对老年患者的血压[有]明显的降低作用", "zh", idx)
    assert verdict(r) == ("not_found", "bracket_drops_negation")


def test_every_listed_negator_is_found_as_a_negation():
    for words in NEGATORS_BY_LANGUAGE.values():
        for word in words:
            text = normalize_text_reference(f"alpha {word} beta")
            assert list(negation_positions(text)) == [1], word
            assert list(negation_positions(normalize_text_reference(f"alpha {word.upper()} beta"))) == [1], word
    for words in NO_SPACE_NEGATORS.values():
        for word in words:
            assert len(negation_positions(normalize_text_reference(f"患者{word}患者"))) == len(
                normalize_text_reference(word).tokens
            )


def test_french_n_apostrophe_negates_but_a_variable_n_does_not():
    assert list(negation_positions(normalize_text_reference("il n'est pas venu"))) == [1, 3]
    assert list(negation_positions(normalize_text_reference("il n’aime rien"))) == [1, 3]
    assert list(negation_positions(normalize_text_reference("for n samples"))) == []


# --- numbers keep their shape -------------------------------------------------------------

NUMBERS = {
    "dose": "In the trial the dose was 10⁶ units per day. The rate was 10⁻³ per hour. A source says 10^6 cells.",
    "fee": "They paid a fee of 12,500 euros for the licence and 3.5 percent interest.",
    "chem": "The sample held H₂O and CO₂ at 1e-6 molar.",
}


@pytest.fixture(scope="module")
def numbers():
    return build_corpus_index(NUMBERS)


@pytest.mark.parametrize(
    "quote",
    [
        "the dose was 106 units",
        "the rate was 10 3 per hour",
        "the rate was 10-3 per hour",
        "the rate was 10^3 per hour",
        "a source says 10 6 cells",
    ],
)
def test_superscript_exponent_is_not_found_without_its_shape(numbers, quote):
    assert verdict(audit(quote, "dose", numbers)) == ("not_found", "no_verbatim_match")


def test_superscript_exponent_is_found_verbatim_and_as_caret(numbers):
    assert audit("the dose was 10⁶ units", "dose", numbers)["verdict"] == "found"
    assert audit("the dose was 10^6 units", "dose", numbers)["verdict"] == "found"
    assert audit("The rate was 10^-3 per hour", "dose", numbers)["verdict"] == "found"
    assert audit("The rate was 10⁻³ per hour", "dose", numbers)["verdict"] == "found"


@pytest.mark.parametrize("quote", ["a fee of 12, 500 euros", "a fee of 12500 euros", "a fee of 12.500 euros"])
def test_changed_grouping_mark_is_not_found(numbers, quote):
    assert verdict(audit(quote, "fee", numbers)) == ("not_found", "no_verbatim_match")


def test_grouped_number_is_found_verbatim(numbers):
    assert audit("a fee of 12,500 euros", "fee", numbers)["verdict"] == "found"


def test_subscript_and_exponent_sign_keep_their_shape(numbers):
    assert audit("The sample held H₂O and CO₂", "chem", numbers)["verdict"] == "found"
    assert audit("The sample held H2O and CO2", "chem", numbers)["verdict"] == "not_found"
    assert audit("CO₂ at 1e-6 molar", "chem", numbers, min_tokens=3)["verdict"] == "found"
    assert audit("CO₂ at 1e+6 molar", "chem", numbers, min_tokens=3)["verdict"] == "not_found"
    assert audit("CO₂ at 1e 6 molar", "chem", numbers, min_tokens=3)["verdict"] == "not_found"


def test_a_number_counts_as_one_token_for_minimum_evidence(numbers):
    r = audit("fee of 12,500", "fee", numbers)
    assert verdict(r) == ("insufficient_quote", "too_few_tokens")  # three tokens, not four
    assert audit("a fee of 12,500", "fee", numbers)["verdict"] == "found"


NUMBER_MARKS = [",", ".", "'", "", "\u066b", "\u066c"]  # marks inside one number
ANY_MARKS = [*NUMBER_MARKS, " ", ", ", ". ", "\u00a0", ",\u2009"]


@settings(max_examples=300, deadline=None)
@given(
    head=st.integers(1, 999),
    tail=st.integers(0, 999),
    mark=st.sampled_from(NUMBER_MARKS),
    other=st.sampled_from(ANY_MARKS),
)
def test_a_number_with_a_changed_mark_never_equals_the_original(head, tail, mark, other):
    if mark == other:
        return
    original = f"{head}{mark}{tail:03d}"
    changed = f"{head}{other}{tail:03d}"
    assert normalize_text_reference(original).tokens != normalize_text_reference(changed).tokens


@settings(max_examples=100, deadline=None)
@given(base=st.integers(1, 99), exponent=st.integers(-20, 20))
def test_an_exponent_never_equals_its_digits_run_together(base, exponent):
    sup = str(exponent).translate(str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹"))
    written = normalize_text_reference(f"{base}{sup}").tokens
    assert written == normalize_text_reference(f"{base}^{exponent}").tokens
    for plain in (f"{base}{abs(exponent)}", f"{base} {abs(exponent)}", f"{base}-{abs(exponent)}"):
        assert written != normalize_text_reference(plain).tokens


# --- identifiers -----------------------------------------------------------------------------

CODE = "Call reset_timeout before the retry loop; raise_never_called() is a helper that always raises."


def test_identifier_prefix_does_not_match_the_identifier():
    idx = build_corpus_index({"code": CODE})
    assert verdict(audit("Call reset_ before the retry loop", "code", idx)) == ("not_found", "no_verbatim_match")
    assert audit("Call reset_timeout before the retry loop", "code", idx)["verdict"] == "found"


def test_ellipsis_over_an_identifier_with_never_hides_no_negation():
    idx = build_corpus_index({"code": CODE})
    r = audit("Call reset_timeout before the retry loop; ... is a helper that always raises", "code", idx)
    assert verdict(r) == ("found", "verbatim_match")


def test_edge_underscores_are_emphasis():
    assert normalize_text_reference("it is _not_ safe").tokens == ("it", "is", "not", "safe")
    idx = build_corpus_index({"md": "The supplier is _not_ entitled to raise prices during the term."})
    r = audit("The supplier is ... entitled to raise prices", "md", idx)
    assert verdict(r) == ("not_found", "elision_drops_negation")


# --- marks that are the source's own -----------------------------------------------------------

SOURCE_MARKS = {
    "heap": "A heap's keys satisfy x[i] <= x[2*i+1] for all i in the array.",
    "tuple": "The function returns a Tuple[int, ...] of row ids to the caller.",
}


def test_literal_code_brackets_quoted_verbatim_are_exact():
    idx = build_corpus_index(SOURCE_MARKS)
    r = audit("keys satisfy x[i] <= x[2*i+1] for all i", "heap", idx)
    assert (r["verdict"], r["match_kind"], len(r["spans"])) == ("found", "exact", 1)


def test_editorial_capital_beside_literal_code_brackets_is_found():
    idx = build_corpus_index(SOURCE_MARKS)
    r = audit("[K]eys satisfy x[i] <= x[2*i+1]", "heap", idx)
    assert (r["verdict"], r["match_kind"], len(r["spans"])) == ("found", "bracketed", 1)
    assert r["spans"][0]["text"] == "keys satisfy x[i] <= x[2*i+1"


def test_literal_ellipsis_inside_a_type_is_one_exact_span():
    idx = build_corpus_index(SOURCE_MARKS)
    r = audit("returns a Tuple[int, ...] of row ids", "tuple", idx)
    assert (r["verdict"], r["match_kind"]) == ("found", "exact")
    assert [s["text"] for s in r["spans"]] == ["returns a Tuple[int, ...] of row ids"]


def test_changed_literal_bracket_is_not_found():
    idx = build_corpus_index(SOURCE_MARKS)
    r = audit("keys satisfy x[i] <= x[2*i+3] for all i", "heap", idx)
    assert r["verdict"] == "not_found"  # read as the editor's bracket, 3 is not among the source tokens


SOURCE_TEXT = st.lists(
    st.sampled_from(["alpha", "beta", "x[i]", "x[2*i+1]", "<=", "Tuple[int, ...]", "f(x)", "a, b, ..., z", "not"]),
    min_size=6,
    max_size=30,
).map(" ".join)


@settings(max_examples=80, deadline=None)
@given(text=SOURCE_TEXT, data=st.data())
def test_a_quote_made_only_of_literal_source_text_is_always_found(text, data):
    idx = build_corpus_index({"d": text})
    doc = idx.docs[0]
    n = doc.n_tokens
    i = data.draw(st.integers(0, n - 4))
    j = data.draw(st.integers(i + 4, n))
    quote = text[doc.starts[i] : doc.ends[j - 1]]
    r = audit(quote, "d", idx)
    assert r["verdict"] == "found", (quote, r)


# --- ellipsis spellings ----------------------------------------------------------------------


@pytest.mark.parametrize("mark", ["⋯", "⋯⋯", "．．．", "……", "\ufe19", "\u1801", "‥."])
def test_every_ellipsis_spelling_elides(mark):
    idx = build_corpus_index({"d": "The supplier may raise prices once during the term of this agreement."})
    r = audit(f"The supplier may raise {mark} during the term of this agreement", "d", idx)
    assert (r["verdict"], r["match_kind"]) == ("found", "elided")


def test_every_dot_spelling_nfkc_folds_to_full_stops_is_listed():
    import sys
    import unicodedata

    folded = {chr(cp) for cp in range(0x80, sys.maxunicode + 1) if set(unicodedata.normalize("NFKC", chr(cp))) == {"."}}
    assert folded <= set(DOT_SPELLINGS)


def test_midline_ellipsis_hiding_chinese_negation_is_not_found():
    idx = build_corpus_index({"zh": "该药物对老年患者的血压没有明显的降低作用。"})
    r = audit("该药物对老年患者的血压⋯⋯明显的降低作用", "zh", idx)
    assert verdict(r) == ("not_found", "elision_drops_negation")


# --- soft hyphens anywhere in a line break -------------------------------------------------------


@pytest.mark.parametrize("broken", ["Ver\u00ad\nsicherung", "Ver\n\u00adsicherung", "Ver\n\u00ad\nsicherung"])
def test_soft_hyphen_anywhere_in_a_line_break_joins_the_word(broken):
    assert normalize_text_reference(broken).tokens == ("versicherung",)
    idx = build_corpus_index({"d": f"Die {broken} zahlt den Schaden sofort aus."})
    assert audit("Die Versicherung zahlt den Schaden", "d", idx)["verdict"] == "found"


def test_paragraph_break_without_a_soft_hyphen_still_separates():
    assert normalize_text_reference("Ver\n\nsicherung").tokens == ("ver", "sicherung")


# --- minimum evidence for scripts without spaces ----------------------------------------------------

THAI = "การศึกษานี้แสดงให้เห็นว่ายาลดความดันโลหิตในผู้ป่วยสูงอายุ"
CHINESE = "该药物对老年患者的血压有明显的降低作用"


def test_four_thai_characters_are_too_few():
    idx = build_corpus_index({"th": THAI})
    assert verdict(audit(THAI[:4], "th", idx)) == ("insufficient_quote", "too_few_tokens")


def test_thai_quote_needs_twelve_characters():
    idx = build_corpus_index({"th": THAI})
    clusters = normalize_text_reference(THAI)
    eleven = THAI[: clusters.ends[10]]
    twelve = THAI[: clusters.ends[11]]
    assert verdict(audit(eleven, "th", idx)) == ("insufficient_quote", "too_few_tokens")
    assert verdict(audit(twelve, "th", idx)) == ("found", "verbatim_match")


def test_chinese_quote_needs_six_characters_and_fragments_five():
    idx = build_corpus_index({"zh": CHINESE})
    assert verdict(audit(CHINESE[:5], "zh", idx)) == ("insufficient_quote", "too_few_tokens")
    assert verdict(audit(CHINESE[:6], "zh", idx)) == ("found", "verbatim_match")
    assert verdict(audit(CHINESE[:5] + "…" + CHINESE[7:11], "zh", idx)) == ("insufficient_quote", "fragment_too_short")
    assert verdict(audit(CHINESE[:5] + "…" + CHINESE[7:12], "zh", idx)) == ("found", "verbatim_match")


def test_mixed_script_quote_counts_words_and_characters():
    idx = build_corpus_index({"m": "The term 人工智能 means artificial intelligence."})
    # one word and four characters: 1 + 4 x 2/3 words, below four
    assert verdict(audit("term 人工智能", "m", idx)) == ("insufficient_quote", "too_few_tokens")
    # two words and four characters: 2 + 4 x 2/3 words
    assert verdict(audit("The term 人工智能", "m", idx)) == ("found", "verbatim_match")
