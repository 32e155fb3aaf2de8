"""Reading answers: the plain format with ``[n]`` markers and the Anthropic Messages response."""

from __future__ import annotations

import pytest
from claimgate.audit.answer.formats import detect_format, parse_answer
from claimgate.errors import IngestionError

from .conftest import GUIDE, char_citation

QUOTE = "create_copy refuses to overwrite it"


def test_plain_claims_cite_the_citations_of_their_markers():
    answer = {
        "text": "It refuses to overwrite [1]. It keeps permissions [2][1]. It is fast.",
        "citations": [
            {"marker": "1", "doc_id": "guide", "quote": QUOTE},
            {"marker": 2, "doc_id": "notes", "quote": "keeps file permissions on Linux"},
        ],
    }
    parsed = parse_answer(answer)
    assert parsed.format == "plain"
    assert [c["claim_id"] for c in parsed.claims] == ["s1", "s2", "s3"]
    assert [(c["citation_id"], c["marker"], c["doc_id"]) for c in parsed.citations] == [
        ("s1.c1", "1", "guide"),
        ("s2.c1", "2", "notes"),
        ("s2.c2", "1", "guide"),
    ]
    assert parsed.claims[2]["markers"] == []


def test_a_marker_without_citation_is_named_and_an_unused_citation_listed():
    answer = {"text": "It refuses [3].", "citations": [{"marker": "1", "doc_id": "guide", "quote": QUOTE}]}
    parsed = parse_answer(answer)
    assert parsed.claims[0]["missing_markers"] == ["3"]
    assert parsed.unused_markers == ["1"]


@pytest.mark.parametrize(
    "answer, field",
    [
        ({"text": 3}, "`text`"),
        ({"text": "a", "citations": {}}, "`citations`"),
        ({"text": "a", "citations": ["x"]}, "citations[0]"),
        ({"text": "a", "citations": [{"marker": True, "doc_id": "g", "quote": "q"}]}, "citations[0].marker"),
        ({"text": "a", "citations": [{"marker": "1", "quote": "q"}]}, "citations[0].doc_id"),
        ({"content": [{"type": "text", "text": "a", "citations": [{"type": "char_location"}]}]}, "cited_text"),
        ({"content": [{"type": "text", "text": 5}]}, "content[0]"),
        ([1, 2], "expected an object"),
    ],
)
def test_a_malformed_answer_is_refused_naming_the_field(answer, field):
    with pytest.raises(IngestionError, match="invalid_answer") as caught:
        parse_answer(answer)
    assert field in str(caught.value)


def test_the_format_is_detected_and_a_stated_format_must_match():
    assert detect_format({"text": ""}) == "plain"
    assert detect_format({"content": []}) == "anthropic"
    with pytest.raises(IngestionError, match="expected the anthropic format"):
        parse_answer({"text": "x"}, "anthropic")


def test_anthropic_text_blocks_are_claims_and_document_index_names_the_sent_document():
    start = GUIDE.index(QUOTE)
    response = {
        "id": "msg_1",
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Quill is careful: ", "citations": None},
            {"type": "text", "text": "it will not overwrite.", "citations": [char_citation(QUOTE, 1, start)]},
            {"type": "tool_use", "id": "t", "name": "x", "input": {}},
            {"type": "text", "text": " \n"},
        ],
    }
    parsed = parse_answer(response, sent_documents=["notes", "guide"])
    assert parsed.text == "Quill is careful: it will not overwrite. \n"
    assert [(c["claim_id"], c["kind"], c["text"]) for c in parsed.claims] == [
        ("b0", "text_block", "Quill is careful:"),
        ("b1", "text_block", "it will not overwrite."),
    ]
    assert parsed.text[parsed.claims[1]["start"] : parsed.claims[1]["end"]] == "it will not overwrite."
    (cited,) = parsed.citations
    assert (cited["doc_id"], cited["quote"]) == ("guide", QUOTE)
    assert cited["location"] == {
        "type": "char_location",
        "document_index": 1,
        "start": start,
        "end": start + len(QUOTE),
    }


def test_page_and_content_block_locations_are_read_and_other_types_keep_no_document():
    cites = [
        {
            "type": "page_location",
            "cited_text": QUOTE,
            "document_index": 0,
            "start_page_number": 1,
            "end_page_number": 2,
        },
        {
            "type": "content_block_location",
            "cited_text": QUOTE,
            "document_index": 0,
            "start_block_index": 0,
            "end_block_index": 1,
        },
        {"type": "web_search_result_location", "cited_text": QUOTE, "url": "https://x.invalid"},
        char_citation(QUOTE, 5, 0),
    ]
    parsed = parse_answer(
        {"content": [{"type": "text", "text": "Claim.", "citations": cites}]}, sent_documents=["guide"]
    )
    assert [(c["location"]["type"], c["doc_id"]) for c in parsed.citations] == [
        ("page_location", "guide"),
        ("content_block_location", "guide"),
        ("web_search_result_location", None),
        ("char_location", None),  # document_index beyond the documents sent
    ]


def test_a_non_integer_offset_is_refused():
    cite = char_citation(QUOTE, 0, 0)
    cite["start_char_index"] = "0"
    with pytest.raises(IngestionError, match="start_char_index and end_char_index must be integers"):
        parse_answer({"content": [{"type": "text", "text": "C.", "citations": [cite]}]}, sent_documents=["guide"])


def test_a_citation_of_no_document_is_invalid_and_says_its_doc_id_is_missing():
    from claimgate.api import Audit

    answer = {
        "content": [
            {
                "type": "text",
                "text": "The tool refuses to overwrite.",
                "citations": [{"type": "web_search_result_location", "cited_text": QUOTE, "url": "https://x.invalid"}],
            }
        ]
    }
    result = Audit.from_corpus({"guide": GUIDE}).check_answer(answer, documents=["guide"])
    [citation] = [c for claim in result["claims"] for c in claim["citations"]]
    assert (citation["verdict"], citation["reason"]) == ("invalid_citation", "doc_id_missing")
