"""``audit``, ``answer`` and ``recheck`` with ``--manifest`` read pinned pages rendered (``io.pinned_pages``)."""

from __future__ import annotations

import json
from pathlib import Path

from ..helpers import cli
from ..io.rendered_pages import assert_only_markup_between
from ..io.test_pinned_pages import RELEASE_NOTES, RETRY_GUIDE, pin

LINK_QUOTE = "The retry helper now backs off exponentially and stops after five attempts"
ROLE_QUOTE = "Wrap a call in with_backoff() to retry it"
RAW_QUOTE = "Wrap a call in :func:`~client.retry.with_backoff` to retry it"


def _pages(folder: Path, notes: str = RELEASE_NOTES) -> Path:
    return pin(folder, {"notes": ("notes.md", notes.encode()), "guide": ("retry.rst", RETRY_GUIDE.encode())})


def _citations(tmp_path: Path) -> Path:
    rows = [("a", "notes", LINK_QUOTE), ("b", "guide", ROLE_QUOTE), ("c", "guide", RAW_QUOTE)]
    path = tmp_path / "citations.jsonl"
    path.write_text("".join(json.dumps({"citation_id": c, "doc_id": d, "quote": q}) + "\n" for c, d, q in rows))
    return path


def _rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_audit_manifest_rows_carry_extractors_and_spans_into_the_pinned_files(capsys, tmp_path):
    manifest = _pages(tmp_path / "docs")
    out = tmp_path / "out.jsonl"
    code, _, err = cli(
        capsys, "audit", "--manifest", str(manifest), "--citations", str(_citations(tmp_path)), "--output", str(out)
    )
    assert code == 0, err
    rows = _rows(out)
    assert [r["verdict"] for r in rows] == ["found", "found", "not_found"]
    assert [r["extractors"] for r in rows] == [{"notes": "markdown"}, {"guide": "rst"}, {"guide": "rst"}]
    assert_only_markup_between(RELEASE_NOTES, rows[0]["spans"][0], LINK_QUOTE)
    assert_only_markup_between(RETRY_GUIDE, rows[1]["spans"][0], ROLE_QUOTE)


def test_answer_manifest_finds_a_quote_of_the_rendered_page(capsys, tmp_path):
    manifest = _pages(tmp_path / "docs")
    answer = tmp_path / "answer.json"
    citations = [{"marker": "1", "doc_id": "notes", "quote": LINK_QUOTE}]
    answer.write_text(json.dumps({"text": "The helper backs off [1].", "citations": citations}), encoding="utf-8")
    out = tmp_path / "result.json"
    code, _, err = cli(capsys, "answer", "--manifest", str(manifest), "--answer", str(answer), "--output", str(out))
    assert code == 0, err
    result = json.loads(out.read_text(encoding="utf-8"))
    assert result["verdict"] == "accepted"
    (cited,) = result["claims"][0]["citations"]
    assert_only_markup_between(RELEASE_NOTES, cited["spans"][0], LINK_QUOTE)


def test_recheck_manifest_reads_the_re_pinned_pages_rendered(capsys, tmp_path):
    manifest = _pages(tmp_path / "docs")
    ledger = tmp_path / "ledger.jsonl"
    args = ("--citations", str(_citations(tmp_path)), "--output", str(tmp_path / "a.jsonl"), "--quiet")
    assert cli(capsys, "audit", "--manifest", str(manifest), *args, "--ledger", str(ledger))[0] == 0
    # Re-pinned after an edit of a link target only: the file's bytes changed (its spans may have moved), so
    # the notes page is re-audited; what the reader sees is the same, so the quote is intact, context and all.
    _pages(tmp_path / "docs", RELEASE_NOTES.replace("api/retry.md#retry", "api/v3/retry.md"))
    out = tmp_path / "r.jsonl"
    code, _, err = cli(capsys, "recheck", "--manifest", str(manifest), "--ledger", str(ledger), "--output", str(out))
    assert code == 0, err
    rows = _rows(out)
    # The raw-markup quote (c) was rejected by the audit: it never held, so it is not_held, not unchanged.
    assert [r["status"] for r in rows] == ["intact", "unchanged", "not_held"]
    assert rows[0]["context_changed"] is False
    # A visible word changes: the notes page is re-audited against its rendered text, spans into the file.
    edited = RELEASE_NOTES.replace("backs off\nexponentially", "backs off\nlinearly")
    _pages(tmp_path / "docs", edited)
    code, _, err = cli(capsys, "recheck", "--manifest", str(manifest), "--ledger", str(ledger), "--output", str(out))
    rows = _rows(out)
    assert [r["status"] for r in rows] == ["invalid", "unchanged", "not_held"]
    assert rows[0]["audit_reason"] != "unknown_cited_document"
