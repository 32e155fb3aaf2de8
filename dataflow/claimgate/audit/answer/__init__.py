"""The answer audit: a whole generated answer checked claim by claim, accepted or refused.

Lives inside the audit's room because it is the audit applied to an answer: its citation
rows go through the audit's own nodes (``audit.stages``) unchanged, so the verbatim rules,
the diagnosis and the fail-closed judge are the audit's. ``sentences.py`` (the splitter),
``formats.py`` (plain and Anthropic answers), ``claims.py`` (offsets, statuses, verdict,
renderings) hold the rules; ``stages.py`` and ``loading.py`` are the Hamilton nodes.
Rules: docs/answer-rules.md.
"""

from __future__ import annotations

from types import ModuleType


def dataflow_modules() -> tuple[ModuleType, ...]:
    """The Hamilton modules from an answer document to ``answer_result`` (config ``document_source``).

    ``(io.pinned_sources, audit.loading, audit.stages, audit.answer.stages)``; add
    ``audit.answer.loading`` to read the answer from ``answer_path``, or provide ``answer_document``
    (a parsed JSON answer) from your own node.
    """
    from claimgate.audit import loading, stages
    from claimgate.audit.answer import stages as answer_stages
    from claimgate.io import pinned_sources

    return (pinned_sources, loading, stages, answer_stages)
