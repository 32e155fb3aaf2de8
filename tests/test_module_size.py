"""Every module of ``dataflow/claimgate/`` is at most 400 lines (the project's rule for modules).

A module that grows past it is split along its concerns, the public names imported from their new
home. ``KNOWN_EXCEPTIONS`` would list a module allowed past the limit, saying why; it is empty.
"""

from __future__ import annotations

from pathlib import Path

import claimgate
import pytest

PACKAGE = Path(claimgate.__file__).resolve().parent
MAX_LINES = 400

#: Modules allowed past MAX_LINES: none (the registry's data lives in reason_codes.toml, not in a module).
KNOWN_EXCEPTIONS: set[str] = set()

MODULES = sorted(path.relative_to(PACKAGE).as_posix() for path in PACKAGE.rglob("*.py"))


def _lines(module: str) -> int:
    return len((PACKAGE / module).read_text(encoding="utf-8").splitlines())


@pytest.mark.parametrize("module", [m for m in MODULES if m not in KNOWN_EXCEPTIONS])
def test_module_is_at_most_400_lines(module):
    assert _lines(module) <= MAX_LINES, f"{module} has {_lines(module)} lines; split it along its concerns"


def test_known_exceptions_are_modules_of_the_package():
    assert KNOWN_EXCEPTIONS <= set(MODULES)
