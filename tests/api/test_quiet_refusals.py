"""The API's refusals print nothing on stderr: no Hamilton banner before the ``IngestionError``.

Hamilton logs a failed node's inputs and traceback (``hamilton.execution.graph_functions``) and a
"Need help with Hamilton?" line (``hamilton.driver``) at ERROR; with no logging configured Python's
last-resort handler prints them on stderr. claimgate drops those records for its own refusals only
(``claimgate.execution.hamilton_logs``, docs/python-api.md "Refusals"). The subprocess tests run
without pytest's log capture, as a user's script does.
"""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest
from claimgate.api import Audit, Gate
from claimgate.errors import IngestionError

from ..helpers import pin_sources

SCRIPT = """
import sys
from claimgate.api import Audit, Gate
from claimgate.errors import IngestionError
what, manifest = sys.argv[1], sys.argv[2]
try:
    if what == "schema":
        Gate.from_manifest(manifest, schema=sys.argv[3])
    elif what == "gate":
        Gate.from_manifest(manifest)
    else:
        Audit.from_manifest(manifest)
except IngestionError as exc:
    print(exc.reason)
"""


@pytest.fixture
def edited(tmp_path):
    manifest, _ = pin_sources(tmp_path, {"guide": ("1.0", b"# Guide\n"), "other": ("1.0", b"# Other\n")})
    (tmp_path / "sources" / "other.md").write_bytes(b"# Other, edited\n")
    return manifest


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", SCRIPT, *args], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("what", ["gate", "audit"])
def test_api_refusal_of_an_edited_source_prints_no_hamilton_banner(edited, what):
    done = _run(what, str(edited))
    assert done.stdout == "hash_mismatch\n"
    assert done.stderr == ""


def test_api_refusal_of_a_missing_schema_prints_no_hamilton_banner(edited, tmp_path):
    pin_sources(tmp_path, {"guide": ("1.0", b"# Guide\n")})
    done = _run("schema", str(tmp_path / "manifest.json"), str(tmp_path / "nope.toml"))
    assert done.stdout.strip() and done.stderr == ""


def test_api_refusal_leaves_no_hamilton_error_record(edited, caplog, capfd):
    caplog.set_level(logging.DEBUG, logger="hamilton")
    with pytest.raises(IngestionError, match="hash_mismatch"):
        Gate.from_manifest(edited)
    with pytest.raises(IngestionError, match="hash_mismatch"):
        Audit.from_manifest(edited)
    assert [r for r in caplog.records if r.name.startswith("hamilton") and r.levelno >= logging.ERROR] == []
    assert capfd.readouterr().err == ""


def test_a_users_own_hamilton_failure_is_still_logged(caplog):
    from hamilton import ad_hoc_utils, driver

    def broken() -> int:
        raise ValueError("the user's own bug")

    module = ad_hoc_utils.create_temporary_module(broken, module_name="users_own_module")
    caplog.set_level(logging.ERROR, logger="hamilton")  # another test may have quieted it (the CLI in-process)
    with pytest.raises(ValueError):
        driver.Builder().with_modules(module).build().execute(["broken"])
    assert any(r.name == "hamilton.execution.graph_functions" for r in caplog.records)
    assert any(r.name == "hamilton.driver" for r in caplog.records)
