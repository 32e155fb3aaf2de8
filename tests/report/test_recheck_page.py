"""The recheck's review page: one card per ledger row, with the quote, today's passage or the diagnosis.

A new-user trial found the page nearly unusable: badges white on white, every card grey, one line per row
(no quote, no passage, no edits). Each card is now an audit card: the status's colour, the quote from the
ledger, the spans marked in today's text (``unchanged``, ``intact``), the nearest passage and edits
(``invalid``), the recorded verdict only (``not_held``, a removed page); everything escaped.
"""

from __future__ import annotations

import json
from pathlib import Path

from lxml import html as lxml_html

from ..helpers import cli

PAGES = {
    "install.md": "# Install\n\nThe cache keeps 40 entries by default.\n",
    "retries.rst": "Retries\n=======\n\nRetries are **not** enabled unless you set the flag.\n",
    "limits.md": "# Limits\n\nUploads are capped at 25 files <b>per</b> request.\n",
}
CITES = [
    {"citation_id": "cache", "doc_id": "install.md", "quote": "The cache keeps 40 entries"},
    {"citation_id": "retry", "doc_id": "retries.rst", "quote": "Retries are not enabled unless you set the flag."},
    {"citation_id": "limit", "doc_id": "limits.md", "quote": "Uploads are capped at 25 files"},
    {"citation_id": "<i>never</i>", "doc_id": "install.md", "quote": "A <script>made up</script> sentence here."},
]


def _page(capsys, tmp_path: Path) -> tuple[list[dict], object]:
    docs = tmp_path / "docs"
    docs.mkdir()
    for name, text in PAGES.items():
        (docs / name).write_text(text, encoding="utf-8")
    cites, ledger = tmp_path / "c.jsonl", tmp_path / "L.jsonl"
    cites.write_text("".join(json.dumps(c) + "\n" for c in CITES), encoding="utf-8")
    code, _, err = cli(capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cites), "--output",
                       str(tmp_path / "a.jsonl"), "--ledger", str(ledger), "--quiet")  # fmt: skip
    assert code == 0, err
    (docs / "install.md").write_text("# Install\n\nFirst a new line.\n\nThe cache keeps 40 entries by default.\n")
    (docs / "retries.rst").write_text("Retries\n=======\n\nRetries are enabled unless you set the flag.\n")
    (docs / "limits.md").unlink()
    out, report = tmp_path / "r.jsonl", tmp_path / "r.html"
    code, _, err = cli(capsys, "recheck", "--ledger", str(ledger), "--corpus-dir", str(docs), "--output", str(out),
                       "--report", str(report), "--quiet")  # fmt: skip
    assert code == 0, err
    rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    return rows, lxml_html.fromstring(report.read_text(encoding="utf-8"))


def test_each_row_is_a_card_coloured_by_its_status_with_its_quote(capsys, tmp_path):
    rows, tree = _page(capsys, tmp_path)
    cards = tree.xpath('//div[contains(@class, "card")]')
    assert [c.get("data-verdict") for c in cards] == [r["status"] for r in rows]
    assert [r["status"] for r in rows] == ["intact", "invalid", "invalid", "not_held"]
    for card, cite in zip(cards, CITES):
        assert f"v-{card.get('data-verdict')}" in card.get("class")
        assert cite["quote"] in card.text_content()  # the ledger's quote, as text (escaped markup)


def test_an_intact_card_marks_the_moved_span_in_todays_text(capsys, tmp_path):
    _, tree = _page(capsys, tmp_path)
    intact = tree.xpath('//div[@data-verdict="intact"]')[0]
    assert [m.text_content() for m in intact.iter("mark")] == ["The cache keeps 40 entries"]
    assert "(moved)" in intact.text_content() and "First a new line." in intact.text_content()
    (held_not,) = tree.xpath('//div[@data-verdict="not_held"]')
    assert "audited not_found, not audited again: it did not hold then" in held_not.text_content()


def test_an_invalid_card_shows_the_nearest_passage_and_the_edit(capsys, tmp_path):
    _, tree = _page(capsys, tmp_path)
    invalid = tree.xpath('//div[@data-verdict="invalid"]')
    changed = invalid[0].text_content()
    assert "negation_changed" in changed and "nearest passage in retries.rst" in changed
    assert [m.text_content() for m in invalid[0].iter("mark")] == ["Retries are enabled unless you set the flag"]
    assert invalid[1].get("data-reason") == "document_removed" and not list(invalid[1].iter("mark"))


def test_inputs_never_become_markup_on_the_page(capsys, tmp_path):
    _, tree = _page(capsys, tmp_path)
    assert tree.xpath("//script[@src]") == [] and len(tree.xpath("//script")) == 1  # the page's own filter
    assert tree.xpath("//i") == [] and tree.xpath("//b") == [] and "<i>never</i>" in tree.text_content()
