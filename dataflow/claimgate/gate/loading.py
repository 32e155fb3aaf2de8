"""Loading nodes of the gate (Hamilton): the claim schema and the case table.

The pinned sources are loaded by ``claimgate.io.pinned_sources`` (shared with the
audit). Only loading nodes touch files; the decision stages in ``stages.py`` see only
the frames and objects returned here, so they can be tested on frames built in a test.
"""

from __future__ import annotations

import pandas as pd

from claimgate.gate.schema import ClaimSchema, load_schema
from claimgate.io.tables import case_table_frame, read_case_rows


def claim_schema(schema_path: str = "") -> ClaimSchema:
    """The validated claim schema (``""`` means Quill's, shipped as ``claimgate.fixtures/quill_schema.toml``).

    Raises ``IngestionError`` (``invalid_schema``) before any case runs.
    """
    return load_schema(schema_path or None)


def case_rows(cases_path: str) -> pd.DataFrame:
    """The whole case table (``tables.case_table_frame``: position, case_id, request, case_problem).

    Raises ``IngestionError`` (``invalid_case_table``) when the table cannot be parsed.
    """
    return case_table_frame(read_case_rows(cases_path))
