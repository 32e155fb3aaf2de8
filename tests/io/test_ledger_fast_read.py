"""The ledger's bulk reads (``read_ledger``, ``read_ledger_entries``) give exactly what the line-at-a-time read gives.

``read_ledger_reference`` is the executable statement: every row as ``json.loads`` reads it, and each
refusal (``ledger_truncated``, ``ledger_invalid``, ``ledger_row_edited``) at the first line that has it,
worded the same. The bulk read must agree on random sealed rows and on every way a file can be damaged.
"""

from __future__ import annotations

import json

import pytest
from claimgate.errors import IngestionError
from claimgate.io.json_text import has_long_digit_run, lines_with_long_digit_runs
from claimgate.io.ledger_file import (
    LEDGER_SCHEMA,
    append_ledger,
    canonical_bytes,
    citation_entry,
    read_ledger,
    read_ledger_entries,
    read_ledger_reference,
    sealed,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def outcome(read, path) -> object:
    """The rows read, or ``(reason, one-line message)`` of the refusal."""
    try:
        return read(path)
    except IngestionError as exc:
        return exc.reason, exc.one_line()


def entries_of(rows: list[dict]) -> list[tuple] | None:
    """What ``read_ledger_entries`` keeps of reference rows: each ``citation_entry``, or ``None``."""
    try:
        return [citation_entry(line, row) for line, row in enumerate(rows, 1)]
    except (LookupError, TypeError):
        return None


def same_outcome(path) -> object:
    fast, reference = outcome(read_ledger, path), outcome(read_ledger_reference, path)
    assert fast == reference
    assert repr(fast) == repr(reference)  # ints stay ints, floats floats (1 == 1.0 would hide it)
    read = outcome(read_ledger_entries, path)
    if not isinstance(reference, list):
        assert read == reference  # the same refusal, worded the same
    elif read.entries is not None:
        assert repr(read.entries) == repr(entries_of(reference)) and read.rows is None
        assert repr([read.row(line) for line in range(1, len(reference) + 1)]) == repr(reference)
    else:  # a request row, a row lacking a citation's fields, or a doubt the line-by-line read settled
        assert repr(read.rows) == repr(reference)
    return fast


TEXT = st.text(st.characters(blacklist_categories=("Cs",)), max_size=12) | st.sampled_from(
    ["\ud800", "naïve “quote”", "x\u2028y", '"row_sha256":"', "", "\x00\x1f"]
)
NUMBER = st.integers(-(2**70), 2**70) | st.sampled_from([1234567890123456789012, 10**19, -(2**63) - 1])
VALUE = st.recursive(
    st.none() | st.booleans() | NUMBER | TEXT | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def ledger_rows(draw) -> dict:
    row = {
        "kind": draw(st.sampled_from(["citation", "request"])),
        "corpus_sha256": draw(st.text("0123456789abcdef", min_size=64, max_size=64)),
        "sources": draw(st.dictionaries(TEXT, st.none() | st.text("0123456789", min_size=19, max_size=64))),
    }
    row.update(draw(st.dictionaries(st.sampled_from(["quote", "doc_id", "spans", "extra", "verdict"]), VALUE)))
    if draw(st.booleans()):  # a citation row with every field a recheck reads
        row.update(kind="citation", doc_id=draw(TEXT), citation_id=draw(TEXT), verdict="found", spans=[])
    return row


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=st.lists(ledger_rows(), min_size=1, max_size=5))
def test_random_sealed_rows_read_the_same(tmp_path, rows):
    path = tmp_path / "l.jsonl"
    path.unlink(missing_ok=True)
    append_ledger(path, rows)
    assert isinstance(same_outcome(path), list)


def written(tmp_path, rows) -> bytes:
    path = tmp_path / "base.jsonl"
    path.unlink(missing_ok=True)
    append_ledger(path, rows)
    return path.read_bytes()


def damaged(data: bytes, kind: str, at: int, byte: int) -> bytes:
    lines = data.splitlines(keepends=True)
    n = at % len(lines)
    if kind == "truncate":
        return data[: at % len(data)]
    if kind == "flip":
        position = at % len(data)
        return data[:position] + bytes([byte]) + data[position + 1 :]
    if kind == "drop":
        return b"".join(lines[:n] + lines[n + 1 :])
    if kind == "reencode":  # the same row written by another encoder: the seal holds only after re-encoding
        row = json.loads(lines[n])
        return b"".join([*lines[:n], json.dumps(row, indent=None).encode() + b"\n", *lines[n + 1 :]])
    if kind == "reseal":  # an edited row whose checksum was recomputed over the edited field
        row = json.loads(lines[n])
        row["quote"] = "edited"
        return b"".join([*lines[:n], canonical_bytes(sealed(row)) + b"\n", *lines[n + 1 :]])
    if kind == "crlf":
        return data.replace(b"\n", b"\r\n")
    if kind == "insert":
        return b"".join([*lines[:n], bytes([byte]) * 3 + b"\n", *lines[n:]])
    return data + lines[n]  # "repeat": a line appended twice


KINDS = ["truncate", "flip", "drop", "reencode", "reseal", "crlf", "insert", "repeat"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=st.lists(ledger_rows(), min_size=1, max_size=4),
    kind=st.sampled_from(KINDS),
    at=st.integers(0, 10**6),
    byte=st.integers(0, 255),
)
def test_damaged_files_are_read_or_refused_the_same(tmp_path, rows, kind, at, byte):
    path = tmp_path / "l.jsonl"
    path.write_bytes(damaged(written(tmp_path, rows), kind, at, byte))
    same_outcome(path)


ROW = {"kind": "citation", "corpus_sha256": "c" * 64, "sources": {"a": "1" * 64}, "quote": "q", "spans": []}


def test_truncated_ledger_is_refused_the_same(tmp_path):
    path = tmp_path / "l.jsonl"
    append_ledger(path, [ROW, ROW])
    path.write_bytes(path.read_bytes()[:-5])
    assert same_outcome(path)[0] == "ledger_truncated"


def test_edited_row_is_refused_the_same_at_its_line(tmp_path):
    path = tmp_path / "l.jsonl"
    append_ledger(path, [ROW, ROW, ROW])
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = lines[1].replace(b'"quote":"q"', b'"quote":"Q"')
    path.write_bytes(b"".join(lines))
    reason, message = same_outcome(path)
    assert reason == "ledger_row_edited" and ":2:" in message


def test_sealed_row_mismatch_after_reencoding_is_refused_the_same(tmp_path):
    path = tmp_path / "l.jsonl"
    row = sealed(ROW)
    row["row_sha256"] = "0" * 64  # a seal that matches neither the bytes nor the re-encoded fields
    path.write_bytes(canonical_bytes(sealed(ROW)) + b"\n" + json.dumps(row).encode() + b"\n")
    assert same_outcome(path)[0] == "ledger_row_edited"


def test_a_row_written_by_another_encoder_is_read_the_same(tmp_path):
    path = tmp_path / "l.jsonl"
    path.write_text(json.dumps(sealed(ROW), indent=None, sort_keys=False) + "\n", encoding="utf-8")
    assert same_outcome(path) == [sealed(ROW)]


def test_a_row_of_another_schema_is_refused_the_same(tmp_path):
    path = tmp_path / "l.jsonl"
    row = sealed(ROW) | {"schema": "claimgate.ledger/2"}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert same_outcome(path)[0] == "ledger_invalid"


@pytest.mark.parametrize("content", [b"", b"\n", b"[]\n", b"not json\n", b"\xff\n", b"NaN\n", b'{"a": 1e400}\n'])
def test_lines_that_are_no_ledger_rows_are_refused_the_same(tmp_path, content):
    path = tmp_path / "l.jsonl"
    path.write_bytes(content)
    assert same_outcome(path)[0] == "ledger_invalid"


def test_a_huge_integer_is_read_as_json_loads_reads_it(tmp_path):
    path = tmp_path / "l.jsonl"
    append_ledger(path, [ROW | {"spans": [{"start": 10**25, "end": -(2**64)}]}])
    (row,) = same_outcome(path)
    assert row["spans"] == [{"start": 10**25, "end": -(2**64)}] and type(row["spans"][0]["start"]) is int


def test_a_lone_surrogate_is_read_the_same(tmp_path):
    path = tmp_path / "l.jsonl"
    append_ledger(path, [ROW | {"quote": "lone \ud800"}])
    assert same_outcome(path)[0]["quote"] == "lone \ud800"


def test_the_ledger_claimgate_writes_is_read_in_bulk(tmp_path, monkeypatch):
    from claimgate.io import ledger_file

    path = tmp_path / "l.jsonl"
    append_ledger(path, [ROW | {"n": i, "sources": {"d": "7" * 64}} for i in range(50)])
    monkeypatch.setattr(ledger_file, "_rows_reference", lambda *a: pytest.fail("went line by line"))
    assert [r["n"] for r in read_ledger(path)] == list(range(50))
    assert all(r["schema"] == LEDGER_SCHEMA for r in read_ledger(path))


@given(st.lists(st.text("0123456789ab\n\r", max_size=60), max_size=6))
def test_the_lines_with_long_digit_runs_are_those_the_row_guard_names(parts):
    data = "\n".join(parts).encode()
    expected = {n for n, line in enumerate(data.splitlines()) if has_long_digit_run(line)}
    assert lines_with_long_digit_runs(data) == expected


def test_a_ledger_of_citations_is_kept_as_entries_and_a_mixed_one_as_rows(tmp_path):
    path = tmp_path / "l.jsonl"
    citation = ROW | {"doc_id": "a", "citation_id": "c", "verdict": "found"}
    append_ledger(path, [citation, citation])
    read = read_ledger_entries(path)
    assert read.rows is None and [entry[:2] for entry in read.entries] == [(1, "a"), (2, "a")]
    assert read.row(2) == read_ledger_reference(path)[1]
    append_ledger(path, [{"kind": "request", "corpus_sha256": "m", "sources": {}, "case_id": "k"}])
    read = read_ledger_entries(path)
    assert read.entries is None and [r["kind"] for r in read.rows] == ["citation", "citation", "request"]
