"""Shared fixtures: paths to the project's fixtures and a runner for the command line."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "fixtures"

os.environ.setdefault("HAMILTON_TELEMETRY_ENABLED", "false")


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


def run_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """Run ``run_pipeline.py`` in a subprocess; returns the completed process (text mode)."""
    return subprocess.run(
        [sys.executable, str(ROOT / "run_pipeline.py"), *args],
        cwd=cwd or ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
