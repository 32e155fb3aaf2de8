"""Options from the project file (``claimgate.toml``), and what a run says about the schema it uses.

``resolve_options`` fills ``--schema``/``--manifest`` from ``--project`` or
``./claimgate.toml`` when the command line leaves them out (the command line wins).
On stderr, never on stdout (so outputs and golden stdout keep their bytes), a run says
which schema it used when it falls back to Quill's, and says so when the manifest was
pinned with a schema whose SHA-256 differs (docs/using-your-docs.md, "A project file").
"""

from __future__ import annotations

import argparse
import hashlib
import sys
from dataclasses import dataclass
from pathlib import Path

from claimgate.errors import UsageError
from claimgate.io.project import Project, find_project
from claimgate.io.sources import manifest_document
from claimgate.resources import default_schema_path


@dataclass(frozen=True)
class Resolved:
    """The options a command runs with: ``schema`` (``None``: Quill's), ``manifest``, and the ``project`` read."""

    schema: str | None
    manifest: str | None
    project: Project | None


def schema_sha256(schema: str | None) -> str:
    """SHA-256 (hex) of the schema file's bytes (``None``: Quill's shipped schema)."""
    path = Path(schema) if schema is not None else default_schema_path()
    return hashlib.sha256(path.read_bytes()).hexdigest()


def resolve_options(args: argparse.Namespace, needs: tuple[str, ...] = ()) -> Resolved:
    """``--schema``/``--manifest`` of ``args``, else the project file's; ``UsageError`` when a needed one is neither."""
    project = find_project(getattr(args, "project", None))
    schema = getattr(args, "schema", None) or (project.schema if project else None)
    manifest = getattr(args, "manifest", None) or (project.manifest if project else None)
    for name, value in (("manifest", manifest), ("schema", schema)):
        if name in needs and value is None:
            raise UsageError(f"--{name} is required (or a claimgate.toml naming it)")
    return Resolved(schema=schema, manifest=manifest, project=project)


def announce_schema(resolved: Resolved, quiet: bool = False) -> None:
    """On stderr: the schema used when it falls back to Quill's, and a manifest pinned with another schema."""
    if quiet:
        return
    if resolved.schema is None:
        print(
            f"note: no --schema and no project schema: used Quill's schema ({default_schema_path()})", file=sys.stderr
        )
    if resolved.manifest is not None:
        check_manifest_schema(resolved.manifest, resolved.schema)


def check_manifest_schema(manifest: str, schema: str | None) -> None:
    """Say on stderr when ``manifest`` records a ``schema_sha256`` other than that of ``schema``'s bytes."""
    try:
        pinned = manifest_document(manifest).get("schema_sha256")
        used = schema_sha256(schema)
    except Exception:  # a missing or unsound file is refused, with its reason, by the command itself
        return
    if isinstance(pinned, str) and pinned != used:
        name = schema if schema is not None else "Quill's schema"
        print(
            f"warning: {manifest} was pinned with a schema of sha256 {pinned[:12]}…, "
            f"this run uses {name} (sha256 {used[:12]}…)",
            file=sys.stderr,
        )
