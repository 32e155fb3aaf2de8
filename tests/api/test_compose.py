"""The README's Python API and composition examples run as written, and give the gate's and audit's results.

The code lives once, in README.md: every fenced block that follows the marker ``MARKER`` is extracted and
executed here, in order, each in a fresh namespace, and its results are checked against the API and the
command line's drivers.
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from claimgate import Audit, Gate
from claimgate.audit.stages import AUDIT_COLUMNS
from claimgate.execution import drivers

from ..helpers import FIXTURES, ROOT

MARKER = "<!-- tested: tests/api/test_compose.py runs this block -->"


def readme_blocks() -> list[str]:
    """The Python blocks of README.md that follow ``MARKER``, in document order."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    return re.findall(re.escape(MARKER) + r"\n```python\n(.*?)\n```", text, flags=re.S)


def run_block(index: int) -> dict:
    """Execute README block ``index`` as a module would run; return its namespace."""
    namespace: dict = {"__name__": f"readme_block_{index}"}
    exec(compile(readme_blocks()[index], f"README.md block {index}", "exec"), namespace)  # noqa: S102
    return namespace


def test_readme_has_the_four_tested_blocks():
    blocks = readme_blocks()
    assert len(blocks) == 5
    assert "Gate.from_manifest" in blocks[0]
    assert "def candidate_ids" in blocks[1] and "def generated_answers" in blocks[2]
    assert "declaring_sources" in blocks[3]
    assert "def answer_document" in blocks[4]


def test_python_api_example_gives_the_command_line_results(capsys):
    namespace = run_block(0)
    assert (namespace["result"]["status"], namespace["result"]["agreed_value"]) == ("ready", "refuse")
    run = drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json")
    pd.testing.assert_frame_equal(namespace["frame"], run.results)
    rows = namespace["rows"]
    assert list(rows.columns) == [*AUDIT_COLUMNS, "diagnosis"]
    assert (rows.loc[0, "verdict"], rows.loc[0, "matched_doc_ids"]) == ("misattributed", ["meta-summary"])
    assert "eligible_directives_agree" in capsys.readouterr().out


def test_retrieval_node_feeds_the_gate_nodes_in_one_driver():
    namespace = run_block(1)
    out = namespace["out"]
    proposed = out["candidate_ids"].tolist()
    results = out["gate_result"]
    assert results["case_id"].tolist() == ["overwrite-1.0", "overwrite-3.0"]
    assert results["status"].tolist() == ["conflict", "not_in_docs"]
    # Whatever retrieval proposed, the composed DAG decides exactly as the gate does for those candidates.
    gate = Gate.from_manifest(FIXTURES / "manifest.json")
    for candidates, version, result in zip(proposed, ["1.0", "3.0"], results["result"]):
        assert json.dumps(result) == json.dumps(gate.decide(candidates, version, "existing_path"))


def test_generation_node_citations_feed_the_audit_nodes():
    namespace = run_block(2)
    audited = namespace["audited"]
    assert audited["verdict"].tolist() == ["found", "misattributed"]
    citations = [
        {"citation_id": q, "claim": a, "doc_id": d, "quote": quote} for q, (a, d, quote) in namespace["CANNED"].items()
    ]
    expected = Audit.from_corpus(FIXTURES / "audit" / "corpus.json").check(citations, diagnose=False)
    pd.testing.assert_frame_equal(audited[list(AUDIT_COLUMNS)].reset_index(drop=True), expected)


def test_retrieval_completed_by_the_declaring_set_comes_out_ready():
    namespace = run_block(3)
    out = namespace["out"]
    (candidates,) = out["candidate_ids"].tolist()
    # quill-guide (retrieved) is silent on close_required: filtered out; quill-missing-claim (missed): completed.
    assert candidates == ["quill-reference", "quill-missing-claim"]
    (result,) = out["gate_result"]["result"]
    assert (result["status"], result["agreed_value"]) == ("ready", "yes")
    gate = Gate.from_manifest(FIXTURES / "manifest.json")
    assert sorted(candidates) == gate.declaring("1.0", "close_required")
    assert json.dumps(result) == json.dumps(gate.decide(candidates, "1.0", "close_required"))


@pytest.fixture(scope="module")
def question_dag() -> dict:
    """The question-to-answer block's namespace, run once (its temporary module name is registered once)."""
    return run_block(4)


def test_one_dag_goes_from_question_to_an_accepted_or_refused_answer(question_dag):
    namespace = question_dag
    careful, careless = namespace["careful"], namespace["careless"]
    assert careful["answer_result"]["verdict"] == "accepted"
    assert careful["accepted_answer"] == "In Quill 1.0, create_copy refuses an existing destination path [1]."
    # The model cited the directive lines the gate verified; the answer audit found them in those sources.
    cited = careful["answer_result"]["claims"][0]["citations"]
    assert [(c["doc_id"], c["verdict"]) for c in cited] == [("quill-guide", "found"), ("quill-reference", "found")]
    assert (careless["answer_result"]["verdict"], careless["answer_result"]["failing_claims"]) == ("refused", ["s2"])
    assert careless["accepted_answer"] is None
    # The same answer through the API gives the same result as the DAG's answer audit.
    audit = Audit.from_manifest(FIXTURES / "manifest.json")
    document = namespace["answer_document"](
        namespace["dr"].execute(["gate_result"], inputs=namespace["inputs"])["gate_result"]
    )
    assert audit.check_answer(document) == careful["answer_result"]


def test_a_question_the_gate_stops_is_never_answered(question_dag):
    namespace = question_dag
    question = {**namespace["question"], "requested_version": "3.0"}
    out = namespace["dr"].execute(
        ["gate_result", "answer_result", "accepted_answer"], inputs={**namespace["inputs"], "question": question}
    )
    assert out["gate_result"]["status"][0] == "not_in_docs"
    assert (out["answer_result"]["verdict"], out["answer_result"]["reason"]) == ("refused", "no_claims")
    assert out["accepted_answer"] is None
