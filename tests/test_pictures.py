"""DAG pictures: one per case with its path highlighted, deterministic, and honest without Graphviz."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from claimgate import pictures
from claimgate.execution import drivers

from .helpers import FIXTURES, ROOT, run_cli

CASE_IDS = [case["case_id"] for case in json.loads((FIXTURES / "cases.json").read_text())]


@pytest.fixture(scope="module")
def default_run(tmp_path_factory):
    out = tmp_path_factory.mktemp("default")
    done = run_cli("--output", str(out / "gate_result.json"))
    assert done.returncode == 0, done.stderr
    return out


def test_default_run_writes_one_picture_per_case(default_run):
    assert sorted(p.stem for p in (default_run / "cases").glob("*.svg")) == sorted(CASE_IDS)
    assert (default_run / "gate_dag.svg").read_text().lstrip().startswith("<?xml")
    assert (default_run / "audit_dag.svg").exists()


@pytest.mark.parametrize("case_id", CASE_IDS)
def test_case_picture_marks_the_deciding_node_and_greys_the_unreached(default_run, case_id):
    result = json.loads((default_run / "gate_result.json").read_text())
    decided_at = next(c["result"]["decided_at"] for c in result["cases"] if c["case_id"] == case_id)
    dot = (default_run / "cases" / f"{case_id}.dot").read_text()
    decided_fill = pictures.DECIDED_STYLE["fillcolor"]
    decided_lines = [line.strip() for line in dot.splitlines() if decided_fill in line]
    assert len(decided_lines) == 2  # the node itself and its legend entry
    assert sorted(line.split(" [")[0] for line in decided_lines) == sorted([decided_at, '"decided here"'])
    reached = pictures.nodes_reached(decided_at)
    for node in pictures.GATE_DECISION_ORDER:
        line = next(x for x in dot.splitlines() if x.strip().startswith(f"{node} ["))
        if node == decided_at:
            continue
        expected = pictures.RAN_STYLE["fillcolor"] if node in reached else pictures.NOT_REACHED_STYLE["fillcolor"]
        assert expected in line, (node, line)


def test_committed_readme_figures_match_what_the_pipeline_draws(default_run):
    figures = ROOT / "notebooks" / "figures"
    assert (figures / "gate_dag.svg").read_bytes() == (default_run / "gate_dag.svg").read_bytes()
    assert (figures / "audit_dag.svg").read_bytes() == (default_run / "audit_dag.svg").read_bytes()
    committed_case = (figures / "case_same-version-conflict.svg").read_bytes()
    assert committed_case == (default_run / "cases" / "same-version-conflict.svg").read_bytes()


def test_dot_text_is_the_same_whatever_the_hash_seed(tmp_path):
    script = (
        "from claimgate.execution import drivers; from claimgate import pictures;"
        "print(pictures.canonical_dot(drivers.gate_driver().display_all_functions().source), end='');"
        "print(pictures.canonical_dot(drivers.audit_driver('corpus').display_upstream_of('audit_results').source))"
    )
    texts = set()
    for seed in ("1", "2", "3"):
        env = {**os.environ, "PYTHONHASHSEED": seed}
        texts.add(subprocess.run([sys.executable, "-c", script], env=env, capture_output=True, text=True,
                                 check=True, cwd=ROOT).stdout)
    assert len(texts) == 1


def test_canonical_dot_only_reorders_statements():
    source = drivers.gate_driver().display_all_functions().source
    canonical = pictures.canonical_dot(source)
    def statements(text: str) -> list[str]:
        return sorted(pictures._sorted_table_rows(line.strip()) for line in text.splitlines() if line.strip())

    assert statements(source) == statements(canonical)


def test_without_a_renderer_the_dot_is_written_and_one_line_says_so(tmp_path, monkeypatch):
    monkeypatch.setattr(pictures, "find_renderer", lambda: None)
    written, note = pictures.write_picture("digraph { a -> b }", tmp_path / "g")
    assert written == [tmp_path / "g.dot"]
    assert not (tmp_path / "g.svg").exists()
    assert note is not None and "\n" not in note and "Graphviz not found" in note
