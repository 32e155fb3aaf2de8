"""Fixtures shared by the gate's tests (the session's ``fixture_run`` is in ``tests/conftest.py``)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def fixture_results(fixture_run) -> dict:
    """``{case_id: result object}`` of the gate run over the demo fixtures."""
    return dict(zip(fixture_run.results["case_id"], fixture_run.results["result"]))
