"""Error lines as the terminal shows them: every character that is not printable escaped.

Why: an error line names inputs taken from other people's files and folders (a source id, a file
name, a path). A window-title sequence followed by a clear-screen in one of them reached the terminal
raw. Every error line the command line prints goes through ``print_error``, which shows it through
``printable``, the rule the terminal tables already use, so a table cell and an error line escape the
same characters the same way (docs/gate-rules.md, "Pinning"; README, "What is refused, and why").
"""

from __future__ import annotations

import sys

from claimgate.cli.terminal import printable


def error_line(message: str) -> str:
    """``error: <message>`` with every unprintable character of ``message`` escaped (``\\x1b``, ``\\u2028``)."""
    return f"error: {printable(message)}"


def print_error(message: str) -> None:
    """Print ``error_line(message)`` on stderr."""
    print(error_line(message), file=sys.stderr)
