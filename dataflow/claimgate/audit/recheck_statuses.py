"""The statuses of a recheck row, as data (docs/recheck-rules.md, "Statuses"), and what a summary counts.

Why: the statuses are the product's vocabulary (``--fail-on``, the summary, the review page, the rules
page); they live here once, with nothing heavy imported, so the command line can name them without
loading the matcher.
"""

from __future__ import annotations

#: A recheck row's ``status`` and what it says (docs/recheck-rules.md, "Statuses", which states ``not_held`` first,
#: as ``Rechecker.row`` decides it first); the one home of the statuses.
RECHECK_STATUSES = {
    "unchanged": "the cited document's bytes are the same (or it was unknown then and still is)",
    "intact": "the document changed; the quote is still found verbatim in it under today's rules",
    "invalid": "the document changed or is gone; the quote is no longer found in it",
    "not_held": "the ledger recorded that the citation did not hold (a verdict other than found): it relied on "
    "no cited text, so no edit can invalidate it; its recorded verdict is given",
    "decision_changed": "a prepared request the gate decides differently on today's revision",
}
#: The recorded verdict of a citation that held when it was audited; any other gives ``not_held``.
HELD_VERDICT = "found"
#: The diagnosis kind of a citation whose document is gone from today's corpus.
DOCUMENT_REMOVED = "document_removed"


def row_reason(row: dict) -> str:
    """What a summary counts a recheck row's reason as: its diagnosis kind, else its audit reason (or a request's
    new reason), else a ``not_held`` row's recorded verdict, else its status (docs/recheck-rules.md, "Statuses")."""
    diagnosis = row.get("diagnosis")
    if diagnosis:
        return diagnosis["kind"]
    reason = row.get("audit_reason") or row.get("new_reason")
    if reason:
        return reason
    return str(row["verdict"]) if row["status"] == "not_held" else row["status"]
