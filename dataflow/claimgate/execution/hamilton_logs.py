"""Hamilton's error banner, kept off stderr for claimgate's own refusals (docs/python-api.md, "Refusals").

When a node raises, Hamilton logs at ERROR a block naming the node's inputs with the traceback
(logger ``hamilton.execution.graph_functions``) and a "Need help with Hamilton?" line (logger
``hamilton.driver``). A claimgate refusal is a ``ClaimgateError`` whose reason and detail already
say everything, so ``RefusalFilter`` drops those records, and only those: a record is dropped when
the exception it carries, or the one being handled while it is logged, is a ``ClaimgateError``.
The user's own Hamilton runs, other exceptions, other loggers and every handler are left as they are.
"""

from __future__ import annotations

import logging
import sys

from claimgate.errors import ClaimgateError

#: The loggers Hamilton prints a failed run's banner through (the filter is added to each, once).
HAMILTON_ERROR_LOGGERS = ("hamilton.execution.graph_functions", "hamilton.driver", "hamilton.execution.executors")


class RefusalFilter(logging.Filter):
    """Drops a Hamilton log record about a ``ClaimgateError`` unless ``show`` (the command line's ``--debug``)."""

    show = False

    def filter(self, record: logging.LogRecord) -> bool:
        """``False`` (drop) for a record whose exception, or the exception being handled, is a refusal."""
        if RefusalFilter.show:
            return True
        exc = record.exc_info[1] if record.exc_info else sys.exc_info()[1]
        return not isinstance(exc, ClaimgateError)


def quiet_refusals(show: bool | None = None) -> None:
    """Add ``RefusalFilter`` to ``HAMILTON_ERROR_LOGGERS`` (idempotent); ``show=True`` lets refusals through.

    ``None`` leaves ``show`` as it is: importing ``execution.drivers`` after the command line's
    ``--debug`` was applied (commands are imported lazily) does not hide the refusals again.
    """
    if show is not None:
        RefusalFilter.show = show
    for name in HAMILTON_ERROR_LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(existing, RefusalFilter) for existing in logger.filters):
            logger.addFilter(RefusalFilter())


def quiet_hamilton_logs(debug: bool = False) -> None:
    """Keep Hamilton's own error banner off stderr unless ``debug`` (refusals print one line).

    Needs no import of Hamilton: it sets the level of the ``hamilton`` logger, which Hamilton's loggers inherit.
    """
    logging.getLogger("hamilton").setLevel(logging.DEBUG if debug else logging.CRITICAL)
    quiet_refusals(show=debug)
