"""Dask is an extra (``claimgate[dask]``), like Ray: a local run never needs it, ``--executor dask`` names it.

Dask is installed with the test extra, so its absence is simulated: ``sys.modules[name] = None`` makes
``importlib.util.find_spec`` answer ``None`` and ``import`` fail, as when the package is not installed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tomllib

import pytest
from claimgate.execution import drivers, executors, streaming
from claimgate.execution.settings import RunSettings

from ..helpers import FIXTURES, ROOT, cli

GATE = ["gate", "--manifest", str(FIXTURES / "manifest.json"), "--cases", str(FIXTURES / "cases.json")]
MESSAGE = "error: --executor dask needs the optional extra: pip install 'claimgate[dask]'"


@pytest.fixture
def without_dask(monkeypatch):
    for name in ("dask", "distributed"):
        monkeypatch.setitem(sys.modules, name, None)


def test_dask_is_an_extra_and_in_the_test_extra_not_a_dependency():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    assert not [d for d in project["dependencies"] if d.startswith(("dask", "distributed"))]
    assert project["optional-dependencies"]["dask"] == ["dask[distributed]>=2024.8"]
    assert "dask[distributed]>=2024.8" in project["optional-dependencies"]["test"]


@pytest.mark.parametrize("output", ["out.jsonl", "out.json"], ids=["streamed", "whole-table"])
def test_dask_executor_without_the_extra_is_a_one_line_usage_error_naming_it(tmp_path, capsys, without_dask, output):
    code, out, err = cli(capsys, *GATE, "--output", str(tmp_path / output), "--executor", "dask")
    assert code == 2
    assert err.strip().splitlines()[-1] == MESSAGE
    assert "Traceback" not in err and out == ""
    assert not (tmp_path / output).exists()


def test_audit_with_dask_executor_without_the_extra_is_the_same_usage_error(tmp_path, capsys, without_dask):
    demo = FIXTURES / "audit"
    args = ["audit", "--corpus", str(demo / "corpus.json"), "--citations", str(demo / "citations.jsonl")]
    code, _, err = cli(capsys, *args, "--output", str(tmp_path / "a.jsonl"), "--executor", "dask")
    assert code == 2 and err.strip().splitlines()[-1] == MESSAGE


def test_missing_distributed_alone_is_also_named(monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)
    with pytest.raises(ValueError, match=r"pip install 'claimgate\[dask\]'"):
        executors.check_executor("dask")


def test_python_callers_get_the_same_error_before_anything_starts(tmp_path, without_dask):
    settings = RunSettings(executor="dask")
    with pytest.raises(ValueError, match=r"claimgate\[dask\]"):
        drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json", settings=settings)
    with pytest.raises(ValueError, match=r"claimgate\[dask\]"):
        streaming.stream_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json", tmp_path / "o.jsonl", None, settings)
    assert not (tmp_path / "o.jsonl").exists()


def test_local_and_multiprocessing_runs_work_without_dask_installed(tmp_path):
    script = (
        "import json, sys\n"
        "sys.modules['dask'] = sys.modules['distributed'] = None\n"
        "from claimgate.cli.main import main\n"
        "gate, out = ['gate', *sys.argv[1:-1], '--quiet'], sys.argv[-1]\n"
        "codes = [main([*gate, '--output', out + ext]) for ext in ('.jsonl', '.json')]\n"
        "codes.append(main([*gate, '--output', out + '.mp.jsonl', '--executor', 'multiprocessing']))\n"
        "print(json.dumps(codes))\n"
    )
    out = str(tmp_path / "out")
    done = subprocess.run(
        [sys.executable, "-c", script, *GATE[1:], out], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.strip().splitlines()[-1]) == [0, 0, 0]
    assert (tmp_path / "out.jsonl").read_bytes() == (tmp_path / "out.mp.jsonl").read_bytes()
