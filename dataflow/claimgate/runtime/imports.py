"""Holding back an import nothing in the run needs (a leaf: the recheck uses it without Hamilton or pandas)."""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Iterator


class _PandasHeldBack:
    """A ``sys.meta_path`` finder that refuses ``pandas`` (``ModuleNotFoundError``), as if it were not installed."""

    @staticmethod
    def find_spec(name: str, path=None, target=None):
        if name == "pandas" or name.startswith("pandas."):
            raise ModuleNotFoundError(f"{name} is held back for this step", name=name)
        return None


@contextlib.contextmanager
def pandas_held_back() -> Iterator[None]:
    """Run the block as if pandas were not installed, when nothing has imported it yet.

    pyarrow's array constructors import pandas on their first call only to recognise pandas objects
    passed to them (about 0.35 s of CPU); the index build of a recheck over a corpus file passes none.
    A finder first on ``sys.meta_path`` refuses the import, so pyarrow takes pandas as absent; it is
    removed on leaving, so a later ``import pandas`` works, and ``Table.from_pandas``/``to_pandas`` import it
    again. But pyarrow's shim remembers the failed try for the rest of the process: its array-like checks
    (``pa.array`` of a ``pandas.Series``, ``is_categorical``) keep taking pandas as absent, so a Series would
    be read as a plain sequence (``[1.0, None]`` as ``[1, nan]``). Hence only for a command's last step,
    after which nothing hands a pandas object to pyarrow (``claimgate recheck --corpus``: the rows are
    written as bytes, the review page builds no frame); never in the API. A no-op when pandas is imported.
    """
    if "pandas" in sys.modules:
        yield
        return
    sys.meta_path.insert(0, _PandasHeldBack)
    try:
        yield
    finally:
        sys.meta_path.remove(_PandasHeldBack)
