"""Citation and document ids from other people's files cannot break the audit's terminal table or CSV output."""

from __future__ import annotations

import json

import pytest

from ..helpers import cli


@pytest.fixture
def corpus(tmp_path):
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"d1": "some words here now and more"}), encoding="utf-8")
    return path


def citations(tmp_path, citation_id: str):
    path = tmp_path / "c.jsonl"
    row = {"citation_id": citation_id, "claim": "x", "doc_id": "d1", "quote": "some words here now"}
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")  # ASCII escapes: a lone surrogate stays one
    return path


@pytest.mark.parametrize("citation_id", ["esc-\x1b[31mRED", "lone-\udfff", "line\u2028sep", "cr\rhere"])
def test_a_hostile_citation_id_is_shown_escaped_and_the_table_lines_up(tmp_path, capsys, corpus, citation_id):
    code, out, _ = cli(capsys, "audit", "--corpus", str(corpus), "--citations", str(citations(tmp_path, citation_id)),
                       "--output", str(tmp_path / "o.jsonl"))  # fmt: skip
    assert code == 0
    header, rule, row = out.splitlines()[:3]
    assert "\x1b" not in out and "\r" not in out and "\u2028" not in out
    assert len(row.split("  ")[0].rstrip()) <= len(rule.split("  ")[0])
    assert row.index("d1") == header.index("cited doc")


def test_a_lone_surrogate_in_a_citation_id_is_written_to_csv_as_an_escape(tmp_path, capsys, corpus):
    code, _, err = cli(capsys, "audit", "--corpus", str(corpus), "--citations", str(citations(tmp_path, "lone-\udfff")),
                       "--output", str(tmp_path / "o.csv"), "--quiet")  # fmt: skip
    assert code == 0 and err == ""
    row = (tmp_path / "o.csv").read_text(encoding="utf-8").splitlines()[1]
    assert row.startswith("lone-\\udfff,d1,x,some words here now,found,")  # claim and quote follow doc_id


def test_an_empty_citation_table_says_so_instead_of_printing_an_empty_frame(tmp_path, capsys, corpus):
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    code, out, _ = cli(capsys, "audit", "--corpus", str(corpus), "--citations", str(empty),
                       "--output", str(tmp_path / "o.jsonl"))  # fmt: skip
    assert code == 0 and "Empty DataFrame" not in out and "no citations" in out


def test_lone_surrogates_in_documents_and_quotes_are_audited_cold_and_from_the_cache(tmp_path, capsys) -> None:
    # docs/audit-rules.md, "Normalization", 7: a lone surrogate is a separator and no token holds one
    corpus = tmp_path / "corpus.json"
    texts = {"d1": "the limit is x\udfff five items per call", "d2": "see https://x.org/a\ud800b for the table"}
    corpus.write_text(json.dumps(texts), encoding="utf-8")  # ASCII escapes: each lone surrogate stays one
    rows = [("c1", "d1", "limit is x\ud800 five items"), ("c2", "d2", "see https://x.org/a b for the"),
            ("c3", "d1", "the limit is six items")]  # fmt: skip
    cites = tmp_path / "c.jsonl"
    cites.write_text("".join(json.dumps({"citation_id": c, "doc_id": d, "quote": q}) + "\n" for c, d, q in rows))
    outputs = []
    cache = ["--cache", str(tmp_path / "idx")]
    for name, extra in (("cold", []), ("fill", cache), ("warm", cache)):
        code, _, err = cli(capsys, "audit", "--corpus", str(corpus), "--citations", str(cites),
                           "--output", str(tmp_path / f"{name}.jsonl"), "--quiet", *extra)  # fmt: skip
        assert code == 0 and err == "", err
        outputs.append((tmp_path / f"{name}.jsonl").read_bytes())
    assert outputs[0] == outputs[1] == outputs[2]
    got = [json.loads(line) for line in outputs[0].splitlines()]
    assert [r["verdict"] for r in got] == ["found", "found", "not_found"]
    assert got[0]["spans"][0]["text"] == "limit is x\udfff five items"  # the original, surrogate and all
