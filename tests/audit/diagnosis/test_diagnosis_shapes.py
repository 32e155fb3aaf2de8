"""Near-miss kinds in the shapes that real rejected quotes take: short elisions near an edge, a dropped
parenthetical, stitches with a joining word or a changed word, across paragraphs and documents, and API text
(docs/audit-rules.md, "Diagnosis", "Kinds"). Each test names the shape or the failure mode it guards.
"""

from __future__ import annotations

import re

import pytest
from claimgate.audit.diagnosis.diagnose import citation_diagnosis
from claimgate.audit.diagnosis.kinds import is_number, removed_is_seam, sentence_end_in
from claimgate.audit.diagnosis.nearest_passage import PassageIndex
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.matching.audit import audit_quote
from hypothesis import given, settings
from hypothesis import strategies as st

SCHEDULER = (
    "The scheduler (a small daemon) starts every worker at boot. It reads the queue file once per minute and "
    "writes a report to the log folder. Workers that crash are restarted after a short pause.\n\n"
    "The archive keeps every report for thirty days. Older reports are compressed into one file per month and "
    "moved to cold storage. Short names, e.g. the ones used in the tests, are kept in memory for the session."
)
CLIENT = (
    "timeout: the number of seconds to wait for the lock before giving up. Use a larger value on slow disks. "
    "retries: how many times the client sends the request again after a failed attempt, counted per call."
)
MIRROR = "The mirror service copies each package to three regions and checks every copy for damage each night."
DOCS = {"scheduler": SCHEDULER, "client": CLIENT, "mirror": MIRROR}


@pytest.fixture(scope="module")
def corpus():
    index = build_corpus_index(DOCS)
    return index, PassageIndex(index)


def diagnose(quote: str, cited: str, corpus) -> dict:
    index, passages = corpus
    result = audit_quote(quote, cited, index)
    assert result["verdict"] != "found", quote
    return citation_diagnosis(quote, cited, result, passages)


ELISIONS = [
    ("scheduler", "The scheduler starts every worker at boot"),  # a whole parenthetical
    ("scheduler", "It reads the queue file per minute and writes a report"),  # one word inside a clause
    ("scheduler", "It the queue file once per minute and writes a report"),  # next to the quote's start
    ("scheduler", "Workers that crash are restarted after a pause"),  # next to the quote's end
    ("scheduler", "Short names, e.g. ones used in the tests, are kept in memory"),  # after an abbreviation
    # the end of one sentence left out, its full stop kept: an elision inside that sentence
    ("scheduler", "It reads the queue file once per minute and writes a report. Workers that crash are restarted"),
    ("client", "the number of seconds to wait for the lock before up"),  # API text
    ("client", "how many times the client sends the request after a failed attempt, counted per call"),
]


@pytest.mark.parametrize(("cited", "quote"), ELISIONS)
def test_short_elisions_in_every_place_are_unmarked_elision(cited, quote, corpus):
    assert diagnose(quote, cited, corpus)["kind"] == "unmarked_elision"


STITCHES = [
    ("scheduler", "The scheduler (a small daemon) starts every worker and writes a report to the log folder"),
    ("scheduler", "and writes a report to the log folder, it reads the queue file once per minute"),  # halves swapped
    ("scheduler", "Workers that crash are restarted after a short pause and moved to cold storage"),  # paragraphs
    # a joining word added between pieces out of order
    ("scheduler", "The archive keeps every report for thirty days while workers that crash are restarted after"),
    # a stitch across paragraphs with one word changed in a piece
    ("scheduler", "Workers that crash are restarted after a short pause and older reports are squeezed into one file"),
    ("client", "how many times the client sends the request to wait for the lock before giving up"),  # API text
]


@pytest.mark.parametrize(("cited", "quote"), STITCHES)
def test_stitches_of_every_shape_are_stitched(cited, quote, corpus):
    diagnosis = diagnose(quote, cited, corpus)
    assert diagnosis["kind"] == "stitched"
    for piece in diagnosis["pieces"]:
        assert DOCS[piece["doc_id"]][slice(*piece["source_span"])] == piece["text"]


def test_stitch_across_documents_names_the_other_document_of_its_piece(corpus):
    quote = "The mirror service copies each package to three regions and writes a report to the log folder"
    diagnosis = diagnose(quote, "scheduler", corpus)
    assert diagnosis["kind"] == "stitched"
    assert [p["doc_id"] for p in diagnosis["pieces"]] == ["mirror", "scheduler"]
    assert " ".join(p["text"] for p in diagnosis["pieces"]) == quote


def test_misattributed_quote_is_not_a_stitch_of_other_documents(corpus):
    index, passages = corpus
    quote = "The mirror service copies each package to three regions"
    result = audit_quote(quote, "scheduler", index)
    assert result["verdict"] == "misattributed"
    assert citation_diagnosis(quote, "scheduler", result, passages)["kind"] == "fabricated"


@pytest.mark.parametrize(("added", "kind"), [("40", "number_changed"), ("not", "negation_changed")])
def test_number_or_negation_added_between_stitched_pieces_is_named_first(added, kind, corpus):
    quote = f"Workers that crash are restarted after a short pause {added} older reports are compressed into one file"
    assert diagnose(quote, "scheduler", corpus)["kind"] == kind


def test_negation_added_inside_a_piece_is_negation_changed(corpus):
    quote = "It reads the queue file once per minute and never writes a report to the log folder"
    assert diagnose(quote, "scheduler", corpus)["kind"] == "negation_changed"


def test_word_changed_in_one_sentence_stays_a_light_edit(corpus):
    quote = "Older reports are squeezed into one file per month and moved to cold storage"
    assert diagnose(quote, "scheduler", corpus)["kind"] == "light_edit"


def test_abbreviation_before_a_lower_case_word_is_no_sentence_end():
    text = "Short names, e.g. the ones used. Then more."
    assert not sentence_end_in(text, 0, text.index("the ones"))
    assert sentence_end_in(text, 0, len(text))


def test_seam_needs_the_sentence_end_inside_or_on_both_sides_or_a_glued_junction():
    index = build_corpus_index({"d": "One two three four. Five six seven eight. Nine ten eleven twelve."})
    doc = index.docs[0]  # tokens: one(0) .. four(3) five(4) .. eight(7) nine(8) .. twelve(11)
    assert removed_is_seam(doc, 2, 6, quote_ends_sentence=True)  # "three four. five six": across a sentence end
    assert removed_is_seam(doc, 4, 8, quote_ends_sentence=True)  # a whole sentence left out
    assert not removed_is_seam(doc, 2, 4, quote_ends_sentence=True)  # the end of one sentence, its stop kept
    assert removed_is_seam(doc, 2, 4, quote_ends_sentence=False)  # ... glued to the next sentence
    assert not removed_is_seam(doc, 5, 6, quote_ends_sentence=False)  # one word inside a sentence


_SENTENCES = [s for s in re.split(r"(?<=\.)\s+(?=[A-Z])", SCHEDULER) if len(s.split()) >= 10]


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_SENTENCES), st.sampled_from(_SENTENCES), st.integers(5, 7), st.integers(5, 7))
def test_property_a_stitch_of_two_sentences_out_of_order_is_stitched(first, second, a, b):
    words_1, words_2 = first.rstrip(".").split(), second.rstrip(".").split()
    quote = " ".join(words_2[:a] + words_1[-b:])  # the later sentence's start, then the earlier one's end
    if first == second or SCHEDULER.index(first) > SCHEDULER.index(second):
        return
    index = build_corpus_index(DOCS)
    result = audit_quote(quote, "scheduler", index)
    diagnosis = citation_diagnosis(quote, "scheduler", result, PassageIndex(index))
    assert diagnosis["kind"] == "stitched", quote


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(_SENTENCES), st.data())
def test_property_one_or_two_words_dropped_inside_a_sentence_are_unmarked_elision(sentence, data):
    words = sentence.rstrip(".").split()
    i = data.draw(st.integers(1, len(words) - 3))
    n = data.draw(st.integers(1, 2))
    dropped = [w.strip(",()") for w in words[i : i + n]]
    # a dropped number (digits or a number word) is number_changed, which comes first (docs/audit-rules.md)
    if any(not w.isalpha() or is_number(w.lower()) for w in dropped) or "e.g" in " ".join(words[i - 1 : i + n + 1]):
        return
    quote = " ".join(words[:i] + words[i + n :])
    index = build_corpus_index(DOCS)
    result = audit_quote(quote, "scheduler", index)
    if result["verdict"] == "found":
        return
    assert citation_diagnosis(quote, "scheduler", result, PassageIndex(index))["kind"] == "unmarked_elision", quote
