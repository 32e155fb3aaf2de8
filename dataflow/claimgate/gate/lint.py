"""The docs lint: every pinned page parsed with the schema, every problem, and the contract table (``claimgate lint``).

Why: the gate refuses a case at the first directive error of one of its sources, and
says nothing about pages no case used. A documentation repository's CI needs the
opposite view: every page, every problem (``path:line``), and per version × operation
× key which pages declare it with which value, so a same-version disagreement or a
page that forgot a key is found before an assistant asks (docs/gate-rules.md, "Lint").

What it refuses to do: decide a winner, or read a silent page as agreeing. A
**conflict** is two or more distinct values (typed equality, ``values.py``) of one
key among the pages of one version; a **gap** is a key declared by some well-formed
pages of a version and not by others. Pages with a directive problem are listed as
problems and left out of the gap test (their directives cannot be trusted).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from claimgate.gate.directives import directive_problems
from claimgate.gate.schema import ClaimSchema
from claimgate.gate.values import typed_columns

#: Columns of ``LintReport.problems`` and their dtypes.
PROBLEM_COLUMNS = {"path": "str", "line": "int64", "source_id": "str", "reason": "str", "detail": "str"}
#: Columns of ``LintReport.contracts`` (one row per version × operation × key) and their dtypes.
CONTRACT_COLUMNS = {
    "version": "str",
    "operation": "str",
    "claim_key": "str",
    "declared_by": "object",  # list of {"source_id", "path", "line", "value"} in source-id order
    "silent": "object",  # list of source ids of the version that do not declare the key
    "conflict": "bool",
    "gap": "bool",
}


@dataclass(frozen=True)
class LintReport:
    """What ``lint_sources`` found: ``problems`` and ``contracts`` (``PROBLEM_COLUMNS``, ``CONTRACT_COLUMNS``),
    over ``pages`` pinned pages read with the schema's directive ``prefix``."""

    problems: pd.DataFrame
    contracts: pd.DataFrame
    pages: int = 0
    prefix: str = ""

    @property
    def declares_nothing(self) -> bool:
        """No page declares a directive and none has a problem: every key would be ``not_in_docs``.

        Usually a wrong ``prefix`` or schema, or docs that never adopted directives; ``--strict`` fails it.
        """
        return self.contracts.empty and self.problems.empty

    @property
    def conflicts(self) -> int:
        """Number of version × operation × key rows whose declared values disagree."""
        return int(self.contracts["conflict"].sum())

    @property
    def gaps(self) -> int:
        """Number of version × operation × key rows some pages of the version are silent on."""
        return int(self.contracts["gap"].sum())

    def exit_status(self, strict: bool = False) -> int:
        """1 on a directive problem or a conflict (or, when ``strict``, a gap or no directive at all), else 0."""
        failing = len(self.problems) or self.conflicts or (strict and (self.gaps or self.declares_nothing))
        return 1 if failing else 0


def lint_sources(sources: pd.DataFrame, schema: ClaimSchema) -> LintReport:
    """Lint every source of ``sources`` (columns ``source_id, version, path, text``, str) under ``schema``.

    ``problems``: one row per refused directive line of every page, sorted by path then
    line (``line`` 1-based). ``contracts``: one row per (version, operation, key) that
    some page declares, sorted by those three; ``declared_by`` lists each declaring
    page's ``source_id``, ``path``, ``line`` and ``value`` (as written), ``silent`` the
    well-formed pages of the version that do not declare it. The rules: docs/gate-rules.md, "Lint".
    """
    problems: list[dict] = []
    declared: dict[tuple[str, str, str], list[dict]] = {}
    clean_by_version: dict[str, list[str]] = {}
    rows = sorted(
        zip(sources["source_id"].tolist(), sources["version"].tolist(), sources["path"].tolist(), sources["text"])
    )
    for source_id, version, path, text in rows:
        directives, refused = directive_problems(text, schema, source_id)
        problems += [
            {"path": path, "line": line, "source_id": source_id, "reason": reason, "detail": detail}
            for line, reason, detail in refused
        ]
        if not refused:
            clean_by_version.setdefault(version, []).append(source_id)
        for directive in directives:
            declared.setdefault((version, directive["operation"], directive["claim_key"]), []).append(
                {
                    "source_id": source_id,
                    "path": path,
                    "line": directive["start_line"],
                    "value": directive["value"],
                    "agreement": typed_columns(directive)["agreement"],
                }
            )
    contracts = []
    for (version, operation, key), claims in sorted(declared.items()):
        ids = {claim["source_id"] for claim in claims}
        silent = [source_id for source_id in clean_by_version.get(version, []) if source_id not in ids]
        contracts.append(
            {
                "version": version,
                "operation": operation,
                "claim_key": key,
                "declared_by": [{k: v for k, v in claim.items() if k != "agreement"} for claim in claims],
                "silent": silent,
                "conflict": len({claim["agreement"] for claim in claims}) > 1,
                "gap": bool(silent),
            }
        )
    problem_frame = pd.DataFrame(problems, columns=list(PROBLEM_COLUMNS)).astype(PROBLEM_COLUMNS)
    problem_frame = problem_frame.sort_values(["path", "line"], kind="stable").reset_index(drop=True)
    contract_frame = pd.DataFrame(contracts, columns=list(CONTRACT_COLUMNS)).astype(CONTRACT_COLUMNS)
    return LintReport(problems=problem_frame, contracts=contract_frame, pages=len(rows), prefix=schema.prefix)
