"""Claim schemas: which directives a documentation set may declare (docs/gate-rules.md, "Claim schemas").

A schema is a TOML file::

    prefix = "@quill"
    execution_mode = "..."          # optional: the result document's execution_mode
    [operations.create_copy]
    existing_path = ["refuse", "overwrite"]
    close_required = ["yes", "no"]
    timeout = { type = "number" }   # a typed key: bool, number, integer or string (values.py)
    [versions]                      # optional
    pattern = "major.minor"         # "major.minor" (default), "semver", "pep440" or a regular expression
    [answer_request]                # optional
    system = "..."                  # the prepared request's system message
    [directives]                    # optional opt-ins; the defaults are the seed's rule
    scope = "line"                  # "line" (default) or "prefix"
    skip_fenced_code = false
    context = false                 # the prepared request's claims carry their prose (context.py)

It fixes the directive grammar ``<prefix> <operation> <key>=<value>`` and the
enumeration of values each (operation, key) accepts. Quill's schema,
``fixtures/quill_schema.toml``, is the default; a schema that leaves the optional
tables out gets the seed's behaviour (``MAJOR.MINOR`` versions, the seed's directive rule)
and a neutral wording of the request (``DEFAULT_SYSTEM_PROMPT``). An invalid schema is
refused before any case runs (``IngestionError`` ``invalid_schema`` with a one-line
detail). Unknown top-level keys or tables are refused too, so a misspelt table name
never silently means "the default".
"""

from __future__ import annotations

import functools
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

from claimgate.errors import IngestionError
from claimgate.gate.values import ValueType, value_type_from
from claimgate.gate.versions import VersionScheme, version_scheme
from claimgate.io.files import NotRegularFileError, read_regular_bytes
from claimgate.resources import default_schema_path

# \Z, not $: "$" also matches before a trailing newline (a quoted TOML key may hold one).
#: Operation, key and enumeration-value names (docs/gate-rules.md, "Claim schemas"). The seed's
#: ``[a-z_]+`` names that start with a letter keep their meaning; digits are allowed after the first letter.
NAME_RE = re.compile(r"^[a-z][a-z0-9_]*\Z")

#: The wording of the prepared request and of the result document for a schema that does not set its own
#: (``[answer_request] system``, ``execution_mode``). The fixtures' schemas (Quill, Lumen) set the seed's
#: wording, which calls the contract "fictional" and the gate "synthetic": true of the fixtures, not of a
#: user's documentation (docs/gate-rules.md, "Result objects").
DEFAULT_SYSTEM_PROMPT = (
    "Describe only the supplied explicit API contract. "
    "Cite every supplied source ID. Do not invent an unsupported rule."
)
DEFAULT_EXECUTION_MODE = "offline-explicit-directive-gate"
DIRECTIVE_SCOPES = ("line", "prefix")
_TOP_LEVEL = ("prefix", "execution_mode", "operations", "versions", "answer_request", "directives")


@dataclass(frozen=True)
class ClaimSchema:
    """A validated claim schema.

    ``operations`` maps operation name → claim key → tuple of allowed values (an
    enumeration) or a ``values.ValueType`` (a typed key), each name and enumeration value
    matching ``[a-z][a-z0-9_]*``. ``versions`` says which strings are versions;
    ``system_prompt`` and ``execution_mode`` are the wording of the prepared request and
    of the result document; ``directive_scope`` (``"line"`` or ``"prefix"``) and
    ``skip_fenced_code`` are the directive opt-ins (see ``directives.py``). The defaults
    are the seed's rules with a neutral wording (the fixtures' schemas declare the seed's
    wording). Immutable and picklable.
    """

    prefix: str
    operations: dict[str, dict[str, tuple[str, ...] | ValueType]]
    versions: VersionScheme = field(default_factory=VersionScheme)
    system_prompt: str = DEFAULT_SYSTEM_PROMPT
    execution_mode: str = DEFAULT_EXECUTION_MODE
    directive_scope: str = "line"
    skip_fenced_code: bool = False
    context: bool = False

    @property
    def grammar(self) -> str:
        """The directive grammar as a one-line string, e.g. ``@quill <operation> <key>=<value>``."""
        return f"{self.prefix} <operation> <key>=<value>"

    @functools.cached_property
    def single_operation(self) -> str | None:
        """The operation name when the schema declares exactly one, else ``None`` (read per case row: cached)."""
        return next(iter(self.operations)) if len(self.operations) == 1 else None

    def as_dict(self) -> dict:
        """Plain JSON-ready form: ``{"prefix", "operations": {op: {key: [values]}}}``.

        ``versions`` (``{"pattern"}``) and ``directives`` (``{"scope", "skip_fenced_code"}``)
        are added only when they differ from the defaults, so a seed schema's form (and the
        documents that embed it) keeps its bytes. The wording is not repeated here: it is in
        the document's ``execution_mode`` and in each prepared request.
        """
        form: dict = {
            "prefix": self.prefix,
            "operations": {
                op: {k: (v.as_dict() if isinstance(v, ValueType) else list(v)) for k, v in keys.items()}
                for op, keys in self.operations.items()
            },
        }
        if self.versions != VersionScheme():
            scheme = self.versions
            form["versions"] = {"pattern": scheme.pattern if scheme.name == "regex" else scheme.name}
        if self.directive_scope != "line" or self.skip_fenced_code or self.context:
            form["directives"] = {"scope": self.directive_scope, "skip_fenced_code": self.skip_fenced_code}
            if self.context:
                form["directives"]["context"] = True
        return form


def schema_from_dict(document: dict, origin: str = "schema") -> ClaimSchema:
    """Validate a parsed TOML document and build a ``ClaimSchema``.

    Raises ``IngestionError`` ``invalid_schema`` when: ``prefix`` is missing, not a
    string, empty or contains white space or ``=``; ``operations`` is missing or empty;
    an operation or key name is outside ``[a-z][a-z0-9_]*``; an operation declares no keys;
    an enumeration is not a non-empty list of such names without repeats; a typed
    table is not ``{ type[, pattern] }`` with a known type (``values.value_type_from``); a
    top-level key or table is unknown; ``[versions]``, ``[answer_request]`` or
    ``[directives]`` is not a table or has an unknown key; ``versions.pattern`` is not
    a scheme name or a regular expression (``versions.version_scheme``);
    ``answer_request.system`` is not a non-empty string; ``execution_mode`` is empty or
    holds white space; ``directives.scope`` is not ``line``/``prefix``;
    ``directives.skip_fenced_code`` or ``directives.context`` is not a boolean.
    """

    def refuse(detail: str) -> IngestionError:
        return IngestionError("invalid_schema", f"{origin}: {detail}")

    unknown = sorted(set(document) - set(_TOP_LEVEL))
    if unknown:
        raise refuse(f"unknown key or table {unknown[0]!r} (known: {', '.join(_TOP_LEVEL)})")
    prefix = document.get("prefix")
    if not isinstance(prefix, str) or not prefix:
        raise refuse("no prefix (a non-empty string is required)")
    if any(ch.isspace() for ch in prefix) or "=" in prefix:
        raise refuse(f"prefix {prefix!r} contains white space or '='")
    operations = document.get("operations")
    if not isinstance(operations, dict) or not operations:
        raise refuse("no [operations.<name>] table")
    checked: dict[str, dict[str, tuple[str, ...] | ValueType]] = {}
    for operation, keys in operations.items():
        if not NAME_RE.match(operation):
            raise refuse(f"operation name {operation!r} is outside [a-z][a-z0-9_]*")
        if not isinstance(keys, dict) or not keys:
            raise refuse(f"operation {operation!r} declares no keys")
        checked[operation] = {}
        for key, values in keys.items():
            if not NAME_RE.match(key):
                raise refuse(f"key name {operation}.{key!r} is outside [a-z][a-z0-9_]*")
            if isinstance(values, dict):
                try:
                    checked[operation][key] = value_type_from(values, f"{operation}.{key}")
                except ValueError as exc:
                    raise refuse(str(exc)) from None
                continue
            if not isinstance(values, list):
                raise refuse(f"{operation}.{key} must be a list of values, not a {type(values).__name__}")
            if not values:
                raise refuse(f"{operation}.{key} has an empty enumeration")
            for value in values:
                if not isinstance(value, str) or not NAME_RE.match(value):
                    raise refuse(f"{operation}.{key} value {value!r} is outside [a-z][a-z0-9_]*")
            if len(set(values)) != len(values):
                raise refuse(f"{operation}.{key} lists a value twice")
            checked[operation][key] = tuple(values)
    return ClaimSchema(prefix=prefix, operations=checked, **_options(document, refuse))


def _table(document: dict, name: str, keys: tuple[str, ...], refuse) -> dict:
    """The optional table ``[name]`` (``{}`` when absent); refuses a non-table or an unknown key."""
    table = document.get(name, {})
    if not isinstance(table, dict):
        raise refuse(f"{name} must be a table [{name}]")
    unknown = sorted(set(table) - set(keys))
    if unknown:
        raise refuse(f"[{name}] has an unknown key {unknown[0]!r} (known: {', '.join(keys)})")
    return table


def _text(value: object, where: str, refuse) -> str:
    """A string option that is not empty or only white space, else ``invalid_schema``."""
    if not isinstance(value, str) or not value.strip():
        raise refuse(f"{where} must be a non-empty string")
    return value


def _options(document: dict, refuse) -> dict:
    """The optional settings of a schema as ``ClaimSchema`` keyword arguments (absent → the defaults)."""
    options: dict = {}
    versions = _table(document, "versions", ("pattern",), refuse)
    try:
        options["versions"] = version_scheme(versions.get("pattern"))
    except ValueError as exc:
        raise refuse(str(exc)) from None
    request = _table(document, "answer_request", ("system",), refuse)
    if "system" in request:
        options["system_prompt"] = _text(request["system"], "answer_request.system", refuse)
    if "execution_mode" in document:
        mode = _text(document["execution_mode"], "execution_mode", refuse)
        if any(ch.isspace() for ch in mode):
            raise refuse(f"execution_mode {mode!r} contains white space (use a-word-like-this)")
        options["execution_mode"] = mode
    directives = _table(document, "directives", ("scope", "skip_fenced_code", "context"), refuse)
    scope = directives.get("scope", "line")
    if scope not in DIRECTIVE_SCOPES:
        raise refuse(f"directives.scope must be one of {', '.join(DIRECTIVE_SCOPES)}, not {scope!r}")
    skip = directives.get("skip_fenced_code", False)
    if not isinstance(skip, bool):
        raise refuse(f"directives.skip_fenced_code must be true or false, not {skip!r}")
    options["directive_scope"], options["skip_fenced_code"] = scope, skip
    context = directives.get("context", False)
    if not isinstance(context, bool):
        raise refuse(f"directives.context must be true or false, not {context!r}")
    options["context"] = context
    return options


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
