"""The project file ``claimgate.toml``: where a documentation repository keeps its schema, manifest and folders.

Read by ``cli.project`` for ``pin``, ``verify``, ``lint``, ``gate`` and ``audit``
(docs/using-your-docs.md, "A project file"). Every path in it is relative to the
file's own folder. A command-line option always wins over the file.

    schema = "acme_schema.toml"
    manifest = "docs/manifest.json"
    docs = ["docs"]                          # folders `pin` walks (with no FILE/DIR argument)
    version_from_path = "docs/{version}/**"  # optional: each page's version from its path
    glob = "**/*.md"                         # optional: which files of the folders (default: .md .rst .txt .html)
    exclude = ["**/drafts/**"]               # optional
    url_template = "https://docs.acme.dev/{version}/{stem}"   # optional
    source_id = "path"                       # optional: pin's --source-id (stem or path)

Unknown keys, values of the wrong shape and TOML that does not parse are a usage
error (``UsageError``, exit 2) naming the file: a misspelt key never silently means
"the default".
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from claimgate.errors import UsageError

PROJECT_FILE = "claimgate.toml"
_STRINGS = ("schema", "manifest", "version_from_path", "glob", "url_template", "source_id")
_LISTS = ("docs", "exclude")


@dataclass(frozen=True)
class Project:
    """A read project file: paths resolved against ``root`` (its folder), ``None``/``()`` where not given."""

    path: Path
    root: Path
    schema: str | None = None
    manifest: str | None = None
    docs: tuple[str, ...] = ()
    version_from_path: str | None = None
    glob: str | None = None
    exclude: tuple[str, ...] = ()
    url_template: str | None = None
    source_id: str | None = None


def find_project(explicit: str | None, folder: str | Path = ".") -> Project | None:
    """The project ``--project`` names (it must exist), else ``folder/claimgate.toml`` when present, else ``None``."""
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise UsageError(f"--project {explicit}: no such file")
        return read_project(path)
    path = Path(folder) / PROJECT_FILE
    return read_project(path) if path.is_file() else None


def read_project(path: str | Path) -> Project:
    """Read and check one project file; raises ``UsageError`` naming the file and the problem."""
    path = Path(path)
    try:
        document = tomllib.loads(path.read_bytes().decode("utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise UsageError(f"{path}: cannot be read as TOML: {exc}") from None
    unknown = sorted(set(document) - set(_STRINGS) - set(_LISTS))
    if unknown:
        raise UsageError(f"{path}: unknown key {unknown[0]!r} (known: {', '.join(_STRINGS + _LISTS)})")
    root = path.resolve().parent
    fields: dict = {}
    for key in _STRINGS:
        if key in document:
            value = document[key]
            if not isinstance(value, str) or not value:
                raise UsageError(f"{path}: {key} must be a non-empty string")
            fields[key] = value
    for key in _LISTS:
        if key in document:
            value = document[key]
            if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
                raise UsageError(f"{path}: {key} must be a list of non-empty strings")
            fields[key] = tuple(value)
    for key in ("schema", "manifest"):
        if key in fields:
            fields[key] = str(root / fields[key])
    if "docs" in fields:
        fields["docs"] = tuple(str(root / folder) for folder in fields["docs"])
    return Project(path=path, root=root, **fields)
