"""The optional skeptical judge: one model call per quote that exists, failing closed.

Why: a quote that exists verbatim can still be cited for a claim it does not
support (a weaker population, the opposite direction, a smaller effect, a hedge
dropped). A model can judge that; the verbatim gate cannot. So the judge runs only
after the gate, and only on ``found`` citations: fabricated, misattributed and
too-short quotes are rejected for free and never reach it.

Contract (docs/audit-rules.md, "The judge"): the caller supplies ``llm_call(system: str, user: str) -> str``,
loaded from the command line as ``--judge package.module:function``. The answer must
contain a JSON object ``{"reasoning": str, "verdict": str, "confidence": number}``
with ``verdict`` in ``supports, partial, unrelated, contradicts`` and ``0 <=
confidence <= 1``.

Fails closed: an exception (any, even ``SystemExit``; only ``KeyboardInterrupt``
stops the run), a non-string answer, text with no JSON object, a missing
or non-string ``reasoning``, an out-of-vocabulary verdict, or a confidence that is
not a number in 0–1 all give ``unrelated`` with confidence 0 and the failure named
in ``reasoning``. A failure is never retried into a better answer.
"""

from __future__ import annotations

import importlib
import json
import math
from collections.abc import Callable, Mapping, Sequence

JUDGE_VERDICTS = ("supports", "partial", "unrelated", "contradicts")
#: Characters of source text shown around the quoted span(s) when a document is longer than this.
SOURCE_CONTEXT_CHARS = 4_000

SYSTEM_PROMPT = """You are a skeptical reviewer of citations. A writer made a CLAIM and quoted a \
passage from a SOURCE to support it. The quote has already been checked: it exists verbatim in the \
source. Your only question is whether the quoted source supports the claim.

Rules:
- The burden of proof is on the citation. Your default verdict is that the claim is not supported.
- Judge only from the SOURCE text given below. Outside knowledge is inadmissible, however well known.
- "supports" requires the source to state the claim at full strength: the same population or scope, \
the same direction of effect, the same magnitude or number, and the same certainty (no hedge such as \
"may", "in some cases" or "preliminary" dropped). If any of these is weaker, broader, or missing in \
the source, the verdict is at most "partial".
- "contradicts" when the source states the opposite of the claim; "unrelated" when it does not bear \
on the claim.
- When you hesitate between two verdicts, choose the one less favourable to the claim.

Answer with one JSON object and nothing else:
{"reasoning": "<one or two sentences>", "verdict": "supports" | "partial" | "unrelated" | "contradicts", \
"confidence": <number from 0 to 1>}"""


def user_message(claim: str, quote: str, doc_id: str, source_text: str, spans: Sequence[Mapping]) -> str:
    """The user message: claim, quote and cited source, each between explicit delimiters.

    A source longer than ``SOURCE_CONTEXT_CHARS`` characters is cut to the matched
    span(s) with up to half that many characters of context on each side, and the
    cut is said in the message (offsets are character offsets into the document).
    """
    if len(source_text) <= SOURCE_CONTEXT_CHARS or not spans:
        excerpt, note = source_text, "full text"
    else:
        half = SOURCE_CONTEXT_CHARS // 2
        start = max(0, min(s["start"] for s in spans) - half)
        end = min(len(source_text), max(s["end"] for s in spans) + half)
        excerpt, note = source_text[start:end], f"characters {start}-{end} of {len(source_text)}"
    return (
        "<<<CLAIM\n" + claim + "\nCLAIM>>>\n\n"
        "<<<QUOTE\n" + quote + "\nQUOTE>>>\n\n"
        f"<<<SOURCE id={doc_id} ({note})\n" + excerpt + "\nSOURCE>>>"
    )


def _failure(kind: str, detail: str) -> dict:
    return {"reasoning": f"judge_failed: {kind}: {detail}"[:500], "verdict": "unrelated", "confidence": 0.0}


def _first_json_object(text: str) -> dict | None:
    """The first JSON object embedded in ``text`` (``None`` when there is none)."""
    decoder = json.JSONDecoder()
    position = text.find("{")
    while position != -1:
        try:
            value, _ = decoder.raw_decode(text, position)
        except json.JSONDecodeError:
            value = None
        if isinstance(value, dict):
            return value
        position = text.find("{", position + 1)
    return None


def parse_judgment(answer: object) -> dict:
    """Validate a judge's raw answer; return ``{"reasoning", "verdict", "confidence"}``.

    Never raises: every malformed answer becomes ``unrelated`` / ``0.0`` with the
    failure named in ``reasoning`` (``judge_failed: <kind>: <detail>``).
    """
    if not isinstance(answer, str):
        return _failure("non_string_answer", type(answer).__name__)
    document = _first_json_object(answer)
    if document is None:
        return _failure("no_json_object", answer[:120])
    reasoning = document.get("reasoning")
    if not isinstance(reasoning, str):
        return _failure("missing_reasoning", repr(reasoning)[:80])
    verdict = document.get("verdict")
    if verdict not in JUDGE_VERDICTS:
        return _failure("out_of_vocabulary_verdict", repr(verdict)[:80])
    confidence = document.get("confidence")
    if isinstance(confidence, bool) or not isinstance(confidence, int | float) or not math.isfinite(confidence):
        return _failure("invalid_confidence", repr(confidence)[:80])
    if not 0.0 <= confidence <= 1.0:
        return _failure("confidence_out_of_range", repr(confidence))
    return {"reasoning": reasoning, "verdict": verdict, "confidence": float(confidence)}


def judge_citation(
    llm_call: Callable[[str, str], object],
    claim: str,
    quote: str,
    doc_id: str,
    source_text: str,
    spans: Sequence[Mapping],
) -> dict:
    """Call the judge once for one found citation; return its validated judgment (fails closed)."""
    try:
        answer = llm_call(SYSTEM_PROMPT, user_message(claim, quote, doc_id, source_text, spans))
    except KeyboardInterrupt:  # the person running the audit stops it; that is not the judge's answer
        raise
    except BaseException as exc:  # noqa: BLE001 - even SystemExit from a judge is a failed judgment, never a crash
        return _failure("exception", f"{type(exc).__name__}: {exc}")
    return parse_judgment(answer)


def load_judge(spec: str) -> Callable[[str, str], object]:
    """Import ``package.module:function`` and return the callable.

    Raises ``ValueError`` with a one-line reason when the spec has no ``:``, the
    module cannot be imported, the attribute is missing, or it is not callable.
    """
    module_name, sep, attribute = spec.partition(":")
    if not sep or not module_name or not attribute:
        raise ValueError(f"--judge must look like package.module:function, got {spec!r}")
    try:
        module = importlib.import_module(module_name)
    except Exception as exc:
        raise ValueError(f"--judge: cannot import {module_name!r}: {type(exc).__name__}: {exc}") from None
    target: object = module
    for part in attribute.split("."):
        if not hasattr(target, part):
            raise ValueError(f"--judge: {module_name!r} has no attribute {attribute!r}")
        target = getattr(target, part)
    if not callable(target):
        raise ValueError(f"--judge: {spec!r} is not callable")
    return target
