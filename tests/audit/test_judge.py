"""The optional judge: fails closed, never sees rejected citations, keeps its reasoning."""

from __future__ import annotations

import json

import pytest
from claimgate.audit.judge import (
    JUDGE_VERDICTS,
    SYSTEM_PROMPT,
    judge_citation,
    load_judge,
    parse_judgment,
    user_message,
)
from claimgate.execution import drivers

from ..helpers import FIXTURES

DEMO = FIXTURES / "audit"


class RecordingJudge:
    """A judge that answers a fixed text (or raises) and records every call."""

    def __init__(self, answer: object = None, error: Exception | None = None) -> None:
        self.answer = answer
        self.error = error
        self.calls: list[tuple[str, str]] = []

    def __call__(self, system: str, user: str) -> object:
        self.calls.append((system, user))
        if self.error is not None:
            raise self.error
        return self.answer


def _judge_demo(judge: RecordingJudge) -> list[dict]:
    run = drivers.run_audit(DEMO / "citations.jsonl", drivers.CorpusFile(DEMO / "corpus.json"), llm_call=judge)
    return drivers.audit_rows(run)


VALID = json.dumps({"reasoning": "the source states it", "verdict": "supports", "confidence": 0.9})


def test_rejected_citations_never_reach_the_judge():
    judge = RecordingJudge(VALID)
    rows = _judge_demo(judge)
    by_id = {r["citation_id"]: r for r in rows}
    assert len(judge.calls) == 1  # only the honest citation exists verbatim in its cited document
    for rejected in ("c1-fabricated", "c2-frankenquote", "c3-misattributed"):
        assert by_id[rejected]["model_calls"] == 0
        assert by_id[rejected]["judge"] is None
        assert by_id[rejected]["verdict"] == by_id[rejected]["gate_verdict"] != "found"
    honest = by_id["c4-honest"]
    assert honest["model_calls"] == 1
    assert honest["gate_verdict"] == "found"
    assert honest["verdict"] == "supports"  # the judge's label replaces the gate's
    assert honest["judge"] == {"reasoning": "the source states it", "verdict": "supports", "confidence": 0.9}


def test_without_a_judge_found_stays_found_and_no_call_is_counted():
    rows = drivers.audit_rows(drivers.run_audit(DEMO / "citations.jsonl", drivers.CorpusFile(DEMO / "corpus.json")))
    assert [r["verdict"] for r in rows] == ["not_found", "not_found", "misattributed", "found"]
    assert sum(r["model_calls"] for r in rows) == 0
    assert all(r["judge"] is None for r in rows)


def test_user_message_delimits_claim_quote_and_source():
    judge = RecordingJudge(VALID)
    _judge_demo(judge)
    system, user = judge.calls[0]
    assert system == SYSTEM_PROMPT
    assert user.index("<<<CLAIM") < user.index("CLAIM>>>") < user.index("<<<QUOTE") < user.index("QUOTE>>>")
    assert user.index("QUOTE>>>") < user.index("<<<SOURCE id=trial-report") < user.rindex("SOURCE>>>")
    assert "Monthly migraine days fell by 4.1 days" in user


def test_system_prompt_puts_the_burden_of_proof_on_the_citation():
    lowered = SYSTEM_PROMPT.lower()
    for phrase in ("burden of proof", "outside knowledge is inadmissible", 'at most "partial"', "less favourable"):
        assert phrase in lowered
    for verdict in JUDGE_VERDICTS:
        assert f'"{verdict}"' in SYSTEM_PROMPT


FAILURES = {
    "exception": RecordingJudge(error=RuntimeError("model offline")),
    "non_string_answer": RecordingJudge({"verdict": "supports"}),
    "no_json_object": RecordingJudge("I think it supports the claim."),
    "out_of_vocabulary_verdict": RecordingJudge(json.dumps({"reasoning": "r", "verdict": "agrees", "confidence": 1})),
    "confidence_out_of_range": RecordingJudge(json.dumps({"reasoning": "r", "verdict": "supports", "confidence": 1.5})),
    "invalid_confidence": RecordingJudge(json.dumps({"reasoning": "r", "verdict": "supports", "confidence": "high"})),
    "missing_reasoning": RecordingJudge(json.dumps({"verdict": "supports", "confidence": 0.9})),
}


@pytest.mark.parametrize("failure", sorted(FAILURES))
def test_judge_failure_fails_closed_as_unrelated_with_zero_confidence(failure):
    judge = FAILURES[failure]
    judge.calls.clear()
    rows = _judge_demo(judge)
    honest = rows[-1]
    assert len(judge.calls) == 1  # called once, never retried
    assert honest["model_calls"] == 1
    assert honest["verdict"] == "unrelated"
    assert honest["judge"]["verdict"] == "unrelated"
    assert honest["judge"]["confidence"] == 0.0
    assert honest["judge"]["reasoning"].startswith(f"judge_failed: {failure}:")
    assert all(r["model_calls"] == 0 for r in rows[:-1])


def test_negative_confidence_and_boolean_confidence_are_refused():
    bad_negative = json.dumps({"reasoning": "r", "verdict": "partial", "confidence": -0.1})
    assert parse_judgment(bad_negative)["reasoning"].startswith("judge_failed: confidence_out_of_range")
    bad_bool = json.dumps({"reasoning": "r", "verdict": "partial", "confidence": True})
    assert parse_judgment(bad_bool)["reasoning"].startswith("judge_failed: invalid_confidence")
    nan = '{"reasoning": "r", "verdict": "partial", "confidence": NaN}'
    assert parse_judgment(nan)["reasoning"].startswith("judge_failed: invalid_confidence")


def test_json_object_inside_surrounding_text_is_accepted():
    answer = 'Here is my answer: {"reasoning": "weaker population", "verdict": "partial", "confidence": 0.7} done'
    assert parse_judgment(answer) == {"reasoning": "weaker population", "verdict": "partial", "confidence": 0.7}


def test_long_source_is_cut_around_the_span_and_the_cut_is_said():
    text = "x " * 5000 + "the quoted passage" + " y" * 5000
    start = text.index("the quoted passage")
    span = {"start": start, "end": start + 18}
    message = user_message("claim", "the quoted passage", "doc", text, [span])
    assert "the quoted passage" in message
    assert f"of {len(text)})" in message
    assert len(message) < len(text)


def test_judge_citation_catches_base_exceptions_from_the_callable_only_as_exceptions():
    judgment = judge_citation(RecordingJudge(error=ValueError("bad")), "c", "q", "d", "text", [])
    assert judgment == {
        "reasoning": "judge_failed: exception: ValueError: bad",
        "verdict": "unrelated",
        "confidence": 0.0,
    }


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_colon", "must look like"),
        ("no_such_module_xyz:fn", "cannot import"),
        ("claimgate.audit.standin_judge:nope", "has no attribute"),
        ("claimgate.audit.standin_judge:CALLS", "is not callable"),
    ],
)
def test_load_judge_refuses_bad_specs_with_a_reason(spec, message):
    with pytest.raises(ValueError, match=message):
        load_judge(spec)


def test_load_judge_returns_the_named_callable():
    from claimgate.audit import standin_judge

    assert load_judge("claimgate.audit.standin_judge:judge") is standin_judge.judge
