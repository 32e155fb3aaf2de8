"""How much evidence a quote needs and how much work matching it may take.

Why this module exists: the matcher and the orchestrator read the same settings,
which travel as one frozen object. Rules: docs/audit-rules.md, "Minimum evidence"
and "Cost".
"""

from __future__ import annotations

from dataclasses import dataclass

from claimgate.audit.matching.alignment import MATCH_STEP_LIMIT


@dataclass(frozen=True)
class MatchSettings:
    """How much evidence a quote needs and how much work matching it may take.

    ``min_tokens``: fewest normalized tokens a quote needs (all fragments together);
    ``min_fragment_tokens``: fewest per ellipsis fragment (see docs/audit-rules.md,
    "Minimum evidence"); ``window_chars``: largest span, in original document
    characters, from the first fragment's first character to the last fragment's
    last character (only for quotes with an ellipsis); ``max_steps``: most matching
    steps per reading of the quote per document (see docs/audit-rules.md, "Cost").
    """

    min_tokens: int = 4
    min_fragment_tokens: int = 3
    window_chars: int = 2000
    max_steps: int = MATCH_STEP_LIMIT

    def __post_init__(self) -> None:
        """Raises ``ValueError`` naming the first setting that is not a whole number of at least 1 (``max_steps``:
        at least 0, a budget that refuses every match as ``match_too_complex``)."""
        for name, least in (("min_tokens", 1), ("min_fragment_tokens", 1), ("window_chars", 1), ("max_steps", 0)):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(f"{name} must be a whole number of at least {least}, not {value!r}")
