"""Hamilton lifecycle adapters on ``Gate`` and ``Audit``: attached to their drivers, watching only.

The README's timing-adapter example runs here as written (the block after ``MARKER``).
"""

from __future__ import annotations

import json
import re

import pandas as pd
import pytest
from claimgate import Audit, Gate
from claimgate.execution import adapters as adapters_module
from claimgate.execution.settings import RunSettings
from hamilton import base, lifecycle

from ..helpers import FIXTURES, ROOT

MARKER = "<!-- tested: tests/api/test_adapters.py runs this block -->"
CASES = json.loads((FIXTURES / "cases.json").read_text(encoding="utf-8"))
CITATIONS = [{"citation_id": "c1", "doc_id": "trial-report", "quote": "Evidence for adolescents was limited"}]


class Recorder(lifecycle.GraphExecutionHook, lifecycle.NodeExecutionHook):
    """Graph executions seen and node names run."""

    def __init__(self):
        self.graphs = 0
        self.nodes: list[str] = []

    def run_before_graph_execution(self, **future_kwargs):
        self.graphs += 1

    def run_after_graph_execution(self, **future_kwargs):
        pass

    def run_before_node_execution(self, *, node_name, **future_kwargs):
        self.nodes.append(node_name)

    def run_after_node_execution(self, **future_kwargs):
        pass


def test_the_readme_timing_adapter_runs_as_written_and_times_the_gates_nodes(capsys):
    blocks = re.findall(re.escape(MARKER) + r"\n```python\n(.*?)\n```", (ROOT / "README.md").read_text("utf-8"), re.S)
    assert len(blocks) == 1
    namespace: dict = {"__name__": "readme_adapter_block"}
    exec(compile(blocks[0], "README.md adapter block", "exec"), namespace)  # noqa: S102
    timer = namespace["timer"]
    assert {"verified_sources", "gate_results"} <= set(timer.seconds)
    assert all(seconds >= 0 for seconds in timer.seconds.values())
    assert capsys.readouterr().out.startswith(f"{len(timer.seconds)} nodes timed; slowest: ")


def test_gate_adapters_watch_verification_and_every_decide_many_but_change_nothing():
    plain = Gate.from_manifest(FIXTURES / "manifest.json").decide_many(CASES)
    recorder = Recorder()
    gate = Gate.from_manifest(FIXTURES / "manifest.json", adapters=[recorder])
    assert recorder.graphs == 1 and "verified_sources" in recorder.nodes
    watched = gate.decide_many(CASES)
    assert recorder.graphs == 2 and "gate_results" in recorder.nodes
    pd.testing.assert_frame_equal(watched, plain)
    gate.decide(["quill-guide"], "1.0", "existing_path")
    assert recorder.graphs == 2  # decide runs no Hamilton execution
    gate.refresh()  # the refreshed gate keeps its adapters
    gate.decide_many(CASES)
    assert recorder.graphs == 4


@pytest.mark.parametrize(
    "make",
    [
        lambda adapters: Audit.from_corpus(FIXTURES / "audit" / "corpus.json", adapters=adapters),
        lambda adapters: Audit.from_corpus(
            {"trial-report": "Evidence for adolescents was limited."}, adapters=adapters
        ),
        lambda adapters: Audit.from_manifest(FIXTURES / "manifest.json", adapters=adapters),
    ],
    ids=["corpus-file", "dict", "manifest"],
)
def test_audit_adapters_watch_indexing_and_every_check(make):
    recorder = Recorder()
    audit = make([recorder])
    before = recorder.graphs
    assert before >= 1 and "normalized_sources" in recorder.nodes
    rows = audit.check(CITATIONS)
    assert recorder.graphs == before + 1 and "audit_results" in recorder.nodes
    pd.testing.assert_frame_equal(rows, make([]).check(CITATIONS))


class RunsNodesItself(lifecycle.NodeExecutionMethod):
    def run_to_execute_node(self, *, node_callable, node_kwargs, **future_kwargs):
        return node_callable(**node_kwargs)


@pytest.mark.parametrize(
    "adapter, message",
    [
        (object(), "object is not a Hamilton lifecycle adapter"),
        ("tqdm", "str is not a Hamilton lifecycle adapter"),
        (Recorder, "Recorder is a class, not an adapter object"),
        (RunsNodesItself(), "RunsNodesItself is a BaseDoNodeExecute adapter"),
        (base.PandasDataFrameResult(), "PandasDataFrameResult is a BaseDoBuildResult adapter"),
    ],
    ids=["object", "string", "class", "node-executing", "result-builder"],
)
def test_what_is_not_a_watching_adapter_is_refused_before_anything_runs(adapter, message):
    for build in (
        lambda: Gate.from_manifest(FIXTURES / "manifest.json", adapters=[adapter]),
        lambda: Audit.from_corpus({"d": "text"}, adapters=[adapter]),
        lambda: RunSettings(adapters=(adapter,)),
    ):
        with pytest.raises(TypeError, match=re.escape(message)):
            build()


def test_every_watching_hook_class_of_hamilton_lifecycle_is_accepted():
    hooks = [
        lifecycle.GraphExecutionHook,
        lifecycle.NodeExecutionHook,
        lifecycle.TaskExecutionHook,
        lifecycle.GraphConstructionHook,
        lifecycle.TaskGroupingHook,
        lifecycle.TaskReturnHook,
    ]
    for hook in hooks:
        instance = type(
            f"Empty{hook.__name__}", (hook,), dict.fromkeys(hook.__abstractmethods__, lambda *a, **k: None)
        )()
        assert adapters_module.adapter_problem(instance) is None, hook


def test_hamiltons_own_progress_bar_is_accepted_and_a_run_with_it_keeps_its_bytes():
    from hamilton.plugins.h_tqdm import ProgressBar

    gate = Gate.from_manifest(FIXTURES / "manifest.json", adapters=[ProgressBar(disable=True)])
    pd.testing.assert_frame_equal(
        gate.decide_many(CASES), Gate.from_manifest(FIXTURES / "manifest.json").decide_many(CASES)
    )
