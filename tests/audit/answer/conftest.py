"""A small corpus of our own for the answer audit's tests (not the demo's)."""

from __future__ import annotations

import pytest
from claimgate.api import Audit

from ...helpers import char_citation  # noqa: F401  (re-exported for the tests here)

GUIDE = (
    "Quill copies files between folders. When the destination exists, create_copy refuses to overwrite it "
    "unless overwrite=True is passed. Version 2.4.1 added checksums for every copied file."
)
NOTES = "Release notes: the copy command keeps file permissions on Linux and macOS since version 2.3."
CORPUS = {"guide": GUIDE, "notes": NOTES}


@pytest.fixture(scope="session")
def audit() -> Audit:
    return Audit.from_corpus(CORPUS)
