"""``claimgate answer`` and the CI options of ``audit``: outputs, ``--strip``, exit statuses, the summary file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ..helpers import char_citation, cli

GUIDE = "Quill copies files between folders. When the destination exists, create_copy refuses to overwrite it."
NOTES = "Release notes: the copy command keeps file permissions on Linux and macOS since version 2.3."
REFUSES = "create_copy refuses to overwrite it"


@pytest.fixture
def corpus(tmp_path: Path) -> Path:
    path = tmp_path / "corpus.json"
    path.write_text(json.dumps({"guide": GUIDE, "notes": NOTES}), encoding="utf-8")
    return path


def write(tmp_path: Path, name: str, document: object) -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(document), encoding="utf-8")
    return path


GOOD = {"text": "It refuses to overwrite [1].", "citations": [{"marker": "1", "doc_id": "guide", "quote": REFUSES}]}
BAD = {
    "text": "It refuses to overwrite [1]. It keeps permissions [2]. Nice.",
    "citations": [
        {"marker": "1", "doc_id": "guide", "quote": REFUSES},
        {"marker": "2", "doc_id": "guide", "quote": "keeps file permissions on Linux"},
    ],
}


def answer(capsys, tmp_path, corpus, document, *options):
    path = write(tmp_path, "answer.json", document)
    out = tmp_path / "out" / "result.json"
    code, stdout, err = cli(
        capsys, "answer", "--corpus", str(corpus), "--answer", str(path), "--output", str(out), *options
    )
    return code, stdout, err, out


def test_an_accepted_answer_exits_0_and_writes_its_result(capsys, tmp_path, corpus):
    code, stdout, _, out = answer(capsys, tmp_path, corpus, GOOD)
    assert code == 0
    result = json.loads(out.read_text(encoding="utf-8"))
    assert (result["verdict"], result["reason"]) == ("accepted", "every_claim_supported")
    assert "answer accepted (every_claim_supported)" in stdout


def test_a_refused_answer_exits_0_without_fail_on_and_1_with_it(capsys, tmp_path, corpus):
    assert answer(capsys, tmp_path, corpus, BAD, "--quiet")[0] == 0
    code, _, _, out = answer(capsys, tmp_path, corpus, BAD, "--quiet", "--fail-on", "refused")
    assert code == 1
    assert json.loads(out.read_text(encoding="utf-8"))["failing_claims"] == ["s2", "s3"]  # written before exiting 1
    assert answer(capsys, tmp_path, corpus, GOOD, "--quiet", "--fail-on", "refused")[0] == 0
    assert answer(capsys, tmp_path, corpus, BAD, "--quiet", "--fail-on", "uncited")[0] == 1


def test_fail_on_an_unknown_verdict_is_a_usage_error(capsys, tmp_path, corpus):
    code, _, err, _ = answer(capsys, tmp_path, corpus, GOOD, "--fail-on", "refused,rejected")
    assert code == 2 and "unknown verdict rejected" in err


def test_an_unreadable_answer_exits_3(capsys, tmp_path, corpus):
    code, _, err, _ = answer(capsys, tmp_path, corpus, {"neither": 1}, "--fail-on", "refused")
    assert code == 3 and "error: IngestionError: invalid_answer" in err


def test_annotated_and_strip_write_markdown(capsys, tmp_path, corpus):
    annotated, stripped = tmp_path / "a.md", tmp_path / "s.md"
    code, *_ = answer(capsys, tmp_path, corpus, BAD, "--quiet", "--annotated", str(annotated), "--strip", str(stripped))
    assert code == 0
    assert (
        "**[⚠ unsupported: citation_rejected — s2.c1: misattributed (found_in_other_document)]**"
        in annotated.read_text(encoding="utf-8")
    )
    assert stripped.read_text(encoding="utf-8") == (
        "It refuses to overwrite [1].\n\n---\nRemoved 2 claim(s):\n"
        "- s2 (unsupported: citation_rejected): It keeps permissions [2].\n"
        "- s3 (uncited: no_citation): Nice.\n"
    )


def test_the_connective_policy_option(capsys, tmp_path, corpus):
    document = {**GOOD, "text": "It refuses to overwrite [1]. That is the safe default."}
    assert answer(capsys, tmp_path, corpus, document, "--quiet", "--fail-on", "refused")[0] == 1
    code, _, _, out = answer(
        capsys, tmp_path, corpus, document, "--quiet", "--fail-on", "refused", "--policy", "connective"
    )
    assert code == 0 and json.loads(out.read_text(encoding="utf-8"))["reason"] == "uncited_connectives_allowed"


def test_the_answer_summary_counts_claims_by_status_and_reason(capsys, tmp_path, corpus):
    summary = tmp_path / "summary.json"
    answer(capsys, tmp_path, corpus, BAD, "--quiet", "--summary", str(summary))
    assert json.loads(summary.read_text(encoding="utf-8")) == {
        "verdict": "refused",
        "reason": "claims_failed",
        "rows": 3,
        "verdicts": {
            "supported": {"count": 1, "rate": 0.333333},
            "unsupported": {"count": 1, "rate": 0.333333},
            "uncited": {"count": 1, "rate": 0.333333},
        },
        "reasons": {
            "citations_found": {"count": 1, "rate": 0.333333},
            "citation_rejected": {"count": 1, "rate": 0.333333},
            "no_citation": {"count": 1, "rate": 0.333333},
        },
    }


def test_an_anthropic_response_with_documents(capsys, tmp_path, corpus):
    start = GUIDE.index(REFUSES)
    cite = char_citation(REFUSES, 1, start)
    response = {"content": [{"type": "text", "text": "It refuses.", "citations": [cite]}]}
    documents = write(tmp_path, "sent.json", ["notes", "guide"])
    code, _, _, out = answer(
        capsys, tmp_path, corpus, response, "--quiet", "--documents", str(documents), "--fail-on", "refused"
    )
    assert code == 0 and json.loads(out.read_text(encoding="utf-8"))["format"] == "anthropic"
    wrong = write(tmp_path, "wrong.json", ["guide", "notes"])  # sent in the other order: offsets into notes
    assert (
        answer(capsys, tmp_path, corpus, response, "--quiet", "--documents", str(wrong), "--fail-on", "refused")[0] == 1
    )


def test_an_output_that_is_an_input_is_a_usage_error(capsys, tmp_path, corpus):
    path = write(tmp_path, "answer.json", GOOD)
    code, _, err = cli(capsys, "answer", "--corpus", str(corpus), "--answer", str(path), "--output", str(path))
    assert code == 2


# --- audit: --fail-on and --summary ------------------------------------------------------


def audit(capsys, tmp_path, corpus, *options):
    rows = [
        {"citation_id": "a", "doc_id": "guide", "quote": REFUSES},
        {"citation_id": "b", "doc_id": "guide", "quote": "keeps file permissions on Linux"},
        {"citation_id": "c", "doc_id": "guide", "quote": "copies every file twice over"},
    ]
    citations = write(tmp_path, "citations.json", rows)
    out = tmp_path / "audit.jsonl"
    return cli(
        capsys,
        "audit",
        "--corpus",
        str(corpus),
        "--citations",
        str(citations),
        "--output",
        str(out),
        "--quiet",
        *options,
    )


def test_audit_fail_on_exits_1_only_when_a_row_has_the_verdict(capsys, tmp_path, corpus):
    assert audit(capsys, tmp_path, corpus)[0] == 0
    assert audit(capsys, tmp_path, corpus, "--fail-on", "not_found")[0] == 1
    assert audit(capsys, tmp_path, corpus, "--fail-on", "insufficient_quote,invalid_citation")[0] == 0
    assert audit(capsys, tmp_path, corpus, "--fail-on", "nope")[0] == 2


def test_audit_summary_counts_and_rates_per_verdict_and_reason(capsys, tmp_path, corpus):
    summary = tmp_path / "s.json"
    audit(capsys, tmp_path, corpus, "--summary", str(summary))
    document = json.loads(summary.read_text(encoding="utf-8"))
    assert document["rows"] == 3
    assert document["verdicts"] == {
        "found": {"count": 1, "rate": 0.333333},
        "misattributed": {"count": 1, "rate": 0.333333},
        "not_found": {"count": 1, "rate": 0.333333},
    }
    assert list(document["reasons"]) == ["verbatim_match", "found_in_other_document", "no_verbatim_match"]


def test_summary_must_be_json_and_fail_on_is_in_the_help(capsys, tmp_path, corpus):
    assert audit(capsys, tmp_path, corpus, "--summary", str(tmp_path / "s.txt"))[0] == 2
    for command in ("audit", "answer"):
        code, out, _ = cli(capsys, command, "--help")
        assert (
            code == 0
            and "--fail-on" in out
            and "--summary" in out
            and "1 a --fail-on verdict or status occurred" in out
        )


# --- --report on audit, answer and gate ----------------------------------------------------


def test_report_pages_are_written_by_audit_answer_and_gate(capsys, tmp_path, corpus):
    from ..helpers import FIXTURES

    audit_page = tmp_path / "audit.html"
    assert audit(capsys, tmp_path, corpus, "--report", str(audit_page))[0] == 0
    assert audit_page.read_text(encoding="utf-8").count('<div class="card ') == 3
    answer_page = tmp_path / "answer.html"
    assert answer(capsys, tmp_path, corpus, BAD, "--quiet", "--report", str(answer_page))[0] == 0
    assert '<span class="claim unsupported"' in answer_page.read_text(encoding="utf-8")
    gate_page = tmp_path / "gate.html"
    out = tmp_path / "gate.jsonl"
    code, _, _ = cli(
        capsys,
        "gate",
        "--manifest",
        str(FIXTURES / "manifest.json"),
        "--cases",
        str(FIXTURES / "cases.json"),
        "--output",
        str(out),
        "--report",
        str(gate_page),
        "--quiet",
    )
    assert code == 0 and out.exists()
    page = gate_page.read_text(encoding="utf-8")
    assert page.count('<div class="card ') == 8 and "conflicting directive lines" in page


def test_a_report_that_is_not_html_is_a_usage_error(capsys, tmp_path, corpus):
    assert audit(capsys, tmp_path, corpus, "--report", str(tmp_path / "r.txt"))[0] == 2


# --- gate: --fail-on and --summary -------------------------------------------------------


@pytest.mark.parametrize("suffix", [".json", ".jsonl"])  # a whole-table run and a streamed one
def test_gate_fail_on_and_summary(capsys, tmp_path, suffix):
    from ..helpers import FIXTURES

    def gate(*options: str) -> int:
        table = ("--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json"))
        return cli(capsys, "gate", *table, "--output", str(tmp_path / f"out{suffix}"), "--quiet", *options)[0]

    summary = tmp_path / "summary.json"
    assert gate("--summary", str(summary)) == 0
    document = json.loads(summary.read_text(encoding="utf-8"))
    assert document["rows"] == 8
    assert {s: v["count"] for s, v in document["verdicts"].items()} == {
        "conflict": 1,
        "not_in_docs": 3,
        "ready": 2,
        "refused": 2,
    }
    assert document["reasons"]["eligible_directives_agree"] == {"count": 2, "rate": 0.25}
    assert gate("--fail-on", "conflict") == 1
    assert gate("--fail-on", "ready,refused") == 1
    assert gate("--fail-on", "rejected") == 2
