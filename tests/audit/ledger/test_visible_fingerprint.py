"""A ledger fingerprint of a rendered page comes from its visible text (docs/recheck-rules.md, "The ledger").

Before, the fingerprint of a citation on a Markdown or reStructuredText page applied the span's raw-file
offsets to the rendered text: ledger and recheck agreed with each other, but the tokens were not the cited
words and their neighbours, so an edit of a link target beside the quote read as a changed context and
an edit of a visible neighbour could go unseen.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claimgate.api import Audit
from claimgate.audit.ledger import fingerprint
from claimgate.audit.recheck import recheck_citations
from claimgate.audit.text.normalize import normalize_text
from claimgate.io.documents import frame_source_maps, read_document_folder
from claimgate.io.ledger_lines import read_ledger
from claimgate.io.markdown_text import markdown_visible_text
from hypothesis import given, settings
from hypothesis import strategies as st

from ...helpers import cli
from ...io.test_pinned_pages import pin

MARKDOWN = """\
# Pools

Open one with [`connect()`](api/connect.md#connect) and keep it [sensible](tuning.md#limits): the pool
keeps ten idle connections open until [closed](api/close.md "Close"). <!-- @quill note -->

A last paragraph about {tail}.
"""
MARKDOWN_QUOTE = "the pool keeps ten idle connections open"

RST = """\
Pools
=====

Call :meth:`~pool.Pool.drain` and then the pool keeps ten idle connections open until
:meth:`{target}` is called [#n]_.

A last paragraph about {tail}.

.. [#n] Each worker has its own pool.
"""


def tokens(text: str) -> list[str]:
    return list(normalize_text(text).tokens)


def _ledger_row(folder: Path, name: str, page: str, quote: str) -> dict:
    (folder / name).write_text(page, encoding="utf-8")
    ledger = folder.parent / f"{name}.ledger.jsonl"
    ledger.unlink(missing_ok=True)
    Audit.from_corpus(folder).check([{"citation_id": "c", "doc_id": name, "quote": quote}], ledger=ledger)
    (row,) = read_ledger(ledger)
    return row


def _recheck(folder: Path, ledger_row: dict) -> dict:
    frame = read_document_folder(folder)
    documents = dict(zip(frame["doc_id"], frame["text"]))
    (row,) = recheck_citations([ledger_row], documents, source_maps=frame_source_maps(frame))
    return row


@pytest.fixture
def docs(tmp_path) -> Path:
    folder = tmp_path / "docs"
    folder.mkdir()
    return folder


def test_markdown_fingerprint_holds_the_visible_quote_and_neighbours(docs):
    row = _ledger_row(docs, "pools.md", MARKDOWN.format(tail="sizes"), MARKDOWN_QUOTE)
    assert row["fingerprint"] == {
        "tokens": tokens(MARKDOWN_QUOTE),
        "before": tokens("keep it sensible"),  # the link's text, not its target
        "after": tokens("until closed A"),  # the directive comment is not a neighbour
    }


def test_changing_only_a_link_target_beside_the_quote_keeps_the_fingerprint(docs):
    row = _ledger_row(docs, "pools.md", MARKDOWN.format(tail="sizes"), MARKDOWN_QUOTE)
    # The targets on both sides change, and the page changes further down so that it is audited again.
    edited = MARKDOWN.format(tail="limits").replace("tuning.md#limits", "tune.md").replace("api/close.md", "c.md")
    (docs / "pools.md").write_text(edited, encoding="utf-8")
    rechecked = _recheck(docs, row)
    assert (rechecked["status"], rechecked["moved"], rechecked["context_changed"]) == ("intact", True, False)


def test_changing_a_visible_neighbour_word_changes_the_fingerprint(docs):
    row = _ledger_row(docs, "pools.md", MARKDOWN.format(tail="sizes"), MARKDOWN_QUOTE)
    edited = MARKDOWN.format(tail="sizes").replace("[sensible]", "[careful]")
    (docs / "pools.md").write_text(edited, encoding="utf-8")
    rechecked = _recheck(docs, row)
    assert (rechecked["status"], rechecked["context_changed"]) == ("intact", True)


def test_rst_role_target_edit_keeps_and_visible_edit_changes_the_fingerprint(docs):
    page = RST.format(target="pool.Pool.close", tail="sizes")
    row = _ledger_row(docs, "pools.rst", page, MARKDOWN_QUOTE)
    assert row["fingerprint"]["before"] == tokens("drain() and then")[-3:]
    assert row["fingerprint"]["after"] == tokens("until pool.Pool.close() is")[:3]  # the role as shown
    same_text = RST.format(target="pool.Pool.close", tail="limits")  # the role as written is shown whole
    (docs / "pools.rst").write_text(same_text, encoding="utf-8")
    assert _recheck(docs, row)["context_changed"] is False
    (docs / "pools.rst").write_text(RST.format(target="~pool.Pool.close", tail="limits"), encoding="utf-8")
    assert _recheck(docs, row)["context_changed"] is True  # now shows "close()": a visible neighbour changed


def test_cli_audit_and_recheck_over_a_manifest_agree_on_a_link_target_edit(capsys, tmp_path):
    folder = tmp_path / "pinned"
    manifest = pin(folder, {"pools": ("pools.md", MARKDOWN.format(tail="sizes").encode())})
    cites = tmp_path / "c.jsonl"
    cites.write_text(json.dumps({"citation_id": "c", "doc_id": "pools", "quote": MARKDOWN_QUOTE}) + "\n")
    ledger = tmp_path / "l.jsonl"
    args = ("--citations", str(cites), "--output", str(tmp_path / "a.jsonl"), "--ledger", str(ledger), "--quiet")
    assert cli(capsys, "audit", "--manifest", str(manifest), *args)[0] == 0
    assert read_ledger(ledger)[0]["fingerprint"]["before"] == tokens("keep it sensible")
    edited = MARKDOWN.format(tail="limits").replace("tuning.md#limits", "tuning/limits.html")
    pin(folder, {"pools": ("pools.md", edited.encode())})
    out = tmp_path / "r.jsonl"
    assert cli(capsys, "recheck", "--manifest", str(manifest), "--ledger", str(ledger), "--output", str(out))[0] == 0
    (row,) = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert (row["status"], row["context_changed"]) == ("intact", False)


def test_plain_text_fingerprint_is_unchanged_by_a_source_map_argument():
    text = "one two three four five six seven eight nine"
    spans = [{"start": 8, "end": 18}]
    assert fingerprint(text, spans, source_map=None) == {
        "tokens": ["three", "four"],
        "before": ["one", "two"],
        "after": ["five", "six", "seven"],
    }


WORD = st.sampled_from(["pool", "keeps", "ten", "idle", "open", "until", "closed", "worker"])


@settings(max_examples=40, deadline=None)
@given(st.lists(WORD, min_size=8, max_size=14), st.text("abcxyz/#.", min_size=1, max_size=12), st.data())
def test_property_link_targets_never_reach_the_fingerprint(words, target, data):
    """Whatever a link's target, the fingerprint is that of the visible words, as a plain page has it."""
    first = data.draw(st.integers(2, len(words) - 4))
    last = data.draw(st.integers(first + 2, len(words) - 1))
    linked = [f"[{w}]({target})" if i % 3 == 0 else w for i, w in enumerate(words)]
    visible = markdown_visible_text(" ".join(linked) + "\n")
    plain = " ".join(words) + "\n"
    start = len(" ".join(words[:first])) + 1
    end = len(" ".join(words[:last]))
    assert visible.text == plain
    raw_start, raw_end = visible.raw_span(start, end)
    assert fingerprint(visible.text, [{"start": raw_start, "end": raw_end}], source_map=visible) == fingerprint(
        plain, [{"start": start, "end": end}]
    )


def test_answer_ledger_rows_of_a_rendered_page_take_the_visible_neighbours(capsys, docs, tmp_path):
    (docs / "pools.md").write_text(MARKDOWN.format(tail="sizes"), encoding="utf-8")
    citations = [{"marker": "1", "doc_id": "pools.md", "quote": MARKDOWN_QUOTE}]
    answer = tmp_path / "answer.json"
    answer.write_text(json.dumps({"text": "Ten stay open [1].", "citations": citations}), encoding="utf-8")
    ledgers = []
    for via in ("cli", "api"):
        ledger = tmp_path / f"{via}.jsonl"
        if via == "cli":
            out = tmp_path / "result.json"
            args = ("--answer", str(answer), "--output", str(out), "--ledger", str(ledger), "--quiet")
            assert cli(capsys, "answer", "--corpus-dir", str(docs), *args)[0] == 0
        else:
            Audit.from_corpus(docs).check_answer(json.loads(answer.read_text()), ledger=ledger)
        ledgers.append(read_ledger(ledger)[0]["fingerprint"])
    expected = {
        "tokens": tokens(MARKDOWN_QUOTE),
        "before": tokens("keep it sensible"),
        "after": tokens("until closed A"),
    }
    assert ledgers == [expected, expected]


def test_an_invisible_edit_that_moves_raw_offsets_is_rechecked_not_unchanged(docs):
    """A rendered page is hashed on its file as written: a longer link target before the quote moves the raw
    spans while the visible text stays the same, so the row must come back with spans into the new file."""
    page = MARKDOWN.format(tail="sizes")
    row = _ledger_row(docs, "pools.md", page, MARKDOWN_QUOTE)
    edited = page.replace("tuning.md#limits", "reference/configuration/tuning.md#pool-limits")
    assert markdown_visible_text(edited).text == markdown_visible_text(page).text
    (docs / "pools.md").write_text(edited, encoding="utf-8")
    rechecked = _recheck(docs, row)
    assert (rechecked["status"], rechecked["moved"], rechecked["context_changed"]) == ("intact", True, False)
    sliced = " ".join(edited[s["start"] : s["end"]] for s in rechecked["spans"])
    assert tokens(sliced) == tokens(MARKDOWN_QUOTE)
