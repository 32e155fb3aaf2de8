"""The ledger file (claimgate.io.ledger_file): deterministic rows, atomic appends, hostile files refused."""

from __future__ import annotations

import json
import multiprocessing

import pytest
from claimgate.api import Audit
from claimgate.errors import IngestionError
from claimgate.io.ledger_append import append_ledger
from claimgate.io.ledger_file import LEDGER_SCHEMA, sealed
from claimgate.io.ledger_lines import read_ledger

DOCS = {"a": "The cache keeps 40 entries by default.", "b": "Retries are not enabled unless you set the flag."}
CITES = [
    {"citation_id": "1", "doc_id": "a", "quote": "The cache keeps 40 entries"},
    {"citation_id": "2", "doc_id": "b", "quote": "Retries are not enabled"},
]


def write_ledger(tmp_path):
    path = tmp_path / "l.jsonl"
    Audit.from_corpus(DOCS).check(CITES, ledger=path)
    return path


def test_rows_are_deterministic_with_sorted_keys_and_a_schema(tmp_path):
    first, second = tmp_path / "one", tmp_path / "two"
    first.mkdir(), second.mkdir()
    assert write_ledger(first).read_bytes() == write_ledger(second).read_bytes()
    for line in write_ledger(tmp_path).read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        assert list(row) == sorted(row) and row["schema"] == LEDGER_SCHEMA


def test_appending_twice_keeps_both_runs(tmp_path):
    path = write_ledger(tmp_path)
    Audit.from_corpus(DOCS).check(CITES[:1], ledger=path)
    assert [r["citation_id"] for r in read_ledger(path)] == ["1", "2", "1"]


def _append_many(path: str, tag: int) -> None:
    for i in range(20):
        append_ledger(
            path, [{"kind": "citation", "corpus_sha256": "x", "sources": {}, "n": f"{tag}-{i}-" + "y" * 5000}]
        )


def test_concurrent_appends_never_interleave_lines(tmp_path):
    path = str(tmp_path / "l.jsonl")
    workers = [multiprocessing.get_context("fork").Process(target=_append_many, args=(path, t)) for t in range(3)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    assert len(read_ledger(path)) == 60


def refusal(path) -> str:
    with pytest.raises(IngestionError) as info:
        read_ledger(path)
    assert "\n" not in str(info.value)
    return info.value.reason


def test_truncated_ledger_is_refused(tmp_path):
    path = write_ledger(tmp_path)
    path.write_bytes(path.read_bytes()[:-40])
    assert refusal(path) == "ledger_truncated"


def test_appending_to_a_truncated_ledger_is_refused(tmp_path):
    path = write_ledger(tmp_path)
    path.write_bytes(path.read_bytes()[:-1])
    with pytest.raises(IngestionError, match="ledger_truncated"):
        append_ledger(path, [{"kind": "citation", "corpus_sha256": "x", "sources": {}}])


def test_ledger_cut_at_a_line_end_still_reads_its_whole_rows(tmp_path):
    path = write_ledger(tmp_path)
    path.write_bytes(path.read_bytes().splitlines(keepends=True)[0])
    assert len(read_ledger(path)) == 1


@pytest.mark.parametrize(
    "edit",
    [
        lambda row: row.update(spans=[{"start": 0, "end": 3}]),
        lambda row: row["sources"].update(a="0" * 64),
        lambda row: row.update(verdict="found", quote="something else entirely"),
    ],
)
def test_edited_row_is_refused(tmp_path, edit):
    path = write_ledger(tmp_path)
    lines = path.read_text(encoding="utf-8").splitlines()
    row = json.loads(lines[0])
    edit(row)
    path.write_text("\n".join([json.dumps(row), *lines[1:]]) + "\n", encoding="utf-8")
    assert refusal(path) == "ledger_row_edited"


@pytest.mark.parametrize(
    "content",
    [b"not json\n", b"[1, 2]\n", b'{"kind": "citation"}\n', b"", b"\xff\xfe\n"],
)
def test_lines_that_are_not_ledger_rows_are_refused(tmp_path, content):
    path = tmp_path / "l.jsonl"
    path.write_bytes(content)
    assert refusal(path) == "ledger_invalid"


def test_a_row_of_another_schema_is_refused_even_when_sealed(tmp_path):
    path = tmp_path / "l.jsonl"
    row = sealed({"kind": "citation", "corpus_sha256": "x", "sources": {}})
    row["schema"] = "claimgate.ledger/99"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert refusal(path) == "ledger_invalid"


def test_missing_ledger_is_refused(tmp_path):
    assert refusal(tmp_path / "absent.jsonl") == "ledger_invalid"


@pytest.mark.parametrize(
    "row",
    [
        {"kind": "citation", "sources": {"é": None}, "quote": "naïve “quotes” \u2028 \x1f", "n": 2**40},
        {"kind": "citation", "sources": {}, "quote": "lone \ud800 surrogate", "spans": [{"start": 1, "end": 2}]},
    ],
)
def test_canonical_bytes_equal_the_standard_encoders_sorted_compact_form(tmp_path, row):
    from claimgate.io.ledger_file import canonical_bytes

    expected = json.dumps(row, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert canonical_bytes(row) == expected.encode("utf-8", "backslashreplace")
    path = tmp_path / "l.jsonl"
    append_ledger(path, [{**row, "corpus_sha256": "x"}])
    assert read_ledger(path)[0]["quote"] == row["quote"]


def _compressed(kind: str, data: bytes) -> bytes:
    import bz2
    import gzip
    import io
    import lzma
    import zipfile

    if kind == "zip":
        buffer = io.BytesIO()
        with zipfile.ZipFile(buffer, "w") as archive:
            archive.writestr("l.jsonl", data)
        return buffer.getvalue()
    return {"gzip": gzip.compress, "bzip2": bz2.compress, "xz": lzma.compress}[kind](data)


@pytest.mark.parametrize("kind", ["gzip", "bzip2", "xz", "zip"])
def test_a_compressed_ledger_is_named_as_such_for_reading_and_appending(tmp_path, kind):
    path = write_ledger(tmp_path)
    path.write_bytes(_compressed(kind, path.read_bytes()))
    with pytest.raises(IngestionError, match=f"ledger_invalid: .*{'zip archive' if kind == 'zip' else kind}"):
        read_ledger(path)
    with pytest.raises(IngestionError, match=f"cannot append to .*{'zip archive' if kind == 'zip' else kind}"):
        append_ledger(path, [{"kind": "citation", "corpus_sha256": "x", "sources": {}}])


def test_a_byte_order_mark_is_named_for_reading_and_appending(tmp_path):
    path = write_ledger(tmp_path)
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    with pytest.raises(IngestionError, match="ledger_invalid: .*byte-order mark"):
        read_ledger(path)
    with pytest.raises(IngestionError, match="cannot append to .*byte-order mark"):
        append_ledger(path, [{"kind": "citation", "corpus_sha256": "x", "sources": {}}])


@pytest.mark.parametrize("blank", [b"\n", b"  \n", b"\r\n"])
@pytest.mark.parametrize("where", ["middle", "end"])
def test_a_blank_line_is_named_with_its_line_number(tmp_path, blank, where):
    path = write_ledger(tmp_path)
    first, second = path.read_bytes().splitlines(keepends=True)
    path.write_bytes(first + blank + second if where == "middle" else first + second + blank)
    number = 2 if where == "middle" else 3
    with pytest.raises(IngestionError, match=rf"ledger_invalid: .*l\.jsonl:{number}: a blank line"):
        read_ledger(path)
