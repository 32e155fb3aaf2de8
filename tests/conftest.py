"""Shared pytest fixtures (helpers that are plain functions live in ``tests/helpers.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HAMILTON_TELEMETRY_ENABLED", "false")

from .helpers import FIXTURES  # noqa: E402


@pytest.fixture
def fixtures_dir() -> Path:
    return FIXTURES


@pytest.fixture(scope="session")
def fixture_run():
    """The gate run over the demo fixtures (``fixtures/manifest.json``, ``fixtures/cases.json``)."""
    from claimgate.execution import drivers

    return drivers.run_gate(FIXTURES / "manifest.json", FIXTURES / "cases.json")
