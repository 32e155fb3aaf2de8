"""Pausing Python's cyclic garbage collector around a bulk build (a leaf: the recheck uses it without Hamilton)."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Iterator


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk build, restoring it afterwards.

    A batch run allocates millions of long-lived containers (raw case rows, result
    dicts); each automatic collection rescans all of them, which cost about 40% of a
    50,000-case run. Nothing built here forms reference cycles that need collecting.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
