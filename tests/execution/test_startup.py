"""Start-up: a gate run imports only what it uses, and claimgate's process-wide settings hold.

``import claimgate`` turns Hamilton's extension autoloading off unless the user set
it (the Dask and Ray executors import their plugins explicitly; their byte-equality
with the local run is tested in ``test_executors.py`` and ``test_streaming.py`` with
autoloading off), and turns Hamilton's telemetry and Ray's usage reporting off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

from claimgate.execution import drivers

from ..helpers import FIXTURES, ROOT

HEAVY = ("dask", "distributed", "pyarrow.dataset", "fsspec", "jinja2", "tqdm", "graphviz", "ray", "claimgate.audit")


def _modules_after_gate_run(tmp_path, env: dict) -> dict:
    script = (
        "import json, sys\n"
        "from claimgate.cli.main import main\n"
        f"code = main(['gate', '--manifest', {str(FIXTURES / 'manifest.json')!r}, '--cases', "
        f"{str(FIXTURES / 'cases.json')!r}, '--output', {str(tmp_path / 'out.jsonl')!r}, '--quiet'])\n"
        "import os\n"
        "print(json.dumps({'code': code, 'autoload': os.environ.get('HAMILTON_AUTOLOAD_EXTENSIONS'),"
        " 'ray_usage': os.environ.get('RAY_USAGE_STATS_ENABLED'), 'modules': sorted(sys.modules)}))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _env_without(*names: str) -> dict:
    return {k: v for k, v in os.environ.items() if k not in names}


def test_gate_run_imports_no_executor_audit_or_picture_module(tmp_path):
    seen = _modules_after_gate_run(tmp_path, _env_without("HAMILTON_AUTOLOAD_EXTENSIONS"))
    assert seen["code"] == 0
    assert seen["autoload"] == "0"
    loaded = [m for m in seen["modules"] if any(m == h or m.startswith(h + ".") for h in HEAVY)]
    # The audit's modules are imported when an audit runs: the CLI and the gate need none of these.
    assert loaded == []


def test_user_setting_of_extension_autoloading_wins(tmp_path):
    seen = _modules_after_gate_run(tmp_path, {**_env_without(), "HAMILTON_AUTOLOAD_EXTENSIONS": "1"})
    assert seen["autoload"] == "1"


def test_ray_usage_reporting_is_off_whatever_the_environment(tmp_path):
    seen = _modules_after_gate_run(tmp_path, {**_env_without(), "RAY_USAGE_STATS_ENABLED": "1"})
    assert seen["ray_usage"] == "0"


def test_quiet_ray_logs_nothing_to_the_console_and_starts_no_dashboard():
    quiet = drivers.ray_init_config(None, quiet=True)
    assert quiet["include_dashboard"] is False
    assert quiet["log_to_driver"] is False
    assert quiet["logging_level"] >= 40  # logging.ERROR
    assert "log_to_driver" not in drivers.ray_init_config("ray://head:10001", quiet=False)
    assert drivers.ray_init_config("ray://head:10001", quiet=False)["address"] == "ray://head:10001"
