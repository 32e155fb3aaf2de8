"""The ledger's bulk reads (``read_ledger``, ``read_ledger_lines``) give exactly what the line-at-a-time read gives.

``read_ledger_reference`` is the executable statement: every row as ``json.loads`` reads it, and each
refusal (``ledger_truncated``, ``ledger_invalid``, ``ledger_row_edited``) at the first line that has it,
worded the same. The bulk read must agree on random sealed rows and on every way a file can be damaged.
"""

from __future__ import annotations

import json

import pytest
from claimgate.errors import IngestionError
from claimgate.io.json_text import has_long_digit_run, lines_with_long_digit_runs
from claimgate.io.ledger_append import append_ledger
from claimgate.io.ledger_file import LEDGER_SCHEMA, canonical_bytes, read_ledger_reference, sealed
from claimgate.io.ledger_lines import (
    CITATION_ID,
    DOC_ID,
    RECORDED,
    SOURCE,
    SPANS,
    VERDICT,
    read_ledger,
    read_ledger_lines,
    start_ledger_read,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def outcome(read, path) -> object:
    """The rows read, or ``(reason, one-line message)`` of the refusal."""
    try:
        return read(path)
    except IngestionError as exc:
        return exc.reason, exc.one_line()


def canonical_fields(item: tuple) -> tuple:
    """What a canonical line's captured bytes say, decoded: ``(citation_id, doc_id, sources, spans, verdict)``."""
    return (
        json.loads(item[CITATION_ID]),
        json.loads(item[DOC_ID]),
        {json.loads(item[SOURCE]): item[RECORDED].decode()},
        json.loads(item[SPANS]),
        json.loads(item[VERDICT]),
    )


def helped_read(path) -> object:
    """``read_ledger_lines`` with the command's helper, whatever the file's size."""
    with start_ledger_read(path, helper=True, helper_from_bytes=0) as pending:
        return pending.lines()


def same_outcome(path) -> object:
    fast, reference = outcome(read_ledger, path), outcome(read_ledger_reference, path)
    assert fast == reference
    assert repr(fast) == repr(reference)  # ints stay ints, floats floats (1 == 1.0 would hide it)
    read = outcome(read_ledger_lines, path)
    helped = outcome(helped_read, path)  # the file's last part scanned by a forked helper
    assert repr(helped) == repr(read)
    if not isinstance(reference, list):
        assert read == reference  # the same refusal, worded the same
        return fast
    assert repr(read.rows()) == repr(reference)
    for item, row in zip(read.items, reference, strict=True):
        if type(item) is tuple:  # taken apart on its bytes: the same values as the row parsed
            fields = (row["citation_id"], row["doc_id"], row["sources"], row["spans"], row["verdict"])
            assert repr(canonical_fields(item)) == repr(fields)
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


def canonical_row(citation_id: str, doc_id: str, **fields) -> dict:
    """A citation row with every field ``audit --ledger`` writes (before sealing)."""
    return {
        "kind": "citation",
        "citation_id": citation_id,
        "doc_id": doc_id,
        "corpus_sha256": "c" * 64,
        "sources": {doc_id: "5" * 64},
        "quote": "the cited words",
        "verdict": "found",
        "reason": "verbatim_match",
        "spans": [{"start": 0, "end": 15}],
        "fingerprint": {"tokens": ["the", "cited", "words"], "before": [], "after": ["and"]},
    } | fields


SPAN = st.fixed_dictionaries({"start": NUMBER, "end": NUMBER})


@st.composite
def canonical_rows(draw) -> dict:
    """Citation rows of ``audit --ledger``'s shape whose values may hold escapes, surrogates and odd numbers."""
    doc_id = draw(TEXT)
    tokens = st.lists(TEXT, max_size=4)
    return canonical_row(
        draw(TEXT),
        doc_id,
        quote=draw(TEXT),
        verdict=draw(st.sampled_from(["found", "not_found", "misattributed"]) | TEXT),
        reason=draw(TEXT),
        spans=draw(st.lists(SPAN, max_size=3)),
        sources={draw(st.sampled_from([doc_id, "other"])): draw(st.sampled_from(["5" * 64, "A" * 64]))},
        fingerprint={"tokens": draw(tokens), "before": draw(tokens), "after": draw(tokens)},
    )


#: Files of random rows, or of citation rows of ``audit --ledger``'s shape (taken apart on their bytes if they can be).
FILES = st.lists(ledger_rows(), min_size=1, max_size=5) | st.lists(canonical_rows(), min_size=1, max_size=5)


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=FILES)
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


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    rows=FILES,
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
    from claimgate.io import ledger_lines

    path = tmp_path / "l.jsonl"
    append_ledger(path, [ROW | {"n": i, "sources": {"d": "7" * 64}} for i in range(50)])
    # where the bulk read calls it (io.ledger_lines imports it from io.ledger_file)
    monkeypatch.setattr(ledger_lines, "_rows_reference", lambda *a: pytest.fail("went line by line"))
    assert [r["n"] for r in read_ledger(path)] == list(range(50))
    assert all(r["schema"] == LEDGER_SCHEMA for r in read_ledger(path))


@given(st.lists(st.text("0123456789ab\n\r", max_size=60), max_size=6))
def test_the_lines_with_long_digit_runs_are_those_the_row_guard_names(parts):
    data = "\n".join(parts).encode()
    expected = {n for n, line in enumerate(data.splitlines()) if has_long_digit_run(line)}
    assert lines_with_long_digit_runs(data) == expected


def test_a_ledger_of_canonical_citations_is_kept_as_bytes_and_other_rows_parsed(tmp_path):
    path = tmp_path / "l.jsonl"
    citation = canonical_row("c", "a")
    append_ledger(path, [citation, citation | {"quote": 'a "quoted" word'}])
    read = read_ledger_lines(path)
    assert type(read.items[0]) is tuple and canonical_fields(read.items[0])[:2] == ("c", "a")
    assert type(read.items[1]) is dict  # an escape in the quote: parsed as read_ledger parses it
    assert read.row(1) == read_ledger_reference(path)[0]
    append_ledger(path, [{"kind": "request", "corpus_sha256": "m", "sources": {}, "case_id": "k"}])
    assert [r["kind"] for r in read_ledger_lines(path).rows()] == ["citation", "citation", "request"]


def resealed(line: bytes) -> bytes:
    """``line`` with its ``row_sha256`` recomputed over its bytes as they are (a forger's seal)."""
    import hashlib
    import re

    digest = re.search(rb'"row_sha256":"([0-9a-f]{64})",', line)
    body = line[: digest.start()] + line[digest.end() :]
    return line.replace(digest[1], hashlib.sha256(body).hexdigest().encode())


@pytest.mark.parametrize(
    ("written_as", "now"),
    [(b"caf\xc3\xa9", b"caf\xe9"), (b"caf\xc3\xa9", b"caf\xed\xa0\x80"), (b"the cited", b"the\x01cited")],
)
def test_a_canonical_line_resealed_over_bytes_that_are_no_json_text_is_refused_the_same(tmp_path, written_as, now):
    # Not UTF-8, a surrogate spelled in UTF-8, a raw control character: the line still matches nothing but JSON.
    path = tmp_path / "l.jsonl"
    append_ledger(path, [canonical_row("c", "a", quote="café, the cited words")])
    path.write_bytes(resealed(path.read_bytes().rstrip(b"\n").replace(written_as, now)) + b"\n")
    assert same_outcome(path)[0] == "ledger_invalid"


def test_a_canonical_line_after_a_carriage_return_is_read_as_splitlines_splits_the_file(tmp_path):
    # The scan for canonical lines goes by newlines; a match that starts after a lone "\r" is inside a line of
    # the scan but a line of its own for splitlines (which the reference read uses): both lines are parsed.
    path = tmp_path / "l.jsonl"
    append_ledger(path, [canonical_row("c", "a", quote='a "quoted" word'), canonical_row("d", "a")])
    first, second = path.read_bytes().splitlines()  # the first is sealed as written, not canonical (an escape)
    path.write_bytes(first + b"\r" + second + b"\n" + second + b"\n")
    rows = same_outcome(path)
    assert [r["citation_id"] for r in rows] == ["c", "d", "d"]
    assert [type(item) for item in read_ledger_lines(path).items] == [dict, dict, tuple]
