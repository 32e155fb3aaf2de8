"""A JSON number longer than Python's integer-string limit (4,300 digits) is a refusal of the input, never a traceback.

``json.loads`` raises a plain ``ValueError`` for such an integer (not a
``JSONDecodeError``); every reader of JSON input refuses it with its own reason code
and the line of the number (docs/gate-rules.md, "Case tables").
"""

from __future__ import annotations

import json
import shutil
import sys

import pytest
from claimgate.io.json_text import loads_json

from ..helpers import FIXTURES, cli

HUGE = "1" + "0" * 5000


def refusal(err: str) -> str:
    """The one ``error:`` line of a refused run (asserting there is exactly one line and no traceback)."""
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    return lines[0]


def test_huge_integer_is_a_json_decode_error_at_its_line():
    with pytest.raises(json.JSONDecodeError) as raised:
        loads_json('{"a": 1,\n "b": ' + HUGE + "}")
    assert raised.value.lineno == 2 and raised.value.colno == 7
    assert f"more than {sys.get_int_max_str_digits()} digits" in raised.value.msg


def test_integer_at_the_limit_still_parses():
    assert loads_json("[" + "9" * sys.get_int_max_str_digits() + "]")[0] == int("9" * sys.get_int_max_str_digits())


def test_duplicate_key_hook_errors_pass_through_unchanged():
    class Refused(ValueError):
        pass

    def hook(pairs):
        raise Refused("mine")

    with pytest.raises(Refused):
        loads_json('{"a": 1}', object_pairs_hook=hook)


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_huge_integer_in_a_case_table_is_invalid_case_table(tmp_path, capsys, suffix):
    good = json.dumps({"case_id": "ok", "candidate_ids": [], "requested_version": "1.0", "claim_key": "k"})
    cases = tmp_path / f"hugeint{suffix}"
    text = f'{good}\n{{"case_id": {HUGE}}}\n' if suffix == ".jsonl" else f'[{good},\n{{"case_id": {HUGE}}}]'
    cases.write_text(text, encoding="utf-8")
    output = tmp_path / "r.jsonl"
    code, _, err = cli(capsys, "gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(cases),
                       "--output", str(output))  # fmt: skip
    assert code == 3
    assert refusal(err).startswith(f"error: IngestionError: invalid_case_table: hugeint{suffix} line 2: a number has")
    assert not output.exists()


@pytest.mark.parametrize("suffix", [".jsonl", ".json"])
def test_huge_integer_in_a_citation_table_is_invalid_citation_table(tmp_path, capsys, suffix):
    citations = tmp_path / f"citations{suffix}"
    row = f'{{"citation_id": "c", "doc_id": "d", "quote": "q", "claim": {HUGE}}}'
    citations.write_text(row if suffix == ".jsonl" else f"[\n{row}]", encoding="utf-8")
    output = tmp_path / "r.jsonl"
    code, _, err = cli(capsys, "audit", "--corpus", str(FIXTURES / "audit" / "corpus.json"),
                       "--citations", str(citations), "--output", str(output))  # fmt: skip
    assert code == 3
    line = 1 if suffix == ".jsonl" else 2
    assert refusal(err).startswith(
        f"error: IngestionError: invalid_citation_table: citations{suffix} line {line}: a number has"
    )
    assert not output.exists()


def test_huge_integer_in_a_corpus_is_invalid_corpus(tmp_path, capsys):
    corpus = tmp_path / "corpus.json"
    corpus.write_text(f'{{"d": "text",\n"n": {HUGE}}}', encoding="utf-8")
    output = tmp_path / "r.jsonl"
    code, _, err = cli(capsys, "audit", "--corpus", str(corpus), "--citations",
                       str(FIXTURES / "audit" / "citations.jsonl"), "--output", str(output))  # fmt: skip
    assert code == 3
    assert refusal(err).startswith("error: IngestionError: invalid_corpus: ") and ": line 2 column 6" in err
    assert not output.exists()


@pytest.fixture
def huge_manifest(tmp_path):
    """A copy of the fixture manifest (with its sources) whose first entry has a 5,001-digit number."""
    shutil.copytree(FIXTURES / "sources", tmp_path / "sources")
    document = json.loads((FIXTURES / "manifest.json").read_text(encoding="utf-8"))
    text = json.dumps(document, indent=2).replace('"version": ', f'"extra": {HUGE},\n      "version": ', 1)
    (tmp_path / "manifest.json").write_text(text, encoding="utf-8")
    return tmp_path / "manifest.json"


def test_huge_integer_in_the_manifest_is_invalid_manifest_for_gate(huge_manifest, tmp_path, capsys):
    output = tmp_path / "r.jsonl"
    code, _, err = cli(capsys, "gate", "--manifest", str(huge_manifest), "--cases", str(FIXTURES / "cases.json"),
                       "--output", str(output))  # fmt: skip
    assert code == 3
    assert refusal(err).startswith("error: IngestionError: invalid_manifest: ") and "a number has more than" in err
    assert not output.exists()


def test_huge_integer_in_the_manifest_is_invalid_manifest_for_verify(huge_manifest, capsys):
    code, _, err = cli(capsys, "verify", "--manifest", str(huge_manifest))
    assert code == 3 and "Traceback" not in err
    first, summary = err.strip().splitlines()  # verify reports every problem, then counts them
    assert first.startswith("error: IngestionError: invalid_manifest: ") and "a number has more than" in first
    assert summary.startswith("error: 1 problem(s) in ")
