"""The review page as text: self-contained, every input escaped, cards, filters and the coloured answer."""

from __future__ import annotations

import re

from claimgate.report import answer_page, audit_page, gate_page
from claimgate.report.cards import marked_passage
from claimgate.report.page import attribute, escaped
from claimgate.report.views import safe_svg
from hypothesis import given
from hypothesis import strategies as st

from .conftest import CORPUS, HOSTILE, REFUSES


def test_markup_and_scripts_from_inputs_are_escaped():
    assert escaped('<script>alert("x")</script>') == "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
    assert escaped("a & b's") == "a &amp; b&#x27;s"
    assert escaped(None) == ""


def test_bidi_and_invisible_controls_are_shown_as_tags_not_applied():
    shown = escaped("a\u202eb\u2066c\u200bd\u0007e\u2028f")
    for code in ("202E", "2066", "200B", "0007", "2028"):
        assert f"⟨U+{code}⟩" in shown
    assert not re.search("[\u202a-\u202e\u2066-\u2069\u200b\u0007\u2028]", shown)
    assert escaped("tab\tand\nnewline") == "tab\tand\nnewline"


def test_attributes_hold_no_control_and_no_quote():
    assert attribute('x" onclick="y\u202e') == "x&quot; onclick=&quot;yU+202E"


@given(st.text())
def test_no_input_text_survives_as_markup_or_a_control(text):
    shown = escaped(text)
    assert "<" not in re.sub(r'<span class="ctl" title="U\+[0-9A-F]{4,6}">|</span>', "", shown)
    assert not re.search("[\u202a-\u202e\u2066-\u2069\u200e\u200f\u061c]", shown)


def test_marked_passage_highlights_the_span_with_context():
    text = "abcdefghij" * 40
    shown = marked_passage(text, [(200, 205)])
    assert "<mark>abcde</mark>" in shown and shown.startswith("…") and shown.endswith("…")
    assert marked_passage("short <b>", [(0, 5)]) == "<mark>short</mark> &lt;b&gt;"


def self_contained(page: str) -> None:
    assert page.startswith("<!DOCTYPE html>")
    assert not re.search(r"<[a-z][^>]*\s(src|href)\s*=", page, flags=re.I)  # no element loads or links anything
    assert not re.search(r"<(link|iframe|object|embed|img|base)\b", page, flags=re.I)
    assert "default-src 'none'" in page


def test_the_audit_page_is_self_contained_with_one_card_per_row(audit_rows):
    page = audit_page(audit_rows, CORPUS)
    self_contained(page)
    assert page.count('<div class="card ') == 4
    for verdict in ("found", "misattributed", "not_found"):
        assert f'data-verdict="{verdict}"' in page
    assert '<option value="no_verbatim_match">' in page  # the reason filter
    assert f"<mark>{REFUSES}</mark>" in page  # the source passage with the span highlighted
    assert "wrong&lt;b&gt;doc&lt;/b&gt;" in page
    assert "text-transform" not in page  # a label naming a document shows its id as written (Guide.md, guide.md)


def test_hostile_text_in_documents_quotes_and_ids_never_becomes_markup(audit_rows):
    page = audit_page(audit_rows, CORPUS)
    assert page.count("<script>") == 1  # the page's own
    assert "<img" not in page and "onerror=alert" not in page.replace("onerror=alert(1)&gt;", "")
    assert "\u202e" not in page and "\u2066" not in page and "\u200b" not in page
    assert "⟨U+202E⟩" in page


def test_a_rejected_card_shows_the_nearest_passage_and_its_edits(audit_rows):
    page = audit_page(audit_rows, CORPUS)
    made_up = page[page.index("made-up") :]
    card = made_up[: made_up.index("</div></div>", made_up.index("edits"))]
    assert "<code>negation_changed</code>" in card and "nearest passage in guide" in card
    assert "<td>insert</td><td>never</td><td></td>" in card


def test_the_judge_reasoning_and_elided_text_are_on_the_card():
    row = {
        "citation_id": "j",
        "doc_id": "guide",
        "verdict": "partial",
        "reason": "verbatim_match",
        "quote": "Quill ... refuses",
        "spans": [],
        "elided": [{"position": "between", "text": "copies <files>"}],
        "judge": {"verdict": "partial", "confidence": 0.5, "reasoning": "only <half> of it"},
    }
    page = audit_page([row], CORPUS)
    assert "[between] copies &lt;files&gt;" in page
    assert "partial (confidence 0.5): only &lt;half&gt; of it" in page


def test_the_answer_page_colours_each_claim_by_status(answer_result):
    page = answer_page(answer_result, CORPUS)
    self_contained(page)
    assert re.findall(r'<span class="claim (\w+)"', page) == ["supported", "unsupported", "uncited"]
    assert "<label>verdict <select" in page  # the filter is over the citations' verdicts
    assert page.count("<script>") == 1 and "\u202e" not in page


def test_the_gate_page_shows_claims_conflicts_and_only_script_free_pictures():
    entry = {
        "case_id": "<i>c</i>",
        "candidate_ids": ["a", "b"],
        "result": {
            "status": "conflict",
            "reason": "same_version_directives_disagree",
            "decided_at": "conflicting_values",
            "claims": [
                {"source_id": "a", "start_line": 3, "quote": "@quill create_copy existing_path=refuse"},
                {"source_id": "b", "start_line": 9, "quote": "@quill create_copy existing_path=overwrite"},
            ],
        },
    }
    page = gate_page([entry], {0: '<?xml version="1.0"?><svg><g><text>ok</text></g></svg>'})
    assert "conflicting directive lines" in page and "b:9: @quill create_copy existing_path=overwrite" in page
    assert "<svg><g><text>ok</text></g></svg>" in page and "<?xml" not in page
    assert "&lt;i&gt;c&lt;/i&gt;" in page
    assert "<label>status <select" in page and "<label>verdict" not in page  # cases have a status
    assert safe_svg('<svg onload="x()"></svg>') is None and safe_svg("<svg><script>x</script></svg>") is None


def test_hostile_text_is_escaped_in_every_page(audit_rows, answer_result):
    for page in (audit_page(audit_rows, CORPUS), answer_page(answer_result, CORPUS)):
        assert HOSTILE not in page
        assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page


def _every_status() -> set[str]:
    from claimgate.audit.recheck_statuses import RECHECK_STATUSES
    from claimgate.reasons import ANSWER_VERDICTS, AUDIT_VERDICTS, CLAIM_STATUSES, GATE_STATUSES

    return {*GATE_STATUSES, *ANSWER_VERDICTS, *CLAIM_STATUSES, *AUDIT_VERDICTS, *RECHECK_STATUSES}


def test_every_verdict_and_status_a_command_writes_has_a_badge_colour():
    from claimgate.report.page import STYLE

    missing = sorted(name for name in _every_status() if f".badge.v-{name}{{background:" not in STYLE)
    assert missing == []  # a badge without its colour was white text on white (the recheck page's statuses)


def test_a_badge_of_an_unknown_value_is_still_visible():
    from claimgate.report.page import STYLE

    rule = re.search(r"\.badge\{([^}]*)\}", STYLE).group(1)
    assert "color:#fff" in rule and re.search(r"background:#[0-9a-f]{6}", rule)
