"""Recheck on rendered pages and across documents: its rows say what a fresh audit says of the cited document.

Two defects a new-user trial found on itsdangerous' reStructuredText docs:
- an ``invalid`` row's diagnosis (``nearest`` and each edit's ``source_span``) was in the rendered text's
  characters, not the file's, so ``nearest`` sliced the wrong words (142–224 where the audit said 208–319);
- the re-audit looked in the other *changed* documents only, so a quote moved to another changed page was
  ``misattributed`` there and one moved to an unchanged page was not: a lookup in part of the corpus. A
  recheck now decides in the cited document alone, as docs/recheck-rules.md says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ...helpers import cli

RST = (
    "Timed signing\n=============\n\nThe :class:`TimestampSigner` class adds **timestamp** information to the\n"
    "signature. On unsigning you can validate that the timestamp is not older than a given age.\n\n"
    ".. code-block:: python\n\n    from itsdangerous import TimestampSigner\n"
)
MD = (
    "# Timed signing\n\nThe [`TimestampSigner`](api.html#ts) class adds **timestamp** information to the\n"
    "signature. On unsigning you can validate that the timestamp is not older than a given age.\n"
)
QUOTE = "On unsigning you can validate that the timestamp is not older than a given age."


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _audit(capsys, tmp: Path, docs: Path, cites: list[dict], ledger: Path | None = None) -> list[dict]:
    cfile = tmp / "c.jsonl"
    cfile.write_text("".join(json.dumps(c) + "\n" for c in cites), encoding="utf-8")
    out = tmp / f"a{len(list(tmp.glob('a*.jsonl')))}.jsonl"
    extra = ["--ledger", str(ledger)] if ledger else []
    code, _, err = cli(capsys, "audit", "--corpus-dir", str(docs), "--citations", str(cfile), "--output", str(out),
                       "--quiet", *extra)  # fmt: skip
    assert code == 0, err
    return _rows(out)


def _recheck(capsys, tmp: Path, docs: Path, ledger: Path) -> list[dict]:
    out = tmp / "r.jsonl"
    code, _, err = cli(capsys, "recheck", "--ledger", str(ledger), "--corpus-dir", str(docs), "--output", str(out),
                       "--quiet")  # fmt: skip
    assert code == 0, err
    return _rows(out)


@pytest.mark.parametrize("name, page", [("timed.rst", RST), ("timed.md", MD)])
@pytest.mark.parametrize("edit", [("a given age", "5 seconds"), ("is not older", "is older")])
def test_an_invalid_rows_diagnosis_points_into_the_file_as_the_audits_does(capsys, tmp_path, name, page, edit):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / name).write_text(page, encoding="utf-8")
    cites = [{"citation_id": "c1", "doc_id": name, "quote": QUOTE}]
    ledger = tmp_path / "L.jsonl"
    assert _audit(capsys, tmp_path, docs, cites, ledger)[0]["verdict"] == "found"
    edited = page.replace(*edit)
    (docs / name).write_text("Intro line.\n\n" + edited if name.endswith(".md") else edited, encoding="utf-8")
    fresh = _audit(capsys, tmp_path, docs, cites)[0]
    row = _recheck(capsys, tmp_path, docs, ledger)[0]
    assert row["status"] == "invalid" and row["verdict"] == fresh["verdict"] == "not_found"
    assert row["diagnosis"] == fresh["diagnosis"]  # nearest, lines and edits in the file's characters
    text = (docs / name).read_text(encoding="utf-8")
    nearest = row["diagnosis"]["nearest"]
    assert text[nearest["start"] : nearest["end"]] == nearest["text"] and "unsigning" in nearest["text"]
    for e in row["diagnosis"]["edits"]:
        if "source_span" in e:
            assert nearest["start"] <= e["source_span"][0] <= e["source_span"][1] <= nearest["end"]


@pytest.mark.parametrize("other_changed", [True, False], ids=["moved_to_a_changed_page", "moved_to_an_unchanged_page"])
def test_a_quote_moved_to_another_page_is_invalid_in_its_cited_page_either_way(capsys, tmp_path, other_changed):
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text(f"# A\n\n{QUOTE}\n", encoding="utf-8")
    (docs / "b.md").write_text("# B\n\nNothing about timestamps here yet.\n", encoding="utf-8")
    (docs / "c.md").write_text(f"# C\n\nAlso said here: {QUOTE}\n", encoding="utf-8")
    cites = [{"citation_id": "c1", "doc_id": "a.md", "quote": QUOTE}, {"citation_id": "b1", "doc_id": "b.md",
             "quote": "Nothing about timestamps here yet."}]  # fmt: skip
    ledger = tmp_path / "L.jsonl"
    _audit(capsys, tmp_path, docs, cites, ledger)
    (docs / "a.md").write_text("# A\n\nThe page was rewritten.\n", encoding="utf-8")
    if other_changed:
        (docs / "b.md").write_text(f"# B\n\nNothing about timestamps here yet.\n\n{QUOTE}\n", encoding="utf-8")
    row = _recheck(capsys, tmp_path, docs, ledger)[0]
    assert row["status"] == "invalid" and row["verdict"] == "not_found" and row["spans"] == []
