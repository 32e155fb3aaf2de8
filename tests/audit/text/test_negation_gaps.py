"""Negations an ellipsis or a bracket must not hide, found missing by a new-user trial, and the fail-closed rule
for scripts with no negator list (docs/audit-rules.md, "Negation"). Each test names the failure mode it guards.
"""

from __future__ import annotations

import pytest
from claimgate.audit.diagnosis.diagnose import citation_diagnosis
from claimgate.audit.diagnosis.nearest_passage import PassageIndex
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote, audit_quote_reference
from claimgate.audit.text.negation import (
    _PREFIX_RE,
    DEGREE_NEGATORS,
    NEGATION_WORDS,
    NEGATOR_PREFIXES,
    UNCHECKED_LETTER_RE,
    needs_token_scan,
    negation_positions,
    unchecked_script_positions,
)
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


GERMAN_TRIAL = "Das System ist keineswegs sicher gegen Angriffe von außen."


@pytest.mark.parametrize("word", ["keineswegs", "keinesfalls", "mitnichten", "nimmer"])
def test_german_negative_adverb_under_an_ellipsis_is_elision_drops_negation(word):
    idx = build_corpus_index({"de": GERMAN_TRIAL.replace("keineswegs", word)})
    r = audit("Das System ist ... sicher gegen Angriffe von außen", "de", idx)
    assert verdict(r) == ("not_found", "elision_drops_negation")
    r = audit("Das System ist [...] sicher gegen Angriffe von außen", "de", idx)
    assert r["verdict"] == "not_found"


def test_hardly_ever_under_an_ellipsis_is_elision_drops_negation():
    idx = build_corpus_index({"en": "The cache is hardly ever flushed before the writer exits."})
    r = audit("The cache is ... ever flushed before the writer exits", "en", idx)
    assert verdict(r) == ("not_found", "elision_drops_negation")
    r = audit("The cache is ... flushed before the writer exits", "en", idx)
    assert verdict(r) == ("not_found", "elision_drops_negation")


@pytest.mark.parametrize("word", DEGREE_NEGATORS)
def test_bracketed_degree_adverb_never_stands_in_for_a_source_negation(word):
    idx = build_corpus_index({"d": "The old writer does not flush the cache before it exits."})
    r = audit(f"The old writer [{word}] flush the cache before it exits", "d", idx)
    assert verdict(r) == ("not_found", "bracket_inserts_negation")


# (language, source, quote eliding the negation); the whole source, quoted, is the control
NEW_LANGUAGES = [
    ("greek", "Το νέο σύστημα δεν είναι ασφαλές από εξωτερικές επιθέσεις σήμερα.",
     "Το νέο σύστημα ... είναι ασφαλές από εξωτερικές επιθέσεις σήμερα"),
    ("hindi", "यह प्रणाली बाहरी हमलों से नहीं बचाती है और यह ज्ञात है।",
     "यह प्रणाली बाहरी हमलों से ... बचाती है और यह ज्ञात है"),
    ("arabic", "هذا النظام الجديد لا يحمي من الهجمات الخارجية في هذا الإصدار.",
     "هذا النظام الجديد ... يحمي من الهجمات الخارجية في هذا الإصدار"),
    ("hebrew", "המערכת החדשה הזאת לא מגינה מפני התקפות חיצוניות בגרסה הזאת.",
     "המערכת החדשה הזאת ... מגינה מפני התקפות חיצוניות בגרסה הזאת"),
    ("turkish", "Bu sistem dış saldırılara karşı güvenli değildir ve bu bilinmektedir.",
     "Bu sistem dış saldırılara karşı güvenli ... ve bu bilinmektedir"),
    ("persian", "این سامانه در برابر حملات بیرونی نمی\u200cایستد و این روشن است.",
     "این سامانه در برابر حملات بیرونی ... و این روشن است"),
    ("indonesian", "Sistem baru ini tidak aman terhadap serangan dari luar jaringan.",
     "Sistem baru ini ... aman terhadap serangan dari luar jaringan"),
    ("vietnamese", "Hệ thống này không an toàn trước các cuộc tấn công từ bên ngoài.",
     "Hệ thống này ... an toàn trước các cuộc tấn công từ bên ngoài"),
]  # fmt: skip


@pytest.mark.parametrize("language, source, quote", NEW_LANGUAGES, ids=[c[0] for c in NEW_LANGUAGES])
def test_negation_elided_in_a_newly_listed_language_is_elision_drops_negation(language, source, quote):
    idx = build_corpus_index({"d": source})
    assert verdict(audit(quote, "d", idx)) == ("not_found", "elision_drops_negation")
    assert verdict(audit(source.rstrip(".।"), "d", idx)) == ("found", "verbatim_match")


@settings(max_examples=150, deadline=None)
@given(word=st.sampled_from(sorted(NEGATION_WORDS)))
def test_any_listed_word_under_an_ellipsis_is_elision_drops_negation(word):
    idx = build_corpus_index({"d": f"alpha beta gamma {word} delta epsilon zeta."})
    r = audit("alpha beta gamma ... delta epsilon zeta", "d", idx)
    assert verdict(r) == ("not_found", "elision_drops_negation")


@pytest.mark.parametrize("prefix", NEGATOR_PREFIXES)
def test_token_starting_with_a_negator_prefix_negates(prefix):
    assert list(negation_positions(normalize_text_reference(f"alpha {prefix}ler beta"))) == [1]


# --- scripts with no negator list fail closed -----------------------------------------

GEORGIAN = "ეს ახალი სისტემა არ არის დაცული გარე თავდასხმებისგან."
UNLISTED_SCRIPTS = [
    ("georgian", GEORGIAN, "ეს ახალი სისტემა ... დაცული გარე თავდასხმებისგან"),
    ("armenian", "Այս նոր համակարգը պաշտպանված չէ արտաքին հարձակումներից այսօր:",
     "Այս նոր համակարգը ... արտաքին հարձակումներից այսօր"),
    ("ethiopic", "ይህ አዲስ ስርዓት ከውጭ ጥቃቶች አልተጠበቀም ዛሬ ግን ይሰራል።",
     "ይህ አዲስ ስርዓት ... ዛሬ ግን ይሰራል"),
    ("tamil", "இந்த புதிய அமைப்பு வெளி தாக்குதல்களிலிருந்து பாதுகாப்பானது அல்ல என்று இன்று தெரிகிறது.",
     "இந்த புதிய அமைப்பு ... என்று இன்று தெரிகிறது"),
]  # fmt: skip


@pytest.mark.parametrize("script, source, quote", UNLISTED_SCRIPTS, ids=[c[0] for c in UNLISTED_SCRIPTS])
def test_ellipsis_over_a_script_without_a_negator_list_is_elision_unchecked_script(script, source, quote):
    idx = build_corpus_index({"d": source})
    assert verdict(audit(quote, "d", idx)) == ("not_found", "elision_unchecked_script")
    assert verdict(audit(source.rstrip(".:։።"), "d", idx)) == ("found", "verbatim_match")


def test_edge_ellipsis_next_to_an_unlisted_script_is_elision_unchecked_script():
    idx = build_corpus_index({"d": GEORGIAN})
    r = audit("... სისტემა არ არის დაცული", "d", idx)
    assert verdict(r) == ("not_found", "elision_unchecked_script")


def test_bracket_standing_for_an_unlisted_script_is_elision_unchecked_script():
    idx = build_corpus_index({"d": GEORGIAN})
    r = audit("ეს ახალი სისტემა [is] დაცული გარე თავდასხმებისგან", "d", idx)
    assert verdict(r) == ("not_found", "elision_unchecked_script")


def test_bracket_holding_an_unlisted_script_is_elision_unchecked_script():
    idx = build_corpus_index({"d": "The new system is protected against outside attacks today."})
    r = audit("The new system [არ] protected against outside attacks today", "d", idx)
    assert verdict(r) == ("not_found", "elision_unchecked_script")


def test_elided_negation_beside_an_unlisted_script_is_still_elision_drops_negation():
    idx = build_corpus_index({"d": "The new system does not ეს protect against outside attacks today."})
    r = audit("The new system does ... protect against outside attacks today", "d", idx)
    assert verdict(r) == ("not_found", "elision_drops_negation")


def test_unlisted_script_elsewhere_in_the_document_does_not_block_an_honest_ellipsis():
    idx = build_corpus_index({"d": "The new system is well protected against outside attacks. ეს არ არის."})
    r = audit("The new system is ... protected against outside attacks", "d", idx)
    assert verdict(r) == ("found", "verbatim_match")


def test_math_letters_and_greek_symbols_are_not_an_unlisted_script():
    text = normalize_text_reference("Let 𝑥 ≥ α and ℓ be given in Ω, with ﬁnite µ.")
    assert list(unchecked_script_positions(text)) == []


# --- the diagnosis reads the same lists ----------------------------------------------------


def test_unmarked_drop_of_keineswegs_is_diagnosed_negation_changed():
    index = build_corpus_index({"de": GERMAN_TRIAL})
    quote = "Das System ist sicher gegen Angriffe von außen"
    match = audit_quote(quote, "de", index)
    diagnosis = citation_diagnosis(quote, "de", match, PassageIndex(index))
    assert match["verdict"] == "not_found" and diagnosis["kind"] == "negation_changed"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x7F)) | st.sampled_from(["DEĞIL", "değil", "NOT dEgil"]))
def test_ascii_shortcut_of_the_token_scan_test_agrees_with_its_searches(text):
    by_search = _PREFIX_RE.search(text) is not None or UNCHECKED_LETTER_RE.search(text) is not None
    assert needs_token_scan(text) == by_search
