"""claimgate: evidence gates for documentation assistants, as Hamilton dataflows.

``from claimgate import Gate, Audit`` gives the in-process API (``claimgate.api``); it is imported on
first use, so ``import claimgate`` alone stays cheap (no Hamilton, no pandas).

Importing this package, before Hamilton is imported anywhere in the process:

- sets ``HAMILTON_TELEMETRY_ENABLED=false`` (overriding the environment). Current
  Hamilton releases send no telemetry at all; the variable keeps older releases
  quiet too. claimgate runs offline on other people's documents and makes no
  network calls.
- sets ``RAY_USAGE_STATS_ENABLED=0`` (overriding the environment), so that Ray, when
  the optional executor is used, does not report usage either.
- turns Hamilton's extension autoloading off (``HAMILTON_AUTOLOAD_EXTENSIONS=0``)
  unless the user set the variable. Autoloading imports every installed extension
  when ``hamilton.driver`` is imported (Dask's dataframe and array, ``pyarrow.dataset``,
  fsspec, jinja2: about 0.4 s of start-up) although claimgate's nodes use plain pandas
  frames. The Dask and Ray executors import their plugin modules explicitly when
  chosen (``execution.drivers.task_executor``).
"""

import os

os.environ["HAMILTON_TELEMETRY_ENABLED"] = "false"  # forced, whatever the environment says
os.environ["RAY_USAGE_STATS_ENABLED"] = "0"  # forced: no usage reporting from the optional Ray executor
os.environ.setdefault("HAMILTON_AUTOLOAD_EXTENSIONS", "0")  # the user's own setting wins

__version__ = "0.1.0"

__all__ = ["Audit", "Gate", "__version__"]


def __getattr__(name: str) -> object:
    """``Gate`` and ``Audit`` from ``claimgate.api``, imported on first access (module ``__getattr__``)."""
    if name in ("Gate", "Audit"):
        from claimgate import api

        return getattr(api, name)
    raise AttributeError(f"module 'claimgate' has no attribute {name!r}")
