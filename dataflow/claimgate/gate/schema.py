"""Claim schemas: which directives a documentation set may declare (docs/gate-rules.md, "Claim schemas").

A schema is a TOML file::

    prefix = "@quill"
    [operations.create_copy]
    existing_path = ["refuse", "overwrite"]
    close_required = ["yes", "no"]

It fixes the directive grammar ``<prefix> <operation> <key>=<value>`` and the
enumeration of values each (operation, key) accepts. Quill's schema,
``fixtures/quill_schema.toml``, is the default. An invalid schema is refused before
any case runs (``IngestionError`` ``invalid_schema`` with a one-line detail).
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from pathlib import Path

from claimgate.errors import IngestionError
from claimgate.io.files import NotRegularFileError, read_regular_bytes
from claimgate.resources import default_schema_path

# \Z, not $: "$" also matches before a trailing newline (a quoted TOML key may hold one).
NAME_RE = re.compile(r"^[a-z_]+\Z")


@dataclass(frozen=True)
class ClaimSchema:
    """A validated claim schema.

    ``operations`` maps operation name → claim key → tuple of allowed values, each
    name and value matching ``[a-z_]+``. Immutable and picklable.
    """

    prefix: str
    operations: dict[str, dict[str, tuple[str, ...]]]

    @property
    def grammar(self) -> str:
        """The directive grammar as a one-line string, e.g. ``@quill <operation> <key>=<value>``."""
        return f"{self.prefix} <operation> <key>=<value>"

    @property
    def single_operation(self) -> str | None:
        """The operation name when the schema declares exactly one, else ``None``."""
        return next(iter(self.operations)) if len(self.operations) == 1 else None

    def as_dict(self) -> dict:
        """Plain JSON-ready form: ``{"prefix", "operations": {op: {key: [values]}}}``."""
        return {
            "prefix": self.prefix,
            "operations": {op: {k: list(v) for k, v in keys.items()} for op, keys in self.operations.items()},
        }


def schema_from_dict(document: dict, origin: str = "schema") -> ClaimSchema:
    """Validate a parsed TOML document and build a ``ClaimSchema``.

    Raises ``IngestionError`` ``invalid_schema`` when: ``prefix`` is missing, not a
    string, empty or contains white space or ``=``; ``operations`` is missing or empty;
    an operation or key name is outside ``[a-z_]+``; an operation declares no keys;
    an enumeration is not a non-empty list of ``[a-z_]+`` strings without repeats.
    """

    def refuse(detail: str) -> IngestionError:
        return IngestionError("invalid_schema", f"{origin}: {detail}")

    prefix = document.get("prefix")
    if not isinstance(prefix, str) or not prefix:
        raise refuse("no prefix (a non-empty string is required)")
    if any(ch.isspace() for ch in prefix) or "=" in prefix:
        raise refuse(f"prefix {prefix!r} contains white space or '='")
    operations = document.get("operations")
    if not isinstance(operations, dict) or not operations:
        raise refuse("no [operations.<name>] table")
    checked: dict[str, dict[str, tuple[str, ...]]] = {}
    for operation, keys in operations.items():
        if not NAME_RE.match(operation):
            raise refuse(f"operation name {operation!r} is outside [a-z_]+")
        if not isinstance(keys, dict) or not keys:
            raise refuse(f"operation {operation!r} declares no keys")
        checked[operation] = {}
        for key, values in keys.items():
            if not NAME_RE.match(key):
                raise refuse(f"key name {operation}.{key!r} is outside [a-z_]+")
            if not isinstance(values, list):
                raise refuse(f"{operation}.{key} must be a list of values, not a {type(values).__name__}")
            if not values:
                raise refuse(f"{operation}.{key} has an empty enumeration")
            for value in values:
                if not isinstance(value, str) or not NAME_RE.match(value):
                    raise refuse(f"{operation}.{key} value {value!r} is outside [a-z_]+")
            if len(set(values)) != len(values):
                raise refuse(f"{operation}.{key} lists a value twice")
            checked[operation][key] = tuple(values)
    return ClaimSchema(prefix=prefix, operations=checked)


def load_schema(schema_path: str | Path | None = None) -> ClaimSchema:
    """Read and validate a schema TOML file (``None`` → Quill's default schema).

    Raises ``IngestionError`` ``invalid_schema`` for a missing file, TOML that does not
    parse (with its line) or any rule of ``schema_from_dict``.
    """
    path = Path(schema_path) if schema_path is not None else default_schema_path()
    try:
        document = tomllib.loads(read_regular_bytes(path)[0].decode("utf-8"))  # opened without blocking
    except FileNotFoundError:
        raise IngestionError("invalid_schema", f"schema not found: {path}") from None
    except NotRegularFileError:
        raise IngestionError("invalid_schema", f"schema is not a regular file: {path}") from None
    except OSError as exc:
        raise IngestionError("invalid_schema", f"cannot read {path}: {exc.strerror or exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise IngestionError("invalid_schema", f"{path.name}: {exc}") from None
    except UnicodeDecodeError:
        raise IngestionError("invalid_schema", f"{path.name}: not UTF-8") from None
    return schema_from_dict(document, origin=path.name)
