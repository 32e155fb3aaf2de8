"""The review pages mark the quoted words on Markdown, reStructuredText, HTML and plain-text pages alike:
a rendered page's passage is its visible text, each span taken back from the file as written."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from claimgate.io.markdown_text import markdown_visible_text
from claimgate.io.rst_text import rst_visible_text
from claimgate.io.visible_text import raw_diagnosis, raw_spans
from claimgate.report.cards import citation_card
from hypothesis import given, settings
from hypothesis import strategies as st
from lxml import html as lxml_html

from ..helpers import cli

#: One page per kind, each holding markup inside the honest quote and around the near-miss's passage.
PAGES = {
    "unit/limits.md": 'Uploads are limited to **5 MB** per file; the [API](https://x.example/api "API") '
    "rejects larger bodies.\n",
    "unit/limits.rst": "Uploads are limited to **5 MB** per file; the `API <https://x.example/api>`_ "
    "rejects larger bodies.\n",
    "unit/roles.rst": "Intro text first.\n\nCall :meth:`~pool.Pool.close` once the upload is done; "
    "the :class:`~store.Store` rejects larger bodies.\n",
    "unit/deep.md": "# Limits\n\n> - Uploads are *limited* to `5 MB` per file;\n>   the <b>API</b> rejects larger "
    "bodies.\n",
    "unit/limits.html": "<html><body><p>Uploads are limited to <b>5 MB</b> per file; the <a href='x'>API</a> "
    "rejects larger bodies.</p></body></html>",
    "unit/limits.txt": "Uploads are limited to 5 MB per file; the API rejects larger bodies.\n",
}
HONEST = {
    "unit/roles.rst": "Call close() once the upload is done",
}
NEAR = {"unit/roles.rst": ("the Store refuses larger bodies", "the Store rejects larger bodies")}
DEFAULT_HONEST = "Uploads are limited to 5 MB per file"
DEFAULT_NEAR = ("the API refuses larger bodies", "the API rejects larger bodies")


def _corpus(tmp_path: Path) -> Path:
    folder = tmp_path / "corpus"
    for name, text in PAGES.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text(text, encoding="utf-8")
    return folder


def _citations() -> list[dict]:
    rows = []
    for i, doc in enumerate(PAGES):
        rows.append({"citation_id": f"ok{i}", "doc_id": doc, "quote": HONEST.get(doc, DEFAULT_HONEST)})
        rows.append({"citation_id": f"near{i}", "doc_id": doc, "quote": NEAR.get(doc, DEFAULT_NEAR)[0]})
    return rows


def _cards(page: str) -> dict[str, dict[str, list[str]]]:
    """``{citation_id: {section label: [marked texts]}}`` of a review page, read as a browser's DOM would be."""
    tree = lxml_html.fromstring(page)
    cards = {}
    for card in tree.xpath('//div[contains(@class, "card")][@data-verdict]'):
        citation = card.xpath("./h3")[0].text_content().split(" ")[0]
        sections: dict[str, list[str]] = {}
        for label in card.xpath('./div[@class="label"]'):
            passage = label.getnext()
            if passage is not None and passage.get("class") == "passage":
                sections[label.text_content()] = [m.text_content() for m in passage.xpath(".//mark")]
        cards[citation] = sections
    return cards


def _marks(sections: dict[str, list[str]], prefix: str) -> list[str]:
    return [m for label, marks in sections.items() if label.startswith(prefix) for m in marks]


@pytest.fixture
def audit_report(capsys, tmp_path) -> str:
    citations = tmp_path / "c.jsonl"
    citations.write_text("".join(json.dumps(c) + "\n" for c in _citations()), encoding="utf-8")
    report = tmp_path / "r.html"
    code, _, err = cli(
        capsys, "audit", "--quiet", "--corpus-dir", str(_corpus(tmp_path)), "--citations", str(citations),
        "--output", str(tmp_path / "o.jsonl"), "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    return report.read_text(encoding="utf-8")


@pytest.mark.parametrize("doc", sorted(PAGES))
def test_audit_report_marks_exactly_the_quoted_words_of_a_found_quote(audit_report, doc):
    cards = _cards(audit_report)
    i = list(PAGES).index(doc)
    assert _marks(cards[f"ok{i}"], "source passage") == [HONEST.get(doc, DEFAULT_HONEST)]


@pytest.mark.parametrize("doc", sorted(PAGES))
def test_audit_report_nearest_passage_marks_the_passage_the_diagnosis_names(audit_report, doc):
    cards = _cards(audit_report)
    i = list(PAGES).index(doc)
    assert _marks(cards[f"near{i}"], "nearest passage") == [NEAR.get(doc, DEFAULT_NEAR)[1]]


def test_answer_report_marks_the_quoted_words_and_the_nearest_passage(capsys, tmp_path):
    corpus = _corpus(tmp_path)
    answer = {
        "text": "Uploads are capped [1]. Big bodies fail [2]. Close it after [3].",
        "citations": [
            {"marker": "1", "doc_id": "unit/limits.md", "quote": DEFAULT_HONEST},
            {"marker": "2", "doc_id": "unit/limits.rst", "quote": DEFAULT_NEAR[0]},
            {"marker": "3", "doc_id": "unit/roles.rst", "quote": HONEST["unit/roles.rst"]},
        ],
    }
    path = tmp_path / "a.json"
    path.write_text(json.dumps(answer), encoding="utf-8")
    report = tmp_path / "a.html"
    code, _, err = cli(
        capsys, "answer", "--quiet", "--corpus-dir", str(corpus), "--answer", str(path),
        "--output", str(tmp_path / "a-out.json"), "--report", str(report),
    )  # fmt: skip
    assert code == 0, err
    cards = list(_cards(report.read_text(encoding="utf-8")).values())
    assert _marks(cards[0], "source passage") == [DEFAULT_HONEST]
    assert _marks(cards[1], "nearest passage") == [DEFAULT_NEAR[1]]
    assert _marks(cards[2], "source passage") == [HONEST["unit/roles.rst"]]


# --------------------------------------------------------------------------- any span of any page

_WORDS = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=1, max_size=7)
_MD = st.sampled_from(["{}", "*{}*", "**{}**", "`{}`", "[{}](https://x.org/{})", "{}[^1]", "<i>{}</i>", "\\*{}"])
_RST = st.sampled_from(["{}", "*{}*", "**{}**", "``{}``", "`{} <https://x.org/{}>`_", ":class:`{}`", "\\*{}"])


@settings(max_examples=80, deadline=None)
@given(st.booleans(), st.lists(st.lists(_WORDS, min_size=1, max_size=6), min_size=1, max_size=3), st.data())
def test_property_a_card_marks_the_visible_words_of_any_span_of_a_rendered_page(rst, paragraphs, data):
    markup = _RST if rst else _MD
    blocks = [" ".join(data.draw(markup).format(w, w) for w in ws) for ws in paragraphs]
    tail = "\n\n.. [#] fn\n" if rst else "\n\n[^1]: fn\n"
    raw = "\n\n".join(blocks) + tail
    visible = (rst_visible_text if rst else markdown_visible_text)(raw)
    spans = [(m.start(), m.end()) for m in re.finditer(r"[^\W_]+", visible.text)][: sum(map(len, paragraphs))]
    i = data.draw(st.integers(0, len(spans) - 1))
    j = data.draw(st.integers(i, len(spans) - 1))
    start, end = spans[i][0], spans[j][1]
    span = {"doc_id": "p", "start": start, "end": end, "start_line": 1, "end_line": 1, "text": ""}
    nearest = raw_diagnosis({"kind": "light_edit", "nearest": span, "edits": []}, {"p": visible})
    row = {"citation_id": "c", "doc_id": "p", "quote": "q", "verdict": "found", "reason": "r",
           "spans": raw_spans([span], {"p": visible}), "diagnosis": nearest}  # fmt: skip
    card = lxml_html.fromstring(citation_card(row, {"p": visible.text}, {"p": visible}))
    assert [m.text_content() for m in card.xpath(".//mark")] == [visible.text[start:end]] * 2


def test_in_a_browser_the_marks_hold_the_quoted_words(audit_report, tmp_path):
    from .test_browser import CHROMIUM, chromium

    if CHROMIUM is None:
        pytest.skip("no Chromium installed (apt-get install -y chromium; .ci/run installs it)")
    page = tmp_path / "r.html"
    page.write_text(audit_report, encoding="utf-8")
    dom = chromium(tmp_path, "--dump-dom", page.as_uri())
    assert dom.returncode == 0, dom.stderr[-2000:]
    cards = _cards(dom.stdout)
    for i, doc in enumerate(PAGES):
        assert _marks(cards[f"ok{i}"], "source passage") == [HONEST.get(doc, DEFAULT_HONEST)]
