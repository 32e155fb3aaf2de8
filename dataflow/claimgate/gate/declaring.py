"""Which pinned pages of a version declare a key: the question retrieval needs answered before the gate.

Why: the gate withholds an answer when any eligible candidate is silent on the key
(silence is not agreement). A retrieval step that proposes pages by words cannot know
which pages declare the key, so composing it with the gate needs the declaring set:
the pinned pages of exactly the requested version whose directives declare
(operation, key). ``Gate.declaring`` answers it for one question, the
``declaring_sources`` node for a whole DAG (docs/python-api.md, "Which pages declare a key").

What it refuses to do: count a page whose directives are refused (the gate would refuse
its cases: it is not a declaring page), or a page of another version (selection is exact).
It decides nothing; a case built from the declaring set is still decided by the gate.
"""

from __future__ import annotations

import pandas as pd

from claimgate.errors import DirectiveError
from claimgate.gate.directives import parse_directives
from claimgate.gate.schema import ClaimSchema

#: Columns of ``declaring_sources`` (all str), sorted by version, operation, key, source id.
DECLARING_COLUMNS = ("version", "operation", "claim_key", "source_id")


def declaring_sources(verified_sources: pd.DataFrame, claim_schema: ClaimSchema) -> pd.DataFrame:
    """One row per (pinned source, operation, key) the source declares, for every source whose directives parse.

    Needs ``verified_sources`` columns ``source_id``, ``version``, ``text`` (str). Columns
    ``DECLARING_COLUMNS`` (str), sorted; a source with a ``DirectiveError`` has no row.
    Not in ``claimgate.gate.dataflow_modules()`` (add ``claimgate.gate.declaring`` to
    your driver: the gate's own DAG and its pictures stay as they are).
    """
    rows = set()
    for source_id, version, text in zip(
        verified_sources["source_id"].tolist(), verified_sources["version"].tolist(), verified_sources["text"].tolist()
    ):
        try:
            directives = parse_directives(text, claim_schema, source_id)
        except DirectiveError:
            continue
        rows.update((version, d["operation"], d["claim_key"], source_id) for d in directives)
    return pd.DataFrame(sorted(rows), columns=list(DECLARING_COLUMNS)).astype("str")


def declaring_ids(
    declared: pd.DataFrame, schema: ClaimSchema, requested_version: str, claim_key: str, operation: str | None = None
) -> list[str]:
    """Sorted ids of the sources of ``declared`` (a ``declaring_sources`` frame) that declare the key at the version.

    ``operation`` ``None`` means the schema's single operation. Raises ``ValueError``
    naming the request check's reason (``missing_operation``,
    ``unsupported_requested_operation``, ``unsupported_requested_claim``) for a question
    the gate would refuse, so a misspelt key is never an empty answer.
    """
    if operation is None:
        operation = schema.single_operation
        if operation is None:
            raise ValueError(f"missing_operation: the schema declares {len(schema.operations)} operations")
    if operation not in schema.operations:
        raise ValueError(f"unsupported_requested_operation: {operation!r} is not declared by the schema")
    if claim_key not in schema.operations[operation]:
        raise ValueError(f"unsupported_requested_claim: {claim_key!r} is not a key of {operation}")
    mask = (
        (declared["version"] == requested_version)
        & (declared["operation"] == operation)
        & (declared["claim_key"] == claim_key)
    )
    return sorted(declared.loc[mask, "source_id"].tolist())
