"""The Python API refuses arguments of the wrong kind at once, saying which, instead of reading them as rows."""

from __future__ import annotations

import pytest
from claimgate import Audit, Gate
from claimgate.audit.matching.settings import MatchSettings

from ..helpers import ROOT

ROW = {"citation_id": "c1", "doc_id": "d", "quote": "The retry limit is five"}


@pytest.fixture(scope="module")
def audit():
    return Audit.from_corpus({"d": "The retry limit is five attempts per call."})


@pytest.mark.parametrize("rows", ["c1,d,quote", b"rows", ROW, 5, None], ids=["str", "bytes", "one-row", "int", "none"])
def test_check_refuses_what_is_not_a_table_of_rows(audit, rows):
    with pytest.raises(TypeError, match="expected rows"):
        audit.check(rows)


def test_one_row_is_told_to_go_in_a_list_and_then_is_audited(audit):
    with pytest.raises(TypeError, match="single row"):
        audit.check(ROW)
    assert audit.check([ROW])["verdict"].tolist() == ["found"]
    assert audit.check(iter([ROW]))["verdict"].tolist() == ["found"]  # any iterable of rows
    assert audit.check({**ROW, "citation_id": c} for c in "ab")["citation_id"].tolist() == ["a", "b"]


@pytest.mark.parametrize("setting", ["min_tokens", "window_chars"])
@pytest.mark.parametrize("value", [0, -5, 2.5, True, "4"])
def test_check_refuses_a_setting_that_is_not_a_whole_number_of_at_least_one(audit, setting, value):
    with pytest.raises(ValueError, match=f"{setting} must be a whole number of at least 1"):
        audit.check([ROW], **{setting: value})


def test_match_settings_name_the_setting_and_allow_a_zero_step_budget():
    assert MatchSettings(min_tokens=1, window_chars=1, max_steps=0).max_steps == 0
    with pytest.raises(ValueError, match="min_fragment_tokens"):
        MatchSettings(min_fragment_tokens=0)
    with pytest.raises(ValueError, match="max_steps must be a whole number of at least 0"):
        MatchSettings(max_steps=-1)


def test_decide_many_refuses_what_is_not_a_table_of_rows():
    gate = Gate.from_manifest(ROOT / "fixtures" / "manifest.json")
    for rows in ("nope", {"case_id": "x"}, 3):
        with pytest.raises(TypeError, match="expected rows"):
            gate.decide_many(rows)
    assert len(gate.decide_many([])) == 0
