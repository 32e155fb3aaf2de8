"""The review page: one self-contained HTML file a person reads to check an audit, an answer or a gate run.

``audit_page`` (one card per citation), ``answer_page`` (the answer with each claim coloured by
status, then its citations' cards), ``gate_page`` (each case's claims, conflicting directive
lines and decision picture). Filters by verdict and reason run in an inline script; nothing is
loaded from the network, and everything from inputs is escaped (``page.escaped``). Layer 3:
reads the audit's and gate's results and ``claimgate.pictures``, never the command line.
"""

from __future__ import annotations

from claimgate.report.views import answer_page, audit_page, gate_page

__all__ = ["answer_page", "audit_page", "gate_page"]
