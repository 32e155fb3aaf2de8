"""One checked file of the index cache: a magic line, a JSON header with the payload's SHA-256, the payload.

Why this module exists: the index cache (:mod:`claimgate.audit.index.cache`) keeps two
kinds of file, full indexes and the small deltas of edited corpora
(:mod:`claimgate.audit.index.delta`), and both are checked the same way before use. Here
a file is read once into memory, its owner and mode are checked on the open file, its
header is judged by the caller, and the SHA-256 of every byte after the header line is
compared with the one the header records before any byte of the payload is decoded; the
arrays then load as views of that one buffer (no second copy). Writing streams the
payload into the file while its digest is computed, then overwrites the header's
placeholder digest (same length).

What it refuses to do: decode a payload whose digest differs (a flipped bit, a
truncation, bytes appended), or a file another user owns or that group or others may
write. Every failure is a :class:`DamagedCacheError` with a one-line reason. Rules:
docs/audit-rules.md, "The index cache".
"""

from __future__ import annotations

import hashlib
import json
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
            unsafe = _unsafe_owner_or_mode(os.fstat(handle.fileno()))
            if unsafe:
                raise DamagedCacheError(f"it is {unsafe}")
            data = handle.read()  # one buffer: the digest and the array views share it
        if not data.startswith(MAGIC):
            raise DamagedCacheError("not an index cache file")
        start = data.find(b"\n", len(MAGIC), len(MAGIC) + 4096) + 1
        header = json.loads(data[len(MAGIC) : start]) if start else None
        if not isinstance(header, dict) or not header_fits(header):
            raise DamagedCacheError("its header does not match this corpus and format")
        if hashlib.new(_DIGEST, memoryview(data)[start:]).hexdigest() != header["payload_sha256"]:
            raise DamagedCacheError("its payload does not match the digest in its header")
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
