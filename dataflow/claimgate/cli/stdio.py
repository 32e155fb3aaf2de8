"""``-`` for standard input and output, where a command reads or writes a table.

``--cases -`` (gate) and ``--citations -`` (audit) read the table from standard input; ``--output -``
(gate and audit) writes the results to standard output as JSON Lines. Both go through a private
temporary folder, so everything downstream reads and writes files as usual:

- standard input is copied there in blocks (never held whole) and named by what it starts with
  (``table_suffix``), since there is no extension to read the format from;
- the results are written there (streamed for the gate, as for a ``.jsonl`` file) and copied to
  standard output only once the run is complete, so a refused or interrupted run prints nothing
  on standard output, as it leaves no file.

With ``--output -`` the command's own lines (table, counts, ``wrote``) go to standard error, so
standard output holds the results only. See the README, "Standard input and output".
"""

from __future__ import annotations

import contextlib
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

#: The spelling of standard input or output for a table option.
STDIO = "-"
BLOCK_BYTES = 1 << 20


def table_suffix(head: bytes) -> str:
    """The table extension for a stream starting with ``head`` (its first bytes).

    ``PAR1`` (Parquet's magic number) is ``.parquet``; otherwise, after a UTF-8 byte order mark and
    white space, ``[`` is a ``.json`` list, ``{`` (or nothing at all) ``.jsonl``, anything else ``.csv``
    (a header row). The reader of that extension then refuses what is not a table, as for a file.
    """
    if head.startswith(b"PAR1"):
        return ".parquet"
    text = head.removeprefix(b"\xef\xbb\xbf").lstrip(b" \t\r\n")
    if text[:1] == b"[":
        return ".json"
    if text[:1] in (b"{", b""):
        return ".jsonl"
    return ".csv"


@contextlib.contextmanager
def temporary_folder() -> Iterator[Path]:
    """A private temporary folder, removed on exit (also on an error or an interruption)."""
    with tempfile.TemporaryDirectory(prefix="claimgate-stdio-") as folder:
        yield Path(folder)


def spooled_input(folder: Path, name: str, stream=None) -> Path:
    """Copy ``stream`` (default: standard input, as bytes) into ``folder`` as ``name`` + ``table_suffix``.

    Copied in blocks of ``BLOCK_BYTES``; the file is named after the first block. Returns its path.
    """
    source = stream if stream is not None else sys.stdin.buffer
    first = source.read(BLOCK_BYTES)
    while first and len(first) < 8:  # a pipe may give a few bytes at a time: enough to tell PAR1 apart
        more = source.read(BLOCK_BYTES)
        if not more:
            break
        first += more
    path = folder / f"{name}{table_suffix(first)}"
    with open(path, "wb") as handle:
        handle.write(first)
        shutil.copyfileobj(source, handle, BLOCK_BYTES)
    return path


def copy_to_stdout(path: Path) -> None:
    """Write the bytes of ``path`` to standard output (after what was printed to it), in blocks."""
    sys.stdout.flush()
    with open(path, "rb") as handle:
        shutil.copyfileobj(handle, sys.stdout.buffer, BLOCK_BYTES)
    sys.stdout.buffer.flush()


def say_to(output: str):
    """``print`` for the command's own lines: to standard error when the results go to standard output."""
    if output == STDIO:
        return lambda *parts: print(*parts, file=sys.stderr)
    return print
