"""Partitioned runs on Hamilton's executors write the same bytes as the local run, in every output format.

A small generated table is cut into several partitions (``partition_rows`` small),
run on a Dask ``LocalCluster`` and on the multiprocessing executor, and written as
``.json``, ``.jsonl`` and ``.parquet`` by the command line's own writer; the bytes
must equal the local run's. Edge cases: an empty table, a table smaller than one
partition, a progress bar with a remote executor (its adapter is pickled into tasks),
and ``--executor ray`` without the optional extra (a one-line usage error).
"""

from __future__ import annotations

import importlib.util
import json

import pytest
from claimgate.cli import main as run_pipeline
from claimgate.cli.documents import gate_document
from claimgate.cli.gate import write_gate_output
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.synthetic.gate_inputs import case_rows, write_case_table, write_sources

from ..helpers import FIXTURES, run_cli

FORMATS = (".json", ".jsonl", ".parquet")


def outputs(run: drivers.GateRun, folder, name: str) -> dict[str, bytes]:
    """The bytes the ``gate`` command writes for ``run`` in every output format."""
    document = gate_document(run, fixture_kind="user-supplied")
    written = {}
    for suffix in FORMATS:
        path = folder / f"{name}{suffix}"
        write_gate_output(path, run, document)
        written[suffix] = path.read_bytes()
    return written


@pytest.fixture(scope="module")
def table(tmp_path_factory):
    """40 sources and 300 cases with bad rows; the local run's output bytes."""
    folder = tmp_path_factory.mktemp("executors")
    manifest = write_sources(folder / "docs", n_sources=40, seed=5, mean_bytes=1200)
    cases = write_case_table(folder / "cases.jsonl", case_rows(manifest, 300, seed=5, bad_rate=0.1))
    local = outputs(drivers.run_gate(manifest, cases), folder, "local")
    return manifest, cases, local, folder


NEEDS_RAY = pytest.mark.skipif(importlib.util.find_spec("ray") is None, reason="the optional ray extra")


@pytest.mark.parametrize("executor", ["dask", "multiprocessing", pytest.param("ray", marks=NEEDS_RAY)])
def test_partitioned_run_writes_the_local_bytes(table, executor):
    manifest, cases, local, folder = table
    run = drivers.run_gate(
        manifest, cases, settings=RunSettings(executor=executor, partition_rows=70)
    )  # 5 partitions, last short
    assert outputs(run, folder, executor) == local


def test_dask_through_the_command_line_writes_the_local_bytes(table, tmp_path):
    manifest, cases, local, _ = table
    output = tmp_path / "dask.jsonl"
    argv = ["gate", "--manifest", str(manifest), "--cases", str(cases), "--output", str(output), "--quiet"]
    assert run_pipeline.main([*argv, "--executor", "dask", "--partition-rows", "100"]) == 0
    assert output.read_bytes() == local[".jsonl"]


def test_table_smaller_than_a_partition_and_progress_bar(table, tmp_path):
    manifest, cases, local, _ = table
    run = drivers.run_gate(
        manifest, cases, settings=RunSettings(executor="multiprocessing", partition_rows=10_000, progress=True)
    )
    assert outputs(run, tmp_path, "one-partition") == local


def test_empty_table_writes_the_local_bytes(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("[]\n")
    local = outputs(drivers.run_gate(FIXTURES / "manifest.json", empty), tmp_path, "local")
    run = drivers.run_gate(
        FIXTURES / "manifest.json", empty, settings=RunSettings(executor="multiprocessing", partition_rows=3)
    )
    assert outputs(run, tmp_path, "multiprocessing") == local
    assert json.loads(local[".json"])["cases"] == []
    assert local[".jsonl"] == b""


def test_fixture_table_on_dask_in_partitions_of_three(tmp_path):
    local = outputs(drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json"), tmp_path, "local")
    run = drivers.run_gate(
        FIXTURES / "manifest.json", FIXTURES / "cases.json", settings=RunSettings(executor="dask", partition_rows=3)
    )
    assert outputs(run, tmp_path, "dask") == local


@pytest.mark.skipif(importlib.util.find_spec("ray") is not None, reason="ray is installed")
def test_ray_without_the_extra_is_a_one_line_usage_error(tmp_path):
    with pytest.raises(ValueError, match=r"claimgate\[ray\]"):
        drivers.check_executor("ray")
    done = run_cli(
        "gate",
        "--manifest",
        str(FIXTURES / "manifest.json"),
        "--cases",
        str(FIXTURES / "cases.json"),
        "--output",
        str(tmp_path / "out.json"),
        "--executor",
        "ray",
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert done.stderr.strip().splitlines()[-1] == (
        "error: --executor ray needs the optional extra: pip install 'claimgate[ray]'"
    )
    assert not (tmp_path / "out.json").exists()
