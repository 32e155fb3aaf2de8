"""Reading a corpus file: orjson's fast reading gives what the standard reader gives, or leaves the file to it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from claimgate.errors import IngestionError
from claimgate.io import corpus_file
from claimgate.io.corpus_file import read_corpus
from claimgate.io.json_text import DuplicateKeyError, loads_json, unique_keys
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def _standard(data: bytes):
    """What the standard reader alone makes of ``data``: the corpus, or the refusal's ``(reason, message)``."""
    try:
        text = data.decode("utf-8-sig")
        document = loads_json(text, object_pairs_hook=unique_keys)
    except (UnicodeDecodeError, json.JSONDecodeError, DuplicateKeyError) as exc:
        return ("refused", type(exc).__name__)
    return document


def _read(tmp_path: Path, data: bytes):
    path = tmp_path / "corpus.json"
    path.write_bytes(data)
    try:
        return read_corpus(path)
    except IngestionError as exc:
        return ("refused", exc.reason, str(exc))


def _fast(data: bytes):
    return corpus_file._object_of_strings(data)


_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=30) | st.sampled_from(
    ['"', "\\", '\\"', '\\\\"', 'a"b\\c', "\\\\\\", "ends with \\", '""', "\u00e9\u2014\U0001f600"]
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.dictionaries(_TEXT.filter(bool), _TEXT, min_size=1, max_size=8), st.booleans(), st.booleans())
def test_fast_reading_equals_the_standard_reader_on_objects_of_strings(tmp_path, corpus, ascii_only, bom) -> None:
    data = (b"\xef\xbb\xbf" if bom else b"") + json.dumps(corpus, ensure_ascii=ascii_only).encode()
    assert _fast(data) == corpus == _standard(data)
    assert list(_fast(data)) == list(corpus)  # the ids in the file's order
    assert _read(tmp_path, data) == corpus


@settings(max_examples=100, deadline=None)
@given(st.dictionaries(_TEXT.filter(bool), _TEXT, min_size=1, max_size=6), st.data())
def test_a_repeated_id_is_never_read_fast_and_is_refused_as_before(corpus, data) -> None:
    key = data.draw(st.sampled_from(sorted(corpus)))
    spelled = data.draw(st.sampled_from([json.dumps(key), json.dumps(key, ensure_ascii=False)]))
    body = json.dumps(corpus)[1:-1]
    text = "{" + body + ", " + spelled + ": " + json.dumps(data.draw(_TEXT)) + "}"
    assert _fast(text.encode()) is None
    assert _standard(text.encode()) == ("refused", "DuplicateKeyError")


@pytest.mark.parametrize(
    "data",
    [
        b'{"a": "x", "\\u0061": "y"}',  # the same id spelled twice
        b'{"a": "x", "b": NaN}',
        b'{"a": "\\ud800 lone surrogate"}',
        b'{"a": 1}',
        b'{"a": {"b": "c"}}',
        b'["a", "b"]',
        b'{"a": "\xff"}',  # not UTF-8
        b'{"a": "x"',
        b"",
    ],
    ids=["escaped_repeat", "nan", "lone_surrogate", "number", "object", "list", "not_utf8", "cut", "empty"],
)
def test_what_the_fast_reading_leaves_to_the_standard_reader(tmp_path: Path, data: bytes) -> None:
    assert _fast(data) is None
    before = _standard(data)
    after = _read(tmp_path, data)
    if isinstance(before, dict) and all(isinstance(v, str) for v in before.values()):  # the lone surrogate
        assert after == before
    else:
        assert after[0] == "refused"


def test_refusals_keep_their_messages(tmp_path: Path) -> None:
    assert _read(tmp_path, b'{"a": "x", "a": "y"}')[1:] == (
        "invalid_corpus",
        "invalid_corpus: document 'a' is listed twice",
    )
    assert _read(tmp_path, b'{"a": 1}')[2].endswith("document 'a' is a int, not a string")
    assert "is not UTF-8 (byte 7)" in _read(tmp_path, b'{"a": "\xff"}')[2]
    assert _read(tmp_path, b"{}")[1] == "invalid_corpus"


def test_quotes_after_runs_of_backslashes_are_counted_as_escaped_only_for_odd_runs() -> None:
    assert corpus_file._unescaped_quotes(b'"a\\"b"') == 2
    assert corpus_file._unescaped_quotes(b'"a\\\\"') == 2  # an escaped backslash, then the closing quote
    assert corpus_file._unescaped_quotes(b'"\\\\\\""') == 2  # a backslash and a quote, escaped
    assert corpus_file._unescaped_quotes(b'"\\\\\\\\"') == 2
