"""Printing that never crashes the run: characters the terminal cannot show become escapes.

Under a terminal whose encoding is not UTF-8 (an ISO-8859-15 locale, a Windows code
page), printing a case or citation id such as ``日本`` raised ``UnicodeEncodeError``
after the output file was written, turning a completed run into a traceback and
exit 1. ``safe_console`` makes stdout and stderr write such characters as Python
escapes (``\\u65e5``); the files written are unaffected (always UTF-8).
"""

from __future__ import annotations

import contextlib
import sys


def safe_console() -> None:
    """Reconfigure ``sys.stdout`` and ``sys.stderr`` with ``errors="backslashreplace"``, encoding unchanged.

    Streams that cannot be reconfigured (replaced by a test harness, already closed) are left alone.
    """
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(Exception):
                reconfigure(errors="backslashreplace")
