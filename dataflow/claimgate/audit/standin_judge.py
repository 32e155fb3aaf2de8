"""An offline stand-in for a model judge, for demos and tests. It is not a model.

``judge(system, user)`` follows the judge contract of ``claimgate.audit.judge``: it reads
the claim and quote from the delimited user message and answers JSON. Its rule is
deliberately simple and says so in its reasoning: ``supports`` when every number in
the claim appears in the quote, otherwise ``partial``. Each call is counted in
``CALLS`` (per process), so a run can show how many citations reached "the model".

Use it from the command line as ``--judge claimgate.audit.standin_judge:judge``.
"""

from __future__ import annotations

import json
import re

CALLS = {"count": 0}
_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def _between(text: str, tag: str) -> str:
    start = text.find(f"<<<{tag}")
    end = text.find(f"{tag}>>>")
    if start == -1 or end == -1:
        return ""
    return text[text.index("\n", start) + 1 : end]


def judge(system: str, user: str) -> str:
    """Answer one judgment as JSON (``supports`` / ``partial``); counts the call."""
    CALLS["count"] += 1
    claim, quote = _between(user, "CLAIM"), _between(user, "QUOTE")
    numbers = set(_NUMBER.findall(claim))
    missing = sorted(n for n in numbers if n not in set(_NUMBER.findall(quote)))
    if missing:
        verdict, reasoning = "partial", f"offline stand-in: claim numbers {missing} are not in the quote"
    else:
        verdict, reasoning = "supports", "offline stand-in: every number in the claim appears in the quote"
    return json.dumps({"reasoning": reasoning, "verdict": verdict, "confidence": 0.5})


def reset() -> None:
    """Set the call counter back to zero."""
    CALLS["count"] = 0
