"""Progress bars that start no thread (a leaf: the audit's loops and the command's bars use it)."""

from __future__ import annotations

from functools import cache


@cache
def _bar_class() -> type:
    import tqdm

    class Bar(tqdm.tqdm):
        """``tqdm.tqdm`` without its monitor thread (``monitor_interval = 0``): the monitor only lowers the refresh
        rate of a bar that stalls, and a thread in the process keeps a forked helper from starting
        (:func:`claimgate.runtime.rows_ahead.fork_safe_threads`)."""

        monitor_interval = 0

    return Bar


def progress_bar(*args, **kwargs):
    """A ``tqdm.tqdm`` bar (the same arguments) that starts no monitor thread, enabled or not."""
    return _bar_class()(*args, **kwargs)
