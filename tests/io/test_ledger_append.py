"""Appending to a ledger (``io.ledger_append``): never onto a file that is not one, and checked before any work.

A new-user trial ran ``audit --ledger notledger.jsonl`` on a citations table: exit 0, the table gained
ledger rows, and every later recheck refused the file. Now a non-empty file's first and last lines must be
ledger rows (the rule every read applies to every line), or nothing is written.
"""

from __future__ import annotations

import json

import pytest
from claimgate.errors import IngestionError
from claimgate.io import ledger_append
from claimgate.io.ledger_append import append_ledger, check_appendable
from claimgate.io.ledger_lines import read_ledger
from hypothesis import given, settings
from hypothesis import strategies as st

from ..helpers import FIXTURES, cli


def row(i: int, quote: str = "some words") -> dict:
    return {"kind": "citation", "corpus_sha256": "0" * 64, "sources": {"d": "1" * 64}, "citation_id": f"c{i}",
            "doc_id": "d", "quote": quote, "verdict": "found", "spans": []}  # fmt: skip


def test_a_missing_or_empty_file_takes_rows(tmp_path):
    for path in (tmp_path / "new.jsonl", tmp_path / "empty.jsonl"):
        if path.name == "empty.jsonl":
            path.write_bytes(b"")
        check_appendable(path)
        assert append_ledger(path, [row(1), row(2)]) == 2
        assert [r["citation_id"] for r in read_ledger(path)] == ["c1", "c2"]


@pytest.mark.parametrize(
    "content, said, reason",
    [
        ('{"citation_id": "c1", "doc_id": "d", "quote": "q"}\n', "its first line", "ledger_invalid"),  # citations
        ("not json at all\n", "its first line", "ledger_invalid"),
        ("\ufeff", "byte-order mark", "ledger_invalid"),  # a byte-order mark, then a ledger row (below)
    ],
    ids=["citations_table", "text", "bom"],
)
def test_a_file_whose_first_line_is_not_a_ledger_row_is_refused_and_kept(tmp_path, content, said, reason):
    path = tmp_path / "l.jsonl"
    append_ledger(path, [row(1)])
    before = content.encode() + path.read_bytes()
    path.write_bytes(before)
    for attempt in (lambda: check_appendable(path), lambda: append_ledger(path, [row(2)])):
        with pytest.raises(IngestionError) as info:
            attempt()
        assert info.value.reason == reason and said in str(info.value)
    assert path.read_bytes() == before


def test_a_file_whose_last_line_is_not_a_ledger_row_or_was_edited_is_refused(tmp_path):
    path = tmp_path / "l.jsonl"
    append_ledger(path, [row(1), row(2)])
    good = path.read_bytes()
    path.write_bytes(good + b'{"verdict": "found"}\n')
    with pytest.raises(IngestionError, match="its last line: not a ledger row"):
        append_ledger(path, [row(3)])
    path.write_bytes(good.replace(b'"quote":"some words"', b'"quote":"other words"'))
    with pytest.raises(IngestionError) as info:
        check_appendable(path)
    assert info.value.reason == "ledger_row_edited"


def test_a_cut_last_line_is_truncated(tmp_path):
    path = tmp_path / "l.jsonl"
    append_ledger(path, [row(1)])
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(IngestionError) as info:
        check_appendable(path)
    assert info.value.reason == "ledger_truncated"


def test_long_rows_and_crlf_lines_are_found_whole(tmp_path, monkeypatch):
    monkeypatch.setattr(ledger_append, "TAIL_STEP", 7)  # rows many steps long
    path = tmp_path / "l.jsonl"
    append_ledger(path, [row(1, "word " * 50), row(2, "ünïcödé " * 30)])
    path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))
    check_appendable(path)
    assert append_ledger(path, [row(3)]) == 1 and len(read_ledger(path)) == 3


@settings(max_examples=30, deadline=None)
@given(
    st.integers(min_value=0, max_value=4),
    st.one_of(st.none(), st.dictionaries(st.text(max_size=5), st.integers(), max_size=3)),
)
def test_appending_keeps_the_file_a_ledger_or_writes_nothing(tmp_path_factory, rows, foreign):
    path = tmp_path_factory.mktemp("l") / "l.jsonl"
    append_ledger(path, [row(i) for i in range(rows)])
    if foreign is not None:
        path.write_bytes(path.read_bytes() + json.dumps(foreign).encode() + b"\n")
    before = path.read_bytes()
    try:
        append_ledger(path, [row(9)])
    except IngestionError:
        assert foreign is not None and path.read_bytes() == before
        return
    assert foreign is None and len(read_ledger(path)) == rows + 1


@pytest.mark.parametrize("command", ["audit", "gate"])
def test_the_command_refuses_before_any_work(capsys, tmp_path, command):
    table = tmp_path / "cites.jsonl"
    table.write_text(json.dumps({"citation_id": "c", "doc_id": "d", "quote": "q"}) + "\n", encoding="utf-8")
    output = tmp_path / "o.jsonl"
    args = {
        "audit": ["audit", "--corpus", str(FIXTURES / "audit" / "corpus.json"), "--citations",
                  str(FIXTURES / "audit" / "citations.jsonl")],
        "gate": ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json")],
    }[command]  # fmt: skip
    code, _, err = cli(capsys, *args, "--output", str(output), "--ledger", str(table), "--quiet")
    assert code == 3 and "ledger_invalid: cannot append to" in err and "its first line" in err
    assert not output.exists() and table.read_text(encoding="utf-8").count("\n") == 1


def test_a_fifo_as_ledger_is_refused_without_blocking(tmp_path):
    import os

    fifo = tmp_path / "l.jsonl"
    os.mkfifo(fifo)
    for attempt in (lambda: check_appendable(fifo), lambda: append_ledger(fifo, [row(1)])):  # before any work
        with pytest.raises(IngestionError, match="ledger_invalid: .* is a FIFO .*: a ledger is a regular file"):
            attempt()


def test_a_short_write_is_continued_until_every_line_is_out(tmp_path, monkeypatch):
    import os

    real_write, calls = os.write, []

    def short(fd, data):
        calls.append(len(data))
        return real_write(fd, bytes(data[: max(1, len(data) // 3)]))

    monkeypatch.setattr(ledger_append.os, "write", short)
    path = tmp_path / "l.jsonl"
    assert append_ledger(path, [row(1), row(2), row(3)]) == 3
    assert len(calls) > 1 and [r["citation_id"] for r in read_ledger(path)] == ["c1", "c2", "c3"]


def test_a_ledger_under_a_file_is_an_output_error_naming_it(tmp_path):
    from claimgate.errors import OutputError

    (tmp_path / "a-file").write_text("")
    with pytest.raises(OutputError, match="cannot append to .*a-file/l.jsonl: a part of its folder path is a file"):
        append_ledger(tmp_path / "a-file" / "l.jsonl", [row(1)])


def test_a_ledger_in_new_folders_is_made_there(tmp_path):
    path = tmp_path / "new" / "folders" / "l.jsonl"
    assert append_ledger(path, [row(1)]) == 1 and [r["citation_id"] for r in read_ledger(path)] == ["c1"]
