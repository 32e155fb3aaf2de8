"""An empty corpus is refused the same way whatever holds it: ``invalid_corpus`` (``io.corpus_file``).

An empty folder was refused while an empty JSON corpus ``{}`` (and an empty dict given to ``Audit``) was
accepted, so every quote came back ``not_found`` instead of the run being refused.
"""

from __future__ import annotations

import json

import pytest
from claimgate.api import Audit
from claimgate.errors import IngestionError
from claimgate.io.corpus_file import read_corpus, refuse_empty_corpus
from claimgate.io.documents import read_document_folder

from ..helpers import cli

EMPTY = "an empty corpus would call every quote not_found"


def _refusal(call) -> IngestionError:
    with pytest.raises(IngestionError) as caught:
        call()
    return caught.value


def test_empty_json_corpus_is_refused_as_an_empty_folder_is(tmp_path):
    (tmp_path / "corpus.json").write_text("{}", encoding="utf-8")
    (tmp_path / "docs").mkdir()
    from_file = _refusal(lambda: read_corpus(tmp_path / "corpus.json"))
    from_folder = _refusal(lambda: read_document_folder(tmp_path / "docs"))
    assert from_file.reason == from_folder.reason == "invalid_corpus"
    assert EMPTY in from_file.detail and EMPTY in from_folder.detail
    assert "corpus.json" in from_file.detail


def test_json_corpus_of_white_space_and_an_empty_object_is_refused(tmp_path):
    (tmp_path / "corpus.json").write_text(" \n{ }\n", encoding="utf-8")
    assert _refusal(lambda: read_corpus(tmp_path / "corpus.json")).reason == "invalid_corpus"


def test_folder_of_skipped_files_only_is_refused_by_the_same_rule(tmp_path):
    (tmp_path / "CNAME").write_text("docs.example.org\n", encoding="utf-8")
    refused = _refusal(lambda: read_document_folder(tmp_path))
    assert refused.reason == "invalid_corpus" and EMPTY in refused.detail


def test_empty_dict_given_to_audit_is_refused(tmp_path):
    refused = _refusal(lambda: Audit.from_corpus({}))
    assert refused.reason == "invalid_corpus" and EMPTY in refused.detail
    refused = _refusal(lambda: (tmp_path / "c.json").write_text("{}") and Audit.from_corpus(tmp_path / "c.json"))
    assert refused.reason == "invalid_corpus"


def test_empty_json_corpus_refuses_the_audit_command_with_exit_3(capsys, tmp_path):
    (tmp_path / "corpus.json").write_text("{}", encoding="utf-8")
    citations = tmp_path / "citations.jsonl"
    citations.write_text(json.dumps({"citation_id": "c", "doc_id": "d", "quote": "one two three four"}) + "\n")
    (tmp_path / "empty").mkdir()
    outputs = []
    for source in (("--corpus", str(tmp_path / "corpus.json")), ("--corpus-dir", str(tmp_path / "empty"))):
        out = tmp_path / f"out{len(outputs)}.jsonl"
        code, _, err = cli(capsys, "audit", *source, "--citations", str(citations), "--output", str(out))
        outputs.append((code, "invalid_corpus" in err, out.exists()))
    assert outputs == [(3, True, False), (3, True, False)]


def test_a_corpus_with_one_document_is_not_refused(tmp_path):
    (tmp_path / "corpus.json").write_text(json.dumps({"d": ""}), encoding="utf-8")
    assert read_corpus(tmp_path / "corpus.json") == {"d": ""}
    refuse_empty_corpus({"d": ""}, "never raised")


def test_a_manifest_that_pins_no_source_refuses_the_audit_but_not_the_gate(capsys, tmp_path):
    manifest = tmp_path / "manifest.json"
    manifest.write_text(json.dumps({"sources": []}), encoding="utf-8")
    refused = _refusal(lambda: Audit.from_manifest(manifest))
    assert refused.reason == "invalid_corpus" and "pins no source" in refused.detail
    citations = tmp_path / "citations.jsonl"
    citations.write_text(json.dumps({"citation_id": "c", "doc_id": "d", "quote": "one two three four"}) + "\n")
    out = tmp_path / "out.jsonl"
    code, _, err = cli(
        capsys, "audit", "--manifest", str(manifest), "--citations", str(citations), "--output", str(out)
    )
    assert (code, "invalid_corpus" in err, out.exists()) == (3, True, False)
    cases = tmp_path / "cases.json"
    cases.write_text(
        json.dumps([{"case_id": "k", "requested_version": "1.0", "candidate_ids": ["p"], "claim_key": "x"}])
    )
    gate_out = tmp_path / "gate.jsonl"
    code, _, _ = cli(capsys, "gate", "--manifest", str(manifest), "--cases", str(cases), "--output", str(gate_out))
    assert code == 0 and gate_out.exists()
