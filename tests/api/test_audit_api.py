"""``claimgate.Audit``: the audit command's rows in process, over a dict, a corpus file, a folder or a manifest."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from claimgate import Audit
from claimgate.audit import standin_judge
from claimgate.audit.stages import JUDGED_AUDIT_COLUMNS
from claimgate.errors import IngestionError, OutputError
from claimgate.execution import drivers

from ..helpers import FIXTURES

CORPUS = FIXTURES / "audit" / "corpus.json"
CITATIONS = FIXTURES / "audit" / "citations.jsonl"


def citations() -> list[dict]:
    return [json.loads(line) for line in CITATIONS.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_check_equals_the_audit_command_rows_with_the_judge():
    standin_judge.reset()
    expected = drivers.audit_rows(
        drivers.run_audit(CITATIONS, drivers.CorpusFile(CORPUS), llm_call=standin_judge.judge)
    )
    rows = Audit.from_corpus(CORPUS).check(citations(), judge=standin_judge.judge)
    assert list(rows.columns) == [*JUDGED_AUDIT_COLUMNS, "diagnosis"]  # with a judge, elided is recorded
    assert rows["model_calls"].dtype == "int64"
    got = [{**r, "model_calls": int(r["model_calls"])} for r in rows.to_dict("records")]
    for row in got:  # the command line's rows carry a diagnosis only where there is one
        if row["diagnosis"] is None:
            del row["diagnosis"]
    assert json.dumps(got) == json.dumps(expected)
    plain = Audit.from_corpus(CORPUS).check(citations(), judge=standin_judge.judge, diagnose=False)
    assert list(plain.columns) == list(JUDGED_AUDIT_COLUMNS)
    pd.testing.assert_frame_equal(plain, rows[list(JUDGED_AUDIT_COLUMNS)])


def test_dict_and_file_corpora_give_the_same_rows():
    corpus = json.loads(CORPUS.read_text(encoding="utf-8"))
    from_file = Audit.from_corpus(CORPUS).check(citations())
    from_dict = Audit.from_corpus(corpus).check(pd.DataFrame(citations()))
    pd.testing.assert_frame_equal(from_file, from_dict)


def test_manifest_documents_are_keyed_by_source_id():
    audit = Audit.from_manifest(FIXTURES / "manifest.json")
    quote = "quill create_copy existing_path=refuse"
    rows = audit.check([{"citation_id": "a", "doc_id": "quill-guide", "quote": quote}])
    assert rows.loc[0, "verdict"] == "found"
    span = rows.loc[0, "spans"][0]
    # A pinned Markdown page is read rendered; its spans slice the file as written (docs/documents.md).
    raw = (FIXTURES / "sources" / "quill-guide.md").read_text(encoding="utf-8")
    assert raw[span["start"] : span["end"]] == span["text"] == quote
    assert audit.extractors == dict.fromkeys(audit.documents, "markdown")


def test_index_is_built_once_and_reused(monkeypatch):
    audit = Audit.from_corpus(CORPUS)
    from claimgate.audit import stages

    monkeypatch.setattr(stages, "build_corpus_index", lambda *_: pytest.fail("index rebuilt"))
    assert len(audit.check(citations())) == 4


def test_bad_citation_row_is_invalid_not_raised():
    rows = Audit.from_corpus({"d": "some words in a document"}).check([{"citation_id": "x", "quote": "some words"}])
    assert (rows.loc[0, "verdict"], rows.loc[0, "reason"]) == ("invalid_citation", "doc_id_missing")


def test_dict_corpus_with_a_non_string_text_is_refused():
    with pytest.raises(IngestionError) as caught:
        Audit.from_corpus({"d": 3})
    assert caught.value.reason == "invalid_corpus"


def test_folder_corpus_records_extractors(tmp_path):
    (tmp_path / "a.md").write_text("Copies are refused when the path exists.\n", encoding="utf-8")
    (tmp_path / "b.html").write_text("<p>Uploads &amp; downloads are limited.</p>", encoding="utf-8")
    audit = Audit.from_corpus(tmp_path)
    assert audit.extractors == {"a.md": "markdown", "b.html": "html"}
    rows = audit.check([{"citation_id": "c", "doc_id": "b.html", "quote": "uploads & downloads are limited"}])
    assert rows.loc[0, "verdict"] == "found"
    assert Audit.from_corpus(CORPUS).extractors is None


def test_from_corpus_refuses_a_cache_inside_the_corpus_folder(tmp_path):
    (tmp_path / "a.md").write_text("Copies are refused when the path exists.\n", encoding="utf-8")
    with pytest.raises(OutputError, match="inside the corpus folder"):
        Audit.from_corpus(tmp_path, cache=tmp_path / "cache")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.md"]


def test_from_corpus_refuses_a_cache_that_is_the_corpus_file(tmp_path):
    corpus = tmp_path / "corpus.json"
    corpus.write_bytes(CORPUS.read_bytes())
    with pytest.raises(OutputError, match="it is the corpus input"):
        Audit.from_corpus(corpus, cache=corpus)


@pytest.mark.parametrize("corpus", ["dict", "file"])
def test_from_corpus_refuses_an_empty_cache_path(corpus):
    with pytest.raises(OutputError, match="empty"):
        Audit.from_corpus({"a": "alpha beta gamma delta"} if corpus == "dict" else CORPUS, cache="")


def test_quote_over_the_cap_is_refused_fast():
    import time

    from claimgate.io.tables import MAX_QUOTE_CHARS

    audit = Audit.from_corpus(CORPUS)
    good = citations()[0]
    over = {**good, "citation_id": "over", "quote": good["quote"] + " x" * MAX_QUOTE_CHARS}
    rows = audit.check([good, over])
    assert list(rows["reason"])[1] == "quote_too_long" and list(rows["verdict"])[1] == "invalid_citation"
    assert rows.iloc[0].to_dict() == audit.check([good]).iloc[0].to_dict()  # the other row as it was
    huge = {**good, "citation_id": "huge", "quote": "word " * (10 * 2**20)}  # 50 MiB
    started = time.perf_counter()
    rows = audit.check([huge])
    assert time.perf_counter() - started < 5
    assert (rows.loc[0, "verdict"], rows.loc[0, "reason"], rows.loc[0, "diagnosis"]) == (
        "invalid_citation", "quote_too_long", None
    )  # fmt: skip
