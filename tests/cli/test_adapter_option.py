"""``--adapter module:object`` on ``gate`` and ``audit``: attached to every driver, a usage error in one line
when it cannot be imported or is not a watching Hamilton lifecycle adapter.
"""

from __future__ import annotations

import json

import pytest

from ..helpers import FIXTURES, cli

GATE = ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json")]
AUDIT = ["audit", "--corpus", str(FIXTURES / "audit" / "corpus.json")]
AUDIT += ["--citations", str(FIXTURES / "audit" / "citations.jsonl")]

RECORDER = """
from hamilton import lifecycle

SEEN = []


class Recorder(lifecycle.GraphExecutionHook):
    def run_before_graph_execution(self, **kwargs):
        SEEN.append("graph")

    def run_after_graph_execution(self, **kwargs):
        pass


class NodeCounter(lifecycle.NodeExecutionHook):
    def run_before_node_execution(self, *, node_name, **kwargs):
        SEEN.append(node_name)

    def run_after_node_execution(self, **kwargs):
        pass


INSTANCE = Recorder()
NOT_AN_ADAPTER = 42


class NeedsArguments(lifecycle.GraphExecutionHook):
    def __init__(self, path):
        self.path = path

    def run_before_graph_execution(self, **kwargs):
        pass

    def run_after_graph_execution(self, **kwargs):
        pass


class Nested:
    Recorder = Recorder
"""


@pytest.fixture
def recorder(tmp_path, monkeypatch):
    """A module ``cg_recorder_<n>`` in the current folder, imported fresh by each test."""
    import importlib
    import sys

    name = f"cg_recorder_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(RECORDER, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    yield name, lambda: importlib.import_module(name).SEEN
    sys.modules.pop(name, None)


@pytest.mark.parametrize("output", ["out.jsonl", "out.json"], ids=["streamed", "whole-table"])
def test_gate_runs_with_an_adapter_class_from_the_current_folder_and_keeps_its_bytes(
    tmp_path, capsys, recorder, output
):
    name, seen = recorder
    plain = tmp_path / f"plain-{output}"
    assert cli(capsys, *GATE, "--output", str(plain), "--quiet")[0] == 0
    watched = tmp_path / output
    code, _, err = cli(capsys, *GATE, "--output", str(watched), "--quiet", "--adapter", f"{name}:Recorder")
    assert code == 0, err
    assert seen().count("graph") >= 1
    assert watched.read_bytes() == plain.read_bytes()


def test_several_adapters_and_an_object_and_a_dotted_name(tmp_path, capsys, recorder):
    name, seen = recorder
    args = ["--adapter", f"{name}:INSTANCE", "--adapter", f"{name}:NodeCounter", "--adapter", f"{name}:Nested.Recorder"]
    code, _, err = cli(capsys, *GATE, "--output", str(tmp_path / "o.json"), "--quiet", *args)
    assert code == 0, err
    assert seen().count("graph") == 2  # INSTANCE and Nested.Recorder, one whole-table execution
    assert "gate_results" in seen()


def test_audit_runs_with_an_adapter(tmp_path, capsys, recorder):
    name, seen = recorder
    code, _, err = cli(capsys, "--adapter", f"{name}:NodeCounter", *AUDIT, "--output", str(tmp_path / "a.jsonl"))
    assert code == 0, err
    assert "audit_results" in seen()


def test_hamiltons_tqdm_progress_bar_attaches(tmp_path, capsys):
    output = tmp_path / "o.json"
    code, out, err = cli(capsys, *GATE, "--output", str(output), "--adapter", "hamilton.plugins.h_tqdm:ProgressBar")
    assert code == 0, err
    assert json.loads(output.read_text(encoding="utf-8"))["cases"]


@pytest.mark.parametrize(
    "spec, message",
    [
        ("no_such_module_cg:Thing", "cannot import 'no_such_module_cg': ModuleNotFoundError: No module named"),
        ("{name}:Missing", "has no attribute 'Missing'"),
        ("{name}:NOT_AN_ADAPTER", "int is not a Hamilton lifecycle adapter"),
        ("{name}:NeedsArguments", "NeedsArguments() failed: TypeError:"),
        ("hamilton.base:PandasDataFrameResult", "PandasDataFrameResult is a BaseDoBuildResult adapter"),
        ("just_a_name", "--adapter must look like package.module:object, got 'just_a_name'"),
        ("{name}_broken:Thing", "cannot import '{name}_broken': ZeroDivisionError: division by zero"),
    ],
    ids=[
        "missing-module",
        "missing-attribute",
        "not-an-adapter",
        "class-needs-arguments",
        "result-builder",
        "malformed",
        "module-raises",
    ],  # fmt: skip
)
@pytest.mark.parametrize("command", ["gate", "audit"])
def test_a_bad_adapter_is_a_usage_error_in_one_line_before_any_work(tmp_path, capsys, recorder, spec, message, command):
    name, seen = recorder
    (tmp_path / f"{name}_broken.py").write_text("1 / 0\n", encoding="utf-8")
    spec, message = spec.format(name=name), message.format(name=name)
    output = tmp_path / "o.jsonl"
    args = GATE if command == "gate" else AUDIT
    code, out, err = cli(capsys, *args, "--output", str(output), "--adapter", spec)
    assert code == 2 and out == ""
    lines = err.strip().splitlines()
    assert lines[0].startswith("usage:")  # the command's usage, then one error line
    assert [line for line in lines if not line.startswith(" ")] == [lines[0], lines[-1]]
    assert lines[-1].startswith("error: --adapter ") and message in lines[-1]
    assert "Traceback" not in err and not output.exists()


@pytest.mark.parametrize("output", ["out.jsonl", "out.json"], ids=["streamed", "partitioned"])
def test_an_adapter_travels_to_multiprocessing_workers_and_the_bytes_stay(tmp_path, capsys, recorder, output):
    name, _ = recorder
    plain = tmp_path / f"plain-{output}"
    assert cli(capsys, *GATE, "--output", str(plain), "--quiet")[0] == 0
    watched = tmp_path / output
    args = ["--executor", "multiprocessing", "--partition-rows", "3", "--adapter", f"{name}:NodeCounter"]
    code, _, err = cli(capsys, *GATE, "--output", str(watched), "--quiet", *args)
    assert code == 0, err
    assert watched.read_bytes() == plain.read_bytes()
