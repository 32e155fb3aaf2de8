"""One checked file of the index cache: a magic line, a JSON header with the payload's SHA-256, the payload.

Why this module exists: the index cache (:mod:`claimgate.audit.index.cache`) keeps two
kinds of file, full indexes and the small deltas of edited corpora
(:mod:`claimgate.audit.index.delta`), and both are checked the same way before use. Here
a file is opened once, its owner and mode are checked on the open file, its
header is judged by the caller, and the SHA-256 of every byte after the header line is
compared with the one the header records before any byte of the payload is decoded; the
arrays then load as views of the file mapped read-only (no copy: only the pages a run
touches are read into its memory, and the kernel may drop them again). The digest is
computed by reading the file, not through the mapping. The mapped bytes are the checked
ones because a cache file is never written in place: every write is a new file renamed
over the old (``io.atomic.write_atomic``), and the mapping keeps the file it opened. Only
its owner (the mode check) could change it in place, and should not: a tool that does
(``rsync --inplace``, ``cp`` over the folder) while a process holds the index can crash
that process (``SIGBUS`` on a truncated mapping); a cache folder is replaced whole.
Writing streams the payload into the file while its digest is computed, then overwrites
the header's placeholder digest (same length).

What it refuses to do: decode a payload whose digest differs (a flipped bit, a
truncation, bytes appended), or a file another user owns or that group or others may
write. Every failure is a :class:`DamagedCacheError` with a one-line reason. Rules:
docs/audit-rules.md, "The index cache".
"""

from __future__ import annotations

import hashlib
import json
import mmap
import os
from collections.abc import Callable
from pathlib import Path

import numpy as np

from claimgate.audit.index.cache_folder import _unsafe_owner_or_mode
from claimgate.audit.index.payload import records as parsed_records
from claimgate.audit.index.payload import write_arrays
from claimgate.io.atomic import write_atomic

MAGIC = b"claimgate-corpus-index\n"
_DIGEST = "sha256"  # measured faster than blake2b on a 47 MiB cache here (SHA extensions)
NO_DIGEST = "0" * 64  # the header's digest while the payload is written (same length as a real one)


class DamagedCacheError(Exception):
    """A cache file that exists under its key but cannot be trusted; the message says why, on one line."""


def unloadable(exc: Exception) -> DamagedCacheError:
    """A :class:`DamagedCacheError` for an error raised while decoding a file (one line, at most 200 characters)."""
    reason = " ".join(f"{type(exc).__name__}: {exc}".split())[:200]
    return DamagedCacheError(f"it cannot be loaded ({reason})")


def header_line(header: dict) -> bytes:
    return json.dumps(header, sort_keys=True).encode() + b"\n"


#: Bytes read at a time while a payload's digest is computed (``_payload_digest``).
_DIGEST_CHUNK = 1 << 20


def _payload_digest(fd: int, start: int) -> str:
    """The SHA-256 hex of the file's bytes from ``start``, read through one small buffer (``os.preadv``).

    Read, not hashed through the mapping: a mapped page, once touched, counts in the process's resident
    memory, and the check touches every page; read, only the pages a run uses later are ever mapped in.
    """
    digest, buffer = hashlib.new(_DIGEST), bytearray(_DIGEST_CHUNK)
    view, at = memoryview(buffer), start
    while True:
        got = os.preadv(fd, [view], at)
        if not got:
            return digest.hexdigest()
        digest.update(view[:got])
        at += got


def read_checked(
    path: Path, header_fits: Callable[[dict], bool], decode: Callable[[bytes, int, list], dict]
) -> dict | None:
    """``{"header", "records", "arrays"}`` of the file at ``path``; ``None`` when it is missing.

    Raises ``DamagedCacheError`` for every other failure: unreadable, of another owner or
    writable by others (checked on the open file), no magic line, a header that is not a
    JSON object or that ``header_fits`` rejects, a payload whose SHA-256 is not the
    header's ``payload_sha256`` (checked before ``decode`` sees a byte), or any error of
    ``decode`` (``read_arrays``: the file's bytes, the offset after the records line, the
    records' array names). Exceptions ``header_fits`` raises itself pass through.
    """
    try:
        handle = open(path, "rb")
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise DamagedCacheError(f"cannot read it: {exc.strerror or exc}") from None
    try:
        with handle:
            info = os.fstat(handle.fileno())
            unsafe = _unsafe_owner_or_mode(info)
            if unsafe:
                raise DamagedCacheError(f"it is {unsafe}")
            if info.st_size < len(MAGIC):
                raise DamagedCacheError("not an index cache file")
            data = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)  # the arrays are views of it
            if data[: len(MAGIC)] != MAGIC:
                raise DamagedCacheError("not an index cache file")
            start = data.find(b"\n", len(MAGIC), len(MAGIC) + 4096) + 1
            header = json.loads(data[len(MAGIC) : start]) if start else None
            if not isinstance(header, dict) or not header_fits(header):
                raise DamagedCacheError("its header does not match this corpus and format")
            if _payload_digest(handle.fileno(), start) != header["payload_sha256"]:
                raise DamagedCacheError("its payload does not match the digest in its header")
            if os.fstat(handle.fileno()).st_size != len(data):  # changed in place while it was checked
                raise DamagedCacheError("it changed while it was read")
        end = data.find(b"\n", start) + 1
        if not end:
            raise DamagedCacheError("its payload has no records line")
        records = parsed_records(data[start:end])
        return {"header": header, "records": records, "arrays": decode(data, end, records["arrays"])}
    except DamagedCacheError:
        raise
    except Exception as exc:  # noqa: BLE001 - any failure to load a cache file means: rebuild (fail safe)
        raise unloadable(exc) from None


class _DigestingWriter:
    """A file-like ``write`` that feeds every byte written to ``digest`` too (arrays are written in chunks)."""

    def __init__(self, handle, digest) -> None:
        self.handle = handle
        self.digest = digest

    def write(self, data) -> int:
        self.digest.update(data)
        return self.handle.write(data)


def write_checked(path: Path, header_of: Callable[[str], dict], records: dict, arrays: dict[str, np.ndarray]) -> Path:
    """Write a cache file atomically: magic, ``header_of(payload digest)``, the records line, the arrays.

    The payload is written straight into the file while its SHA-256 is computed, then
    the placeholder header (``header_of(NO_DIGEST)``, same length) is overwritten: the
    payload is never held in memory as one more copy. The file is left ``0o600``.
    """
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)

    def write(handle) -> None:
        handle.write(MAGIC)
        placeholder = header_line(header_of(NO_DIGEST))
        handle.write(placeholder)
        digest = hashlib.new(_DIGEST)
        out = _DigestingWriter(handle, digest)
        line = json.dumps(records, separators=(",", ":")).encode() + b"\n"
        out.write(line)
        write_arrays(out, len(MAGIC) + len(placeholder) + len(line), arrays)
        header = header_line(header_of(digest.hexdigest()))
        if len(header) != len(placeholder):  # sorted keys, fixed-length hex: the line keeps its length
            raise RuntimeError("index cache header changed length")
        handle.seek(len(MAGIC))
        handle.write(header)
        handle.seek(0, 2)

    write_atomic(path, write)
    os.chmod(path, 0o600)
    return path
