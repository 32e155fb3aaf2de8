"""claimgate: evidence gates for documentation assistants, as Hamilton dataflows.

``from claimgate import Gate, Audit`` gives the in-process API (``claimgate.api``); it is imported on
first use, so ``import claimgate`` alone stays cheap (no Hamilton, no pandas).

Importing this package sets ``HAMILTON_TELEMETRY_ENABLED=false`` (overriding the
environment) before Hamilton is
imported anywhere in the process. Current Hamilton releases send no telemetry at
all; the variable keeps older releases quiet too. claimgate runs offline on other
people's documents and makes no network calls.
"""

import os

os.environ["HAMILTON_TELEMETRY_ENABLED"] = "false"  # forced, whatever the environment says

__version__ = "0.1.0"

__all__ = ["Audit", "Gate", "__version__"]


def __getattr__(name: str) -> object:
    """``Gate`` and ``Audit`` from ``claimgate.api``, imported on first access (module ``__getattr__``)."""
    if name in ("Gate", "Audit"):
        from claimgate import api

        return getattr(api, name)
    raise AttributeError(f"module 'claimgate' has no attribute {name!r}")
