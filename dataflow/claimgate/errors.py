"""Refusals with stable reason codes.

Every refusal in claimgate is one of three exception types, each carrying a short
snake_case ``reason`` (part of the interface: never prose, never renamed lightly)
and a human ``detail``:

- ``IngestionError``: the pinned inputs cannot be trusted (manifest, source files,
  case or citation tables). The whole run is refused.
- ``GateError``: one request (case row) is invalid. Only that case is refused.
- ``DirectiveError``: an eligible source declares a directive-like line that the
  claim schema does not accept. Only the cases using that source are refused.

``ExecutionError`` is not a refusal: the run's executor failed (a worker or the Dask
scheduler was lost) and nothing was written; the command exits 4.
"""

from __future__ import annotations

#: The longest refusal detail kept (characters): a longer one is cut, saying how long it was, so a hostile
#: input (a 1 MB id, a 2,000-value enumeration) cannot make every refusal of a run that large.
MAX_DETAIL_CHARS = 1000


def bounded_detail(detail: str) -> str:
    """``detail`` itself when at most :data:`MAX_DETAIL_CHARS` long, else its head and its length, in that bound."""
    if len(detail) <= MAX_DETAIL_CHARS:
        return detail
    tail = f"... ({len(detail)} characters)"
    return detail[: MAX_DETAIL_CHARS - len(tail)] + tail


class ClaimgateError(Exception):
    """Base class: a refusal with a stable ``reason`` code and a ``detail`` string (at most ``MAX_DETAIL_CHARS``)."""

    kind = "ClaimgateError"

    def __init__(self, reason: str, detail: str = "") -> None:
        detail = bounded_detail(detail)
        self.reason = reason
        self.detail = detail
        super().__init__(f"{reason}: {detail}" if detail else reason)

    def one_line(self) -> str:
        """``<Kind>: <reason>: <detail>`` on one line (newlines in the detail escaped)."""
        detail = self.detail.replace("\r", "\\r").replace("\n", "\\n")
        return f"{self.kind}: {self.reason}: {detail}" if detail else f"{self.kind}: {self.reason}"

    def as_result(self) -> dict:
        """The refused-result object: ``{status, error, reason, answer_request}``."""
        return {
            "status": "refused",
            "error": self.kind,
            "reason": self.reason,
            "answer_request": None,
        }


class IngestionError(ClaimgateError):
    """Pinned inputs failed verification; the whole run is refused."""

    kind = "IngestionError"


class GateError(ClaimgateError):
    """A single request (case) is invalid; that case alone is refused."""

    kind = "GateError"


class DirectiveError(ClaimgateError):
    """An eligible source declares a directive the schema rejects; its cases are refused."""

    kind = "DirectiveError"


class ExecutionError(ClaimgateError):
    """The run's executor failed: a worker died (``worker_lost``), the scheduler went away (``scheduler_lost``),
    or the command's own process ran out of memory (``out_of_memory``)."""

    kind = "ExecutionError"


class UsageError(Exception):
    """A command-line usage problem (exit status 2), such as an unsupported output extension."""


class OutputError(UsageError):
    """The output cannot be written where asked (a folder, a file where a folder should be, no permission)."""
