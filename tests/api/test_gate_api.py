"""``claimgate.Gate``: the command line's results in process, and pins checked before every decision."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from claimgate import Gate
from claimgate.errors import IngestionError
from claimgate.execution import drivers

from ..helpers import FIXTURES, pin_sources

LUMEN = FIXTURES / "second_schema"
SETS = {
    "quill": (FIXTURES / "manifest.json", FIXTURES / "cases.json", None),
    "lumen": (LUMEN / "manifest.json", LUMEN / "cases.json", LUMEN / "lumen_schema.toml"),
}


@pytest.fixture(scope="module", params=sorted(SETS))
def fixture_set(request):
    manifest, cases, schema = SETS[request.param]
    return Gate.from_manifest(manifest, schema=schema), drivers.run_gate(manifest, cases, schema), cases


def test_decide_many_equals_the_command_line_results(fixture_set):
    gate, run, cases = fixture_set
    frame = gate.decide_many(json.loads(cases.read_text(encoding="utf-8")))
    pd.testing.assert_frame_equal(frame, run.results)
    assert json.dumps(frame["result"].tolist()) == json.dumps(run.results["result"].tolist())


def test_decide_equals_the_command_line_result_for_every_case_object(fixture_set):
    gate, run, _ = fixture_set
    checked = 0
    for request, problem, result in zip(run.case_rows["request"], run.case_rows["case_problem"], run.results["result"]):
        if problem:
            continue  # decide takes no case id: case-table problems (no or a repeated case_id) are decide_many's
        fields = {k: request[k] for k in ("candidate_ids", "requested_version", "claim_key") if k in request}
        one = gate.decide(**fields, operation=request.get("operation"))
        assert json.dumps(one) == json.dumps(result), request["case_id"]
        checked += 1
    assert checked >= 8


def test_in_memory_cases_need_no_file_and_no_position_column():
    gate = Gate.from_manifest(FIXTURES / "manifest.json")
    frame = gate.decide_many(
        [{"case_id": "a", "candidate_ids": ["quill-guide"], "requested_version": "1.0", "claim_key": "existing_path"}]
    )
    assert frame[["position", "case_id", "status"]].values.tolist() == [[0, "a", "ready"]]


def test_frame_input_takes_missing_cells_as_absent_and_arrays_as_lists():
    gate = Gate.from_manifest(LUMEN / "manifest.json", schema=LUMEN / "lumen_schema.toml")
    cases = json.loads((LUMEN / "cases.json").read_text(encoding="utf-8"))
    objects = [c for c in cases if isinstance(c, dict) and isinstance(c.get("case_id"), str)]
    objects = list({c["case_id"]: c for c in objects}.values())
    frame = pd.DataFrame(objects)  # rows without an operation get NaN
    frame["candidate_ids"] = [np.array(c) if isinstance(c, list) else c for c in frame["candidate_ids"]]
    from_frame = gate.decide_many(frame)
    from_list = gate.decide_many(objects)
    assert from_frame["result"].tolist() == from_list["result"].tolist()


def test_a_bad_request_is_returned_refused_not_raised():
    gate = Gate.from_manifest(FIXTURES / "manifest.json")
    result = gate.decide(["nope"], "1.0", "existing_path")
    assert (result["status"], result["error"], result["reason"]) == ("refused", "GateError", "unknown_candidate")


@pytest.fixture
def pinned(tmp_path):
    guide = b"# Guide\n@quill create_copy existing_path=refuse\n"
    other = b"# Other\n@quill create_copy existing_path=refuse\n"
    manifest, _ = pin_sources(tmp_path, {"guide": ("1.0", guide), "other": ("1.0", other)})
    return Gate.from_manifest(manifest), tmp_path


def test_edited_pinned_file_refuses_with_hash_mismatch(pinned):
    gate, folder = pinned
    assert gate.decide(["guide"], "1.0", "existing_path")["status"] == "ready"
    (folder / "sources" / "guide.md").write_bytes(b"# Guide\n@quill create_copy existing_path=overwrite\n")
    with pytest.raises(IngestionError) as caught:
        gate.decide(["guide"], "1.0", "existing_path")
    assert caught.value.reason == "hash_mismatch" and caught.value.detail.startswith("guide: pinned ")
    assert caught.value.as_result() == {
        "status": "refused",
        "error": "IngestionError",
        "reason": "hash_mismatch",
        "answer_request": None,
    }
    with pytest.raises(IngestionError):
        gate.decide_many(
            [{"case_id": "x", "candidate_ids": ["guide"], "requested_version": "1.0", "claim_key": "existing_path"}]
        )


def test_edit_is_caught_even_when_size_is_unchanged(pinned):
    gate, folder = pinned
    path = folder / "sources" / "guide.md"
    before = os.stat(path)
    path.write_bytes(path.read_bytes().replace(b"Guide", b"GUIDE"))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns + 1_000_000))
    with pytest.raises(IngestionError, match="hash_mismatch"):
        gate.decide(["guide"], "1.0", "existing_path")


def test_only_the_candidates_pins_are_checked(pinned):
    gate, folder = pinned
    (folder / "sources" / "other.md").write_bytes(b"changed\n")
    assert gate.decide(["guide"], "1.0", "existing_path")["status"] == "ready"
    with pytest.raises(IngestionError, match="hash_mismatch"):
        gate.decide(["guide", "other"], "1.0", "existing_path")


def test_touched_but_identical_file_is_accepted(pinned):
    gate, folder = pinned
    path = folder / "sources" / "guide.md"
    stat = os.stat(path)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 5_000_000_000))
    assert gate.decide(["guide"], "1.0", "existing_path")["status"] == "ready"


def test_deleted_pinned_file_is_missing_source(pinned):
    gate, folder = pinned
    (folder / "sources" / "guide.md").unlink()
    with pytest.raises(IngestionError, match="missing_source"):
        gate.decide(["guide"], "1.0", "existing_path")


def test_refresh_picks_up_a_repinned_manifest_and_refuses_an_unpinned_edit(pinned):
    gate, folder = pinned
    edited = b"# Guide\n@quill create_copy existing_path=overwrite\n"
    (folder / "sources" / "guide.md").write_bytes(edited)
    with pytest.raises(IngestionError, match="hash_mismatch"):
        gate.refresh()
    other = (folder / "sources" / "other.md").read_bytes()
    pin_sources(folder, {"guide": ("1.0", edited), "other": ("1.0", other)})  # re-pin
    gate.refresh()
    result = gate.decide(["guide", "other"], "1.0", "existing_path")
    assert (result["status"], result["reason"]) == ("conflict", "same_version_directives_disagree")


def test_refused_manifest_is_refused_at_load(tmp_path):
    shutil.copytree(FIXTURES, tmp_path / "f", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "f" / "sources" / "quill-guide.md").write_bytes(b"edited\n")
    with pytest.raises(IngestionError, match="hash_mismatch"):
        Gate.from_manifest(tmp_path / "f" / "manifest.json")


def test_import_claimgate_does_not_import_hamilton_or_pandas():
    code = (
        "import sys, claimgate; print(sorted(m for m in ('pandas', 'hamilton', 'claimgate.api') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_unknown_attribute_of_the_package_is_an_attribute_error():
    import claimgate

    with pytest.raises(AttributeError):
        claimgate.Gates  # noqa: B018


def test_decide_equals_decide_many_on_a_generated_table(tmp_path):
    """One case at a time (``decide``) and the batch nodes (``decide_many``) agree on 600 generated cases."""
    from claimgate.synthetic.gate_inputs import case_rows, write_sources

    manifest = write_sources(tmp_path / "docs", n_sources=60, seed=21, mean_bytes=1200)
    rows = case_rows(manifest, 600, seed=21, bad_rate=0.1)
    gate = Gate.from_manifest(manifest)
    batch = gate.decide_many(rows)
    checked = 0
    for row, result in zip(rows, batch["result"]):
        if result["reason"] == "invalid_case":
            continue  # not an object, no or a repeated case_id: problems of a table, not of one request
        fields = {k: row.get(k) for k in ("candidate_ids", "requested_version", "claim_key", "operation")}
        one = gate.decide(**fields)  # an absent field and a null one mean the same to the request checks
        assert json.dumps(one) == json.dumps(result)
        checked += 1
    assert checked > 500


# ------------------------------------------------------------------ a long-lived Gate's memory (issue 22, item 14)


def test_long_lived_gate_keeps_its_version_memo_under_its_byte_bound():
    from claimgate.gate.memo import MEMO_BYTES, MEMO_ENTRIES

    gate = Gate.from_manifest(FIXTURES / "manifest.json")
    memo = gate.schema.versions._memo
    for i in range(400):  # distinct 1 MB invalid versions
        result = gate.decide(["quill-guide"], f"{i}." + "9" * 2**20, "existing_path")
        assert result["reason"] == "invalid_requested_version"
        assert len(json.dumps(result)) < 2000  # the refusal does not copy the version either
        assert memo.nbytes <= MEMO_BYTES
    # versions at the length cap, each as large in memory as a string of that length can be
    for i in range(MEMO_ENTRIES + 100):
        gate.schema.versions.problem(f"{i:06d}" + "\U0010fffe" * 250)
        assert memo.nbytes <= MEMO_BYTES and len(memo) <= MEMO_ENTRIES
    assert 0 < memo.nbytes and gate.decide(["quill-guide"], "1.0", "existing_path")["status"] == "ready"
