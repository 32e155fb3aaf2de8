"""Files that ship with the package: Quill's claim schema and the demo fixtures.

The top-level ``fixtures/`` folder of the checkout is installed as the package
``claimgate.fixtures`` (a ``package-dir`` mapping in ``pyproject.toml``), so the
same files serve the tests in a checkout and the default run after a plain
``pip install``. Paths are read through :mod:`importlib.resources`.
"""

from __future__ import annotations

from importlib import resources
from pathlib import Path


def fixtures_dir() -> Path:
    """The folder of the demo fixtures (``manifest.json``, ``cases.json``, ``sources/``, ``audit/``, …).

    Raises ``FileNotFoundError`` when the package was installed without its data.
    """
    folder = Path(str(resources.files("claimgate.fixtures")))
    if not (folder / "quill_schema.toml").is_file():
        raise FileNotFoundError(f"claimgate's fixtures are missing from {folder}; reinstall the package")
    return folder


def default_schema_path() -> Path:
    """Quill's claim schema, the default for every run (``fixtures/quill_schema.toml``)."""
    return fixtures_dir() / "quill_schema.toml"
