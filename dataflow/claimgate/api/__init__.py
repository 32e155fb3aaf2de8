"""The in-process API: ``Gate`` (before generation) and ``Audit`` (after it), loaded once, called many times.

Why: an assistant gates each request before it calls its model. Building a case file on disk and running
the command line re-reads and re-hashes every pinned source per call; here the manifest is verified and the
Hamilton driver is built once, and each call decides against what was verified.

What it refuses to do: decide against a pinned file that changed since it was verified. Before each
decision the pinned files of the case's candidates are checked again (a ``stat`` first; a re-hash only
when size or modification time moved) and a changed file refuses the call with the command line's
whole-run refusal, ``IngestionError`` ``hash_mismatch``. The rules are in docs/python-api.md.

Results are the command line's: ``Gate.decide`` returns the result object the ``gate`` command writes for
that case, ``Gate.decide_many`` the ``gate_results`` frame, ``Audit.check`` the audit's rows. Both products
run through the command line's own entry points, ``execution.drivers.run_gate`` and ``run_audit``, with one
``RunSettings`` built here.
"""

from claimgate.api.audit import Audit
from claimgate.api.gate import Gate

__all__ = ["Gate", "Audit"]
