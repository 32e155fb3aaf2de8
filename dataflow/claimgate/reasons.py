"""Every reason code claimgate can emit, in one registry.

Why: a reason code is part of the interface (a short snake_case string, never prose,
never renamed lightly), and a caller deciding what to do with a result needs to know,
for each code, how much it refuses and what it gives. This module holds that as data:
one ``Reason`` per code, with the ``Outcome`` it gives (its **scope**: the whole
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

from dataclasses import dataclass

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


_RUN = (Outcome("run", "refused", "IngestionError"),)
_EXECUTOR = (Outcome("run", "refused", "ExecutionError"),)
_SOURCE = (Outcome("source", "refused", "DirectiveError"),)
_REQUEST = (Outcome("case", "refused", "GateError"),)
_ACCEPTED, _REFUSED_ANSWER = (Outcome("answer", "accepted"),), (Outcome("answer", "refused"),)
_SUPPORTED, _UNSUPPORTED, _UNCITED = ((Outcome("claim", status),) for status in CLAIM_STATUSES)


def _case(status: str) -> tuple[Outcome, ...]:
    return (Outcome("case", status),)


def _citation(*verdicts: str) -> tuple[Outcome, ...]:
    return tuple(Outcome("citation", verdict) for verdict in verdicts)


_SOURCES = "docs/gate-rules.md#manifest-and-sources"
_PINNING = "docs/gate-rules.md#pinning"
_FOLDER = "docs/documents.md#refusals"
_REFUSED = "README.md#what-is-refused-and-why"
_REQUESTS = "docs/gate-rules.md#request-checks"
_VERSIONS = "docs/gate-rules.md#versions"
_DIRECTIVES = "docs/gate-rules.md#directives"
_ORDER = "docs/gate-rules.md#decision-order"
_AUDIT = "docs/audit-rules.md#verdicts-and-reason-codes"
_NEGATION = "docs/audit-rules.md#negation"
_MARKS = "docs/audit-rules.md#ellipses-and-brackets"
_DECIDING = "docs/audit-rules.md#deciding-words"
_VALUES = "docs/audit-rules.md#brackets-in-code-and-values"
_EVIDENCE = "docs/audit-rules.md#minimum-evidence"
_LEDGER = "docs/recheck-rules.md#refusals"
_ANSWER_FORMATS, _CLAIMS = "docs/answer-rules.md#answer-formats", "docs/answer-rules.md#claims-and-the-answers-verdict"

#: Every reason code, widest scope first; within a scope in the order the checks run.
REASONS: tuple[Reason, ...] = (
    # --- the whole run (IngestionError): inputs that cannot be trusted ---
    Reason(
        "invalid_manifest",
        _RUN,
        "the manifest is not JSON, has the wrong shape, or a field that is not a non-empty string (or a path "
        "with a backslash)",
        (_SOURCES, _REFUSED),
    ),
    Reason(
        "duplicate_source_id", _RUN, "two entries (or two files given to pin) share one source id", (_SOURCES, _PINNING)
    ),
    Reason("invalid_sha256", _RUN, "a pinned hash is not 64 lowercase hex digits", (_SOURCES,)),
    Reason(
        "path_outside_root",
        _RUN,
        "a path is absolute, has a `..` component, or a link resolves outside the manifest's (or corpus) folder",
        (_SOURCES, _FOLDER),
    ),
    Reason(
        "not_a_regular_file",
        _RUN,
        "a `--corpus-dir` entry is a FIFO, socket, device, dangling link or link loop, or a page was swapped for "
        "one after the listing",
        (_FOLDER,),
    ),
    Reason("missing_source", _RUN, "a listed file does not exist or is not a regular file", (_SOURCES,)),
    Reason(
        "duplicate_source_path",
        _RUN,
        "two entries reach the same file (same path, or a link to it)",
        (_SOURCES, _PINNING),
    ),
    Reason("source_too_large", _RUN, "a pinned file is over `--max-source-bytes` (16 MiB)", (_SOURCES,)),
    Reason(
        "corpus_too_large",
        _RUN,
        "the pinned files together, or a corpus file, are over `--max-corpus-bytes` (64 MiB)",
        (_SOURCES, _REFUSED),
    ),
    Reason("hash_mismatch", _RUN, "a file's bytes are not the pinned bytes", (_SOURCES,)),
    Reason("invalid_encoding", _RUN, "a pinned file is not strict UTF-8", (_SOURCES,)),
    Reason(
        "invalid_schema",
        _RUN,
        "the claim schema TOML is missing, unreadable or not valid",
        ("docs/gate-rules.md#claim-schemas",),
    ),
    Reason(
        "invalid_case_table",
        _RUN,
        "the case table cannot be read or parsed (the line is named)",
        ("docs/gate-rules.md#case-tables", _REFUSED),
    ),
    Reason("invalid_answer", _RUN, "the answer or its documents list cannot be read or parsed", (_ANSWER_FORMATS,)),
    Reason(
        "invalid_citation_table", _RUN, "the citation table cannot be read or parsed (the line is named)", (_REFUSED,)
    ),
    Reason(
        "invalid_corpus",
        _RUN,
        "the corpus is not a JSON object of strings, or a corpus folder is missing or has no matching file",
        (_FOLDER, _REFUSED),
    ),
    Reason(
        "unsupported_document",
        _RUN,
        "a PDF in a corpus folder while the `pdf` extra is not installed (a file with no extractor is skipped)",
        (_FOLDER,),
    ),
    Reason("unreadable_document", _RUN, "a file of a corpus folder cannot be read or decoded", (_FOLDER,)),
    Reason(
        "document_too_large",
        _RUN,
        "one corpus document is over `--max-source-bytes` (16 MiB) in UTF-8, or a PDF over its page or text bounds",
        (_FOLDER, _REFUSED),
    ),
    Reason(
        "document_too_deep",
        _RUN,
        "an HTML page nests elements more than 1,024 deep, or a PDF nests objects deeper than its reader can follow",
        (_FOLDER, _REFUSED),
    ),
    Reason(
        "worker_lost",
        _EXECUTOR,
        "an executor's worker died mid-run (killed, out of memory); exit 4, nothing written",
        (_REFUSED,),
    ),
    Reason(
        "scheduler_lost",
        _EXECUTOR,
        "the Dask scheduler went away mid-run; exit 4, nothing written",
        (_REFUSED,),
    ),
    Reason(
        "invalid_source_version",
        (*_REQUEST, Outcome("run", "refused", "IngestionError")),
        "a version that is not a version of the schema's scheme: a candidate's"
        " pinned version (that case), or `pin --version` (the pin)",
        (_REQUESTS, _VERSIONS, _PINNING),
    ),
    # --- one source's cases (DirectiveError): a directive the schema does not accept ---
    Reason(
        "malformed_directive",
        _SOURCE,
        "a directive-like line does not read `<prefix> <operation> <key>=<value>` in full",
        (_DIRECTIVES,),
    ),
    Reason(
        "unsupported_operation", _SOURCE, "a directive names an operation the schema does not declare", (_DIRECTIVES,)
    ),
    Reason("unsupported_claim_key", _SOURCE, "a directive names a key the operation does not declare", (_DIRECTIVES,)),
    Reason("unknown_directive_value", _SOURCE, "a directive's value is not in the key's enumeration", (_DIRECTIVES,)),
    Reason(
        "wrong_value_type",
        _SOURCE,
        "a directive's value is not a value of its typed key (bool, number, integer, string and its pattern)",
        ("docs/gate-rules.md#typed-values",),
    ),
    Reason("duplicate_directive", _SOURCE, "one source declares the same operation and key twice", (_DIRECTIVES,)),
    # --- one case (GateError for the request checks, then the decisions) ---
    Reason(
        "invalid_case",
        _REQUEST,
        "the row is not an object, or its `case_id` is missing, empty or repeated",
        (_REQUESTS, "docs/gate-rules.md#case-tables"),
    ),
    Reason("invalid_candidate_ids", _REQUEST, "`candidate_ids` is not a list of non-empty strings", (_REQUESTS,)),
    Reason("duplicate_candidate", _REQUEST, "a candidate is listed twice", (_REQUESTS,)),
    Reason(
        "invalid_requested_version",
        _REQUEST,
        "`requested_version` is not a string, or not a version of the schema's scheme",
        (_REQUESTS, _VERSIONS),
    ),
    Reason("missing_operation", _REQUEST, "no `operation`, and the schema declares several", (_REQUESTS,)),
    Reason("unsupported_requested_operation", _REQUEST, "the `operation` is not declared by the schema", (_REQUESTS,)),
    Reason("unsupported_requested_claim", _REQUEST, "`claim_key` is not a key of the operation", (_REQUESTS,)),
    Reason("unknown_candidate", _REQUEST, "a candidate id is not in the manifest", (_REQUESTS,)),
    Reason(
        "no_eligible_version",
        _case("not_in_docs"),
        "no candidate has the requested version, exactly",
        (_ORDER, "docs/gate-rules.md#version-selection"),
    ),
    Reason(
        "requested_claim_missing",
        _case("not_in_docs"),
        "an eligible source does not declare the requested (operation, key): silence is not agreement",
        (_ORDER,),
    ),
    Reason(
        "same_version_directives_disagree",
        _case("conflict"),
        "the eligible sources declare different values; the gate never picks one",
        (_ORDER,),
    ),
    Reason(
        "eligible_directives_agree",
        _case("ready"),
        "every eligible source declares the key and all values agree",
        (_ORDER,),
    ),
    # --- one citation (the audit's verbatim gate) ---
    Reason("verbatim_match", _citation("found"), "the quote is in the cited document", (_AUDIT,)),
    Reason(
        "verbatim_match_at_deciding_word",
        _citation("found"),
        "the quote is in the cited document, but starts right after or ends right before a negation or a "
        "deciding word it leaves out (a context warning)",
        (_DECIDING,),
    ),
    Reason(
        "found_in_other_document",
        _citation("misattributed"),
        "not in the cited document, but in the documents listed in `matched_doc_ids`",
        (_AUDIT,),
    ),
    Reason(
        "unknown_cited_document",
        _citation("misattributed", "not_found"),
        "the cited `doc_id` is not in the corpus (misattributed when the quote is in another document)",
        (_AUDIT,),
    ),
    Reason("no_verbatim_match", _citation("not_found"), "the quote is nowhere in the corpus", (_AUDIT,)),
    Reason(
        "elision_drops_negation",
        _citation("not_found"),
        "the only placements hide a negation behind an ellipsis",
        (_NEGATION, _MARKS),
    ),
    Reason(
        "bracket_drops_negation",
        _citation("not_found"),
        "the only placements hide a source negation behind bracketed text without one",
        (_NEGATION,),
    ),
    Reason(
        "bracket_inserts_negation",
        _citation("not_found"),
        "the only placements put a bracketed negation where the source has none",
        (_NEGATION,),
    ),
    Reason(
        "bracket_changes_number",
        _citation("not_found"),
        "the only placements put a bracketed number that is not among the source tokens it stands for",
        (_MARKS,),
    ),
    Reason(
        "bracket_replaces_value",
        _citation("not_found"),
        "the only placements put bracketed text for a source number, literal, identifier or symbol it does not repeat",
        (_VALUES,),
    ),
    Reason(
        "bracket_drops_bound",
        _citation("not_found"),
        "the only placements put bracketed text for a source bound or comparative (`up to`, `over`) it does not repeat",
        (_DECIDING,),
    ),
    Reason(
        "bracket_drops_condition",
        _citation("not_found"),
        "the only placements put bracketed text for a source condition or exception (`unless`) it does not repeat",
        (_DECIDING,),
    ),
    Reason(
        "elision_drops_bound",
        _citation("not_found"),
        "the only placements hide a bound or comparative next to the kept text behind an ellipsis",
        (_DECIDING,),
    ),
    Reason(
        "elision_drops_condition",
        _citation("not_found"),
        "the only placements hide a condition or exception (`unless`, `except`) behind an ellipsis",
        (_DECIDING,),
    ),
    Reason(
        "elision_moves_number",
        _citation("not_found"),
        "the only placements elide text holding a number next to a kept number (a number moved onto another subject)",
        (_DECIDING,),
    ),
    Reason(
        "elision_unchecked_script",
        _citation("not_found"),
        "the only placements elide or bracket text in a script with no negator list (fails closed)",
        (_NEGATION, _MARKS),
    ),
    Reason(
        "match_too_complex",
        _citation("not_found"),
        "matching the cited document would exceed the step limit (undecided, so refused)",
        (_MARKS,),
    ),
    Reason(
        "empty_quote",
        _citation("insufficient_quote"),
        "the quote has no token at all (empty, punctuation only, not a string)",
        (_AUDIT,),
    ),
    Reason(
        "too_few_tokens",
        _citation("insufficient_quote"),
        "fewer than `min_tokens` words of evidence (default 4)",
        (_EVIDENCE,),
    ),
    Reason(
        "fragment_too_short",
        _citation("insufficient_quote"),
        "an ellipsis fragment has fewer than `min_fragment_tokens` words (default 3)",
        (_EVIDENCE,),
    ),
    Reason(
        "quote_too_long",
        _citation("invalid_citation"),
        "the quote is over `MAX_QUOTE_CHARS` (65,536 characters); refused before any matching",
        (_AUDIT,),
    ),
    Reason(
        "invalid_citation",
        _citation("invalid_citation"),
        "the row is not an object, has no `citation_id` or `doc_id`, a non-string quote or claim, or a "
        "repeated `citation_id`",
        (_AUDIT, _REFUSED),
    ),
    Reason("every_claim_supported", _ACCEPTED, "every claim of the answer is supported", (_CLAIMS,)),
    Reason("uncited_connectives_allowed", _ACCEPTED, "all supported but uncited connectives (policy)", (_CLAIMS,)),
    Reason("claims_failed", _REFUSED_ANSWER, "a claim is unsupported or uncited (see `failing_claims`)", (_CLAIMS,)),
    Reason("no_claims", _REFUSED_ANSWER, "the answer holds no claim at all (fails closed)", (_CLAIMS,)),
    Reason("citations_found", _SUPPORTED, "cited, and every citation passed the audit at its place", (_CLAIMS,)),
    Reason("citation_rejected", _UNSUPPORTED, "a citation is not `found` (or a judge's is not `supports`)", (_CLAIMS,)),
    Reason("cited_text_not_at_offsets", _UNSUPPORTED, "`cited_text` is not at its stated offsets", (_CLAIMS,)),
    Reason("marker_without_citation", _UNSUPPORTED, "a `[n]` marker no citation of the answer carries", (_CLAIMS,)),
    Reason("no_citation", _UNCITED, "the claim cites nothing", (_CLAIMS,)),
    Reason("ledger_invalid", _RUN, "a ledger line is not JSON, not a ledger row of this schema, or no row", (_LEDGER,)),
    Reason("ledger_truncated", _RUN, "the ledger's last line has no newline (cut short)", (_LEDGER,)),
    Reason("ledger_row_edited", _RUN, "a ledger row's `row_sha256` does not match its fields", (_LEDGER,)),
    Reason("ledger_other_corpus", _RUN, "none of the ledger's documents is in today's corpus", (_LEDGER,)),
    Reason(
        "ledger_renamed_source", _RUN, "a ledger document is gone but its text is there under another id", (_LEDGER,)
    ),
)

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
