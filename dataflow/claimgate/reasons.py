"""Every reason code claimgate can emit, in one registry.

Why: a reason code is part of the interface (a short snake_case string, never prose,
never renamed lightly), and a caller deciding what to do with a result needs to know,
for each code, how much it refuses and what it gives. ``reason_codes.toml`` beside this module
holds that as data, read here into one ``Reason`` per code, with the ``Outcome`` it gives (its **scope**: the whole
``run``, one ``source``'s cases, one ``case`` or one ``citation``; the gate's status or
the audit's verdict; and the exception kind when one is raised), a one-line meaning
and the documentation sections that state its rule.

What it refuses to do: register a code the code cannot emit, or a code nobody
documented. ``tests/test_reason_codes.py`` reads every module of the package for
string literals in reason positions and checks each is registered, checks every
registered section exists and names its code, and produces every registered code
through the public entry points. ``docs/reason-codes.md`` is generated from here
(``python -m claimgate.reasons > docs/reason-codes.md``; a test holds the two equal).

A leaf: imports nothing from claimgate, so any layer may read it.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from importlib import resources

#: How much a code refuses or decides, widest first.
SCOPES = ("run", "source", "case", "citation", "answer", "claim")
#: A gate case's status (docs/gate-rules.md, "Decision order"); a refused run is ``refused`` too.
GATE_STATUSES = ("ready", "not_in_docs", "conflict", "refused")
#: The audit's verdicts of one citation (the verbatim gate's, before any judge).
AUDIT_VERDICTS = ("found", "misattributed", "not_found", "insufficient_quote", "invalid_citation")
#: An answer's verdict and the status of one of its claims (docs/answer-rules.md); what each scope's outcomes give.
ANSWER_VERDICTS, CLAIM_STATUSES = ("accepted", "refused"), ("supported", "unsupported", "uncited")
GIVES_BY_SCOPE = dict(zip(SCOPES, (*[GATE_STATUSES] * 3, AUDIT_VERDICTS, ANSWER_VERDICTS, CLAIM_STATUSES)))
#: How a ``found`` or ``misattributed`` quote matched (``None`` otherwise): the audit row's ``match_kind``.
MATCH_KINDS = ("exact", "elided", "bracketed")
#: The exceptions that carry a reason code (``claimgate.errors``).
ERROR_KINDS = ("IngestionError", "GateError", "DirectiveError", "ExecutionError")


@dataclass(frozen=True)
class Outcome:
    """What a code gives: its ``scope`` (``SCOPES``), a status or verdict, and the exception raised ("" when none)."""

    scope: str
    gives: str
    error: str = ""

    def __str__(self) -> str:
        return f"{self.gives} ({self.error})" if self.error else self.gives


@dataclass(frozen=True)
class Reason:
    """One reason code: its outcomes (most codes have one), a one-line meaning, where it is documented.

    ``docs`` are ``"<page>#<anchor>"`` (page relative to the repository root, GitHub-style
    anchor of the section that states the rule), the first the main one.
    """

    code: str
    outcomes: tuple[Outcome, ...]
    meaning: str
    docs: tuple[str, ...]

    @property
    def scopes(self) -> tuple[str, ...]:
        """The scopes of the outcomes, each once, in ``SCOPES`` order."""
        return tuple(s for s in SCOPES if any(o.scope == s for o in self.outcomes))

    @property
    def gives(self) -> tuple[str, ...]:
        """The statuses or verdicts of the outcomes, each once, in outcome order."""
        return tuple(dict.fromkeys(o.gives for o in self.outcomes))

    @property
    def errors(self) -> tuple[str, ...]:
        """The exception kinds raised with this code, each once ("" omitted)."""
        return tuple(dict.fromkeys(o.error for o in self.outcomes if o.error))


def _registry() -> tuple[Reason, ...]:
    """The registry's data: ``reason_codes.toml`` beside this module, one ``[[reason]]`` table per code."""
    text = resources.files("claimgate").joinpath("reason_codes.toml").read_text(encoding="utf-8")
    return tuple(
        Reason(entry["code"], tuple(Outcome(**o) for o in entry["outcomes"]), entry["meaning"], tuple(entry["docs"]))
        for entry in tomllib.loads(text)["reason"]
    )


#: Every registered code, in registry order (widest scope first), from ``reason_codes.toml``.
REASONS: tuple[Reason, ...] = _registry()

_BY_CODE = {r.code: r for r in REASONS}
assert len(_BY_CODE) == len(REASONS), "a reason code is registered twice"


def reason(code: str) -> Reason:
    """The registered ``Reason`` of ``code``; raises ``KeyError`` naming the code when it is not registered."""
    try:
        return _BY_CODE[code]
    except (KeyError, TypeError):
        raise KeyError(
            f"{code!r} is not a registered reason code (see claimgate.reasons, docs/reason-codes.md)"
        ) from None


def codes(scope: str | None = None) -> tuple[str, ...]:
    """Every registered code in registry order, or those with an outcome of ``scope`` (one of ``SCOPES``).

    Raises ``ValueError`` for a scope that is not one of ``SCOPES``.
    """
    if scope is None:
        return tuple(_BY_CODE)
    if scope not in SCOPES:
        raise ValueError(f"unknown scope {scope!r}: use one of {', '.join(SCOPES)}")
    return tuple(r.code for r in REASONS if scope in r.scopes)


def _link(doc: str) -> str:
    """A Markdown link from ``docs/`` to ``doc`` (``page#anchor``, page relative to the repository root)."""
    page, _, anchor = doc.partition("#")
    target = page[len("docs/") :] if page.startswith("docs/") else f"../{page}"
    return f"[{page.rsplit('/', 1)[-1]}#{anchor}]({target}#{anchor})"


def markdown_table() -> str:
    """The registry as a Markdown table: code, scope, gives, meaning, where documented (one row per code)."""
    lines = ["| code | scope | gives | meaning | where documented |", "|---|---|---|---|---|"]
    for r in REASONS:
        scope = ", ".join(r.scopes)
        gives = "; ".join(dict.fromkeys(f"{o.scope}: {o}" if len(r.scopes) > 1 else str(o) for o in r.outcomes))
        docs = "<br>".join(_link(doc) for doc in r.docs)
        lines.append(f"| `{r.code}` | {scope} | {gives} | {r.meaning} | {docs} |")
    return "\n".join(lines) + "\n"


def _listed(words: tuple[str, ...]) -> str:
    return ", ".join(f"`{word}`" for word in words)


def markdown_page() -> str:
    """The text of ``docs/reason-codes.md``: a short introduction, the counts by scope, the table."""
    counts = ", ".join(f"{len(codes(s))} {s}" for s in SCOPES)
    return (
        "# Reason codes\n\n"
        "Every reason code claimgate can emit, generated from the registry `claimgate.reasons`\n"
        "(`python -m claimgate.reasons > docs/reason-codes.md`; a test holds this page equal to it).\n"
        "A code is part of the interface: a short snake_case string, never prose, never renamed lightly.\n\n"
        "- **scope**: how much the code refuses or decides: `run` (the whole run, nothing is decided),\n"
        "  `source` (every case using that source), `case` (that case alone), `citation` (that citation row),\n"
        "  `answer` (a whole generated answer), `claim` (one claim of an answer).\n"
        f"- **gives**: the gate's status ({_listed(GATE_STATUSES)}), the audit's verdict ({_listed(AUDIT_VERDICTS)}),\n"
        f"  the answer's verdict ({_listed(ANSWER_VERDICTS)}) or a claim's status ({_listed(CLAIM_STATUSES)}),\n"
        f"  with the exception kind where one is raised ({_listed(ERROR_KINDS)}).\n"
        "- **where documented**: the sections that state the rule.\n\n"
        f"A `found` or `misattributed` row also says how its quote matched (`match_kind`): {_listed(MATCH_KINDS)}.\n\n"
        f"{len(REASONS)} codes ({counts}; a code with two scopes counts in both).\n\n" + markdown_table()
    )


if __name__ == "__main__":
    print(markdown_page(), end="")
