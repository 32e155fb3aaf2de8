"""Claim statuses, provider offsets, the answer's verdict under each policy, the Markdown renderings."""

from __future__ import annotations

import pytest
from claimgate.audit.answer.claims import (
    CONNECTIVE_MAX_WORDS,
    MAX_PLACES,
    answer_verdict,
    is_connective,
    offset_check,
    stripped_markdown,
)
from hypothesis import given
from hypothesis import strategies as st

from .conftest import GUIDE, NOTES, char_citation

REFUSES = "create_copy refuses to overwrite it"
CHECKSUMS = "Version 2.4.1 added checksums for every copied file"


def plain(text: str, *citations: tuple[str, str, str]) -> dict:
    return {"text": text, "citations": [{"marker": m, "doc_id": d, "quote": q} for m, d, q in citations]}


def statuses(result: dict) -> list[tuple[str, str, str]]:
    return [(c["claim_id"], c["status"], c["reason"]) for c in result["claims"]]


def test_every_claim_supported_accepts_the_answer(audit):
    result = audit.check_answer(
        plain("It refuses [1]. Checksums came in 2.4.1 [2].", ("1", "guide", REFUSES), ("2", "guide", CHECKSUMS))
    )
    assert statuses(result) == [("s1", "supported", "citations_found"), ("s2", "supported", "citations_found")]
    assert (result["verdict"], result["reason"], result["failing_claims"]) == ("accepted", "every_claim_supported", [])
    assert result["annotated"] == result["text"]  # nothing to mark


def test_a_fabricated_quote_makes_its_claim_unsupported_and_refuses_the_answer(audit):
    result = audit.check_answer(
        plain(
            "It refuses [1]. It is encrypted [2].",
            ("1", "guide", REFUSES),
            ("2", "guide", "every copied file is encrypted at rest"),
        )
    )
    assert statuses(result)[1] == ("s2", "unsupported", "citation_rejected")
    assert result["claims"][1]["citations"][0]["verdict"] == "not_found"
    assert (result["verdict"], result["reason"], result["failing_claims"]) == ("refused", "claims_failed", ["s2"])


def test_a_misattributed_quote_is_unsupported(audit):
    result = audit.check_answer(plain("Permissions are kept [1].", ("1", "guide", "keeps file permissions on Linux")))
    assert statuses(result) == [("s1", "unsupported", "citation_rejected")]
    assert result["claims"][0]["citations"][0]["matched_doc_ids"] == ["notes"]


def test_an_insufficient_quote_is_unsupported(audit):
    result = audit.check_answer(plain("It refuses [1].", ("1", "guide", "refuses")))
    assert result["claims"][0]["citations"][0]["verdict"] == "insufficient_quote"
    assert result["verdict"] == "refused"


def test_one_failing_citation_among_found_ones_fails_the_claim(audit):
    result = audit.check_answer(
        plain("It refuses [1][2].", ("1", "guide", REFUSES), ("2", "guide", "it never refuses anything"))
    )
    assert statuses(result) == [("s1", "unsupported", "citation_rejected")]
    assert "s1.c2: not_found" in result["claims"][0]["detail"]


def test_an_uncited_claim_refuses_the_answer_under_the_strict_policy(audit):
    result = audit.check_answer(plain("It refuses [1]. That is good.", ("1", "guide", REFUSES)))
    assert statuses(result)[1] == ("s2", "uncited", "no_citation")
    assert (result["verdict"], result["failing_claims"]) == ("refused", ["s2"])


def test_the_connective_policy_lets_short_uncited_connectives_through(audit):
    answer = plain("In short: It refuses [1]. That is the safe default.", ("1", "guide", REFUSES))
    result = audit.check_answer(answer, policy="connective")
    assert [c["status"] for c in result["claims"]] == ["supported", "uncited"]
    assert (result["verdict"], result["reason"]) == ("accepted", "uncited_connectives_allowed")


def test_the_connective_policy_still_refuses_an_uncited_claim_with_a_number_or_code(audit):
    for sentence in ("It copies 3 files at once.", "Pass `overwrite=True` to replace."):
        result = audit.check_answer(plain(f"It refuses [1]. {sentence}", ("1", "guide", REFUSES)), policy="connective")
        assert (result["verdict"], result["failing_claims"]) == ("refused", ["s2"]), sentence


def test_connectives_are_short_word_only_text():
    claim = {"kind": "sentence", "text": " ".join(["word"] * CONNECTIVE_MAX_WORDS)}
    assert is_connective(claim)
    assert not is_connective({**claim, "text": claim["text"] + " more"})
    assert not is_connective({"kind": "code", "text": "```\nx\n```"})
    assert not is_connective({"kind": "heading", "text": "# Summary"})


def test_an_unknown_policy_is_a_value_error(audit):
    with pytest.raises(ValueError, match="policy must be one of strict, connective"):
        audit.check_answer(plain("x [1].", ("1", "guide", REFUSES)), policy="lenient")
    with pytest.raises(ValueError):
        answer_verdict([], "lenient")


def test_a_marker_with_no_citation_is_unsupported(audit):
    result = audit.check_answer(plain("It refuses [1][4].", ("1", "guide", REFUSES)))
    assert statuses(result) == [("s1", "unsupported", "marker_without_citation")]
    assert result["claims"][0]["detail"] == "no citation carries [4]"


def test_an_answer_without_claims_is_refused(audit):
    result = audit.check_answer({"text": "  \n", "citations": []})
    assert (result["verdict"], result["reason"]) == ("refused", "no_claims")


def test_a_judge_sees_only_found_citations_and_its_verdict_decides(audit):
    seen = []

    def judge(system: str, user: str) -> str:
        seen.append(user)
        return '{"reasoning": "says more than the source", "verdict": "partial", "confidence": 0.7}'

    answer = plain(
        "It refuses [1]. It is encrypted [2].",
        ("1", "guide", REFUSES),
        ("2", "guide", "all files are encrypted at rest"),
    )
    result = audit.check_answer(answer, judge)
    assert len(seen) == 1 and REFUSES in seen[0]  # the fabricated quote never reached the judge
    assert [c["citations"][0]["verdict"] for c in result["claims"]] == ["partial", "not_found"]
    assert [c["status"] for c in result["claims"]] == ["unsupported", "unsupported"]


# --- provider offsets ---------------------------------------------------------------


def anthropic(*blocks: tuple[str, list[dict] | None]) -> dict:
    return {"content": [{"type": "text", "text": t, "citations": c} for t, c in blocks]}


def test_cited_text_at_its_offsets_supports_the_block(audit):
    start = GUIDE.index(REFUSES)
    result = audit.check_answer(
        anthropic(("It refuses.", [char_citation(REFUSES, 0, start)])), documents=["guide", "notes"]
    )
    (claim,) = result["claims"]
    assert (claim["status"], claim["reason"]) == ("supported", "citations_found")
    offsets = claim["citations"][0]["offsets"]
    assert offsets["at_offsets"] is True and offsets["found_at"] == [start]


def test_cited_text_at_wrong_offsets_is_unsupported_and_says_where_it_is(audit):
    start = GUIDE.index(REFUSES)
    cite = char_citation(REFUSES, 0, start + 7)
    result = audit.check_answer(anthropic(("It refuses.", [cite])), documents=["guide"])
    (claim,) = result["claims"]
    assert claim["citations"][0]["verdict"] == "found"  # the text is in the document ...
    assert (claim["status"], claim["reason"]) == ("unsupported", "cited_text_not_at_offsets")  # ... not where stated
    assert claim[
        "detail"
    ] == f"s1.c1: not at {start + 7}-{start + 7 + len(REFUSES)} of guide; found at {start}".replace("s1.c1", "b0.c1")


def test_offsets_past_the_document_end_are_wrong(audit):
    cite = char_citation(REFUSES, 0, 10_000)
    result = audit.check_answer(anthropic(("It refuses.", [cite])), documents=["guide"])
    assert result["claims"][0]["reason"] == "cited_text_not_at_offsets"
    assert result["claims"][0]["citations"][0]["offsets"]["text_at_offsets"] == ""


def test_offsets_into_the_wrong_document_are_wrong_even_if_found_elsewhere(audit):
    quote = "keeps file permissions on Linux"
    start = NOTES.index(quote)
    result = audit.check_answer(
        anthropic(("Perms kept.", [char_citation(quote, 0, start)])), documents=["guide", "notes"]
    )
    claim = result["claims"][0]
    assert claim["reason"] == "cited_text_not_at_offsets"
    assert "not found in that document at all" in claim["detail"]


def test_page_locations_are_audited_but_their_offsets_not_checked(audit):
    cite = {
        "type": "page_location",
        "cited_text": REFUSES,
        "document_index": 0,
        "start_page_number": 1,
        "end_page_number": 2,
    }
    result = audit.check_answer(anthropic(("It refuses.", [cite])), documents=["guide"])
    claim = result["claims"][0]
    assert claim["citations"][0]["offsets"] == {"unit": "page_location", "checked": False}
    assert claim["status"] == "supported"


def test_an_uncited_provider_block_is_uncited_and_a_citation_without_document_is_invalid(audit):
    result = audit.check_answer(
        anthropic(("Overall, ", None), ("it refuses.", [char_citation(REFUSES, 3, 0)])), documents=["guide"]
    )
    assert [(c["status"], c["reason"]) for c in result["claims"]] == [
        ("uncited", "no_citation"),
        ("unsupported", "citation_rejected"),
    ]
    assert result["claims"][1]["citations"][0]["verdict"] == "invalid_citation"


# --- renderings ---------------------------------------------------------------------

#: One supported, one unsupported and one uncited claim.
RENDERED = plain(
    "It refuses [1]. It is encrypted [2]. Nice.",
    ("1", "guide", REFUSES),
    ("2", "guide", "files are encrypted at rest always"),
)


def test_the_annotated_markdown_marks_each_failing_claim_in_place(audit):
    result = audit.check_answer(RENDERED)
    assert result["annotated"] == (
        "It refuses [1]. It is encrypted [2]. **[⚠ unsupported: citation_rejected — s2.c1: not_found "
        "(no_verbatim_match)]** Nice. **[⚠ uncited: no_citation]**"
    )


def test_strip_removes_the_failing_claims_and_lists_them(audit):
    result = audit.check_answer(RENDERED)
    text = stripped_markdown(result["text"], result["claims"], result["failing_claims"])
    assert text == (
        "It refuses [1].\n\n---\nRemoved 2 claim(s):\n"
        "- s2 (unsupported: citation_rejected): It is encrypted [2].\n"
        "- s3 (uncited: no_citation): Nice.\n"
    )


def test_strip_with_nothing_to_remove_keeps_the_answer():
    claims = [{"claim_id": "s1", "start": 0, "end": 3, "text": "Hi.", "status": "supported", "reason": "x"}]
    assert stripped_markdown("Hi.", claims, []) == "Hi.\n"


@given(st.text(alphabet="ab c", max_size=30), st.text(alphabet="ab c", min_size=1, max_size=4), st.integers(-2, 35))
def test_offsets_hold_exactly_when_the_stated_slice_is_the_cited_text(document, quote, start):
    location = {"type": "char_location", "document_index": 0, "start": start, "end": start + len(quote)}
    check = offset_check(location, quote, document)
    assert check["at_offsets"] == (0 <= start and document[start : start + len(quote)] == quote)
    assert all(document[at : at + len(quote)] == quote for at in check["found_at"])
    assert check["found_at"] == [i for i in range(len(document)) if document.startswith(quote, i)][:MAX_PLACES]


def _rendered(markdown: str) -> tuple[str, list[str]]:
    """``(the HTML of markdown-it, the text of every code block)``: where a mark ends up for a reader."""
    from markdown_it import MarkdownIt

    tokens = MarkdownIt("commonmark").parse(markdown)
    return MarkdownIt("commonmark").render(markdown), [t.content for t in tokens if t.type in ("fence", "code_block")]


@pytest.mark.parametrize("fence", ["```", "~~~", "```python"])
@pytest.mark.parametrize("closed", [True, False])
def test_a_mark_after_a_code_block_stays_out_of_the_code_and_later_marks_too(audit, fence, closed):
    code = f"{fence}\nshutil.copy(a, b)\n" + (fence[:3] + "\n" if closed else "")
    text = "It refuses [1].\n\n" + code + ("\nIt is encrypted [2].\n" if closed else "")
    result = audit.check_answer(plain(text, ("1", "guide", REFUSES), ("2", "guide", "files are encrypted at rest")))
    assert [c["kind"] for c in result["claims"]][:2] == ["sentence", "code"]
    html, blocks = _rendered(result["annotated"])
    assert blocks == ["shutil.copy(a, b)\n"]  # the code block holds its code and nothing else
    assert html.count("<strong>[⚠ ") == (2 if closed else 1)  # every mark is read as Markdown
    assert "[⚠ uncited: no_citation]" in html


def test_a_mark_stays_on_the_line_of_a_sentence_list_item_or_heading(audit):
    text = "# Copying files\n\n- It is encrypted [1].\n\nNice."
    result = audit.check_answer(plain(text, ("1", "guide", "files are encrypted at rest")))
    lines = result["annotated"].splitlines()
    assert lines[0].startswith("# Copying files **[⚠ uncited") and lines[2].startswith("- It is encrypted [1]. **[⚠")
    assert lines[4] == "Nice. **[⚠ uncited: no_citation]**"


@pytest.mark.parametrize(
    "code",
    [
        "````\nshutil.copy(a, b)\n```\nstill code\n",  # a longer fence: ``` inside it does not close it
        "~~~~\nshutil.copy(a, b)\n~~~\n~~~~\n",  # closed by a run at least as long
        "```\nshutil.copy(a, b)\n```js\n",  # a closing fence has no info string: this one is still open
        "- It copies [1].\n\n  ```\n  shutil.copy(a, b)\n",  # an unclosed fence inside a list item
    ],
    ids=["longer-open", "tilde-closed", "info-string", "list-item-open"],
)
def test_a_mark_after_any_fenced_block_is_read_as_markdown_by_commonmark(audit, code):
    text = "It refuses [1].\n\n" + code
    result = audit.check_answer(plain(text, ("1", "guide", REFUSES)))
    html, blocks = _rendered(result["annotated"])
    _, original_blocks = _rendered(text)
    assert blocks == original_blocks  # every code block holds what it held, and no mark
    marks = sum(c["status"] != "supported" for c in result["claims"])
    assert html.count("<strong>[⚠ ") == marks >= 1
