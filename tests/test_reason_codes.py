"""One registry of reason codes (``claimgate.reasons``), held to the code, the docs and the tests.

- every code the code can emit is registered (an ``ast`` walk over every module of the package,
  ``tests/reason_sites.py``);
- every registered code is documented (each named section exists and names the code);
- every registered code, in each of its outcomes, is produced here through a public entry point
  (``claimgate.api.Gate``/``Audit`` or the command line) on a tiny input, with the scope, status or
  verdict and exception kind the registry says;
- ``docs/reason-codes.md`` is the registry's own table.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
import runpy
import sys
from pathlib import Path
from unittest import mock

import pytest
from claimgate import reasons
from claimgate.api import Audit, Gate
from claimgate.reasons import Outcome

from tests.helpers import char_citation, cli
from tests.reason_sites import reason_sites

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "dataflow" / "claimgate"
CODE_RE = re.compile(r"[a-z][a-z0-9]*(?:_[a-z0-9]+)+")


# --- the registry itself --------------------------------------------------------------


def test_every_code_is_stable_snake_case_and_registered_once():
    assert all(CODE_RE.fullmatch(code) for code in reasons.codes())
    assert len(set(reasons.codes())) == len(reasons.REASONS)


def test_every_outcome_names_a_known_scope_status_verdict_and_exception():
    for r in reasons.REASONS:
        assert r.outcomes and r.meaning and r.docs, r.code
        assert "\n" not in r.meaning and "|" not in r.meaning, r.code
        for outcome in r.outcomes:
            assert outcome.scope in reasons.SCOPES, r.code
            assert outcome.gives in reasons.GIVES_BY_SCOPE[outcome.scope], r.code
            assert outcome.error in ("", *reasons.ERROR_KINDS), r.code
            # a refusal raises; a decision and a verdict (a citation's, a claim's, an answer's) do not
            raises = outcome.scope in ("run", "source", "case") and outcome.gives == "refused"
            assert bool(outcome.error) == raises, r.code


def test_reason_looks_a_code_up_and_names_an_unknown_one():
    assert reasons.reason("hash_mismatch").outcomes == (Outcome("run", "refused", "IngestionError"),)
    with pytest.raises(KeyError, match="'hash_mismatched' is not a registered reason code"):
        reasons.reason("hash_mismatched")


def test_codes_by_scope():
    assert reasons.codes(scope="source") == (
        "malformed_directive",
        "unsupported_operation",
        "unsupported_claim_key",
        "unknown_directive_value",
        "wrong_value_type",
        "duplicate_directive",
    )
    assert "invalid_source_version" in reasons.codes(scope="run")
    assert "invalid_source_version" in reasons.codes(scope="case")
    assert set(reasons.codes()) == {c for s in reasons.SCOPES for c in reasons.codes(scope=s)}
    with pytest.raises(ValueError, match="unknown scope 'row'"):
        reasons.codes(scope="row")


def test_the_registry_is_a_leaf():
    tree = ast.parse((PACKAGE / "reasons.py").read_text(encoding="utf-8"))
    imported = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    imported += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [name for name in imported if name.split(".")[0] == "claimgate"]


def test_the_committed_page_is_the_registry():
    page = (ROOT / "docs" / "reason-codes.md").read_text(encoding="utf-8")
    assert page == reasons.markdown_page(), "regenerate: python -m claimgate.reasons > docs/reason-codes.md"


# --- every code the code can emit is registered -------------------------------------


def test_every_code_the_code_can_emit_is_registered():
    sites = reason_sites(PACKAGE)
    assert len(sites) > 50  # the walk found the emit sites (a moved package would find none)
    registered = set(reasons.codes())
    unregistered = sorted({f"{s.where}: {s.literal!r} ({s.rule})" for s in sites if s.literal not in registered})
    assert not unregistered, "register these in claimgate.reasons (an f-string shows as None):\n" + "\n".join(
        unregistered
    )


def test_every_registered_code_has_an_emit_site():
    emitted = {site.literal for site in reason_sites(PACKAGE)}
    assert [code for code in reasons.codes() if code not in emitted] == []


WALKED = """
from claimgate.errors import GateError, IngestionError
A_REASONS = ("in_a_table",)
SOME_CHECKS = ("in_checks",)
REASON = "module_reason"

def verdict_row(verdict, reason, kind):
    return {}

def check(row):
    return None, "returned_reason", ""

def short_reason(parsed):
    return "named_reason" if parsed else None

def f(x, rows):
    raise IngestionError("raised_code", "detail")
    raise GateError(f"{x}_formatted")
    decisions(x, reason="keyword_code")
    verdict_row("found", "placed_code", None)
    row = {"reason": "keyed_code", "status": "ready"}
    row["reason"] = "subscripted_code"
    operation, reason, detail = None, "unpacked_code", ""
    operation, reason, detail = check(x)
    if x["reason"] == "compared_code":
        pass
    out = []
    out.append(("invalid", "appended_code"))
    out.append((x["verdict"], x["reason"]))
    reason("looked_up_code")
    return {"reason": "str"}  # a dtype mapping: not a code
"""


def test_the_walk_sees_every_kind_of_reason_position(tmp_path):
    package = tmp_path / "claimgate"
    (package / "moved" / "deeper").mkdir(parents=True)
    (package / "moved" / "deeper" / "module.py").write_text(WALKED, encoding="utf-8")
    found = {site.literal for site in reason_sites(package)}
    assert found == {
        "in_a_table",
        "in_checks",
        "module_reason",
        "returned_reason",
        "named_reason",
        "raised_code",
        None,  # the f-string
        "keyword_code",
        "placed_code",
        "keyed_code",
        "subscripted_code",
        "unpacked_code",
        "compared_code",
        "appended_code",
        "looked_up_code",
    }


# --- every registered code is documented ----------------------------------------------


def github_anchor(heading: str) -> str:
    """GitHub's anchor of a Markdown heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def sections(page: Path) -> dict[str, str]:
    """``anchor -> text of the section`` (up to the next heading of the same or a higher level)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    headings = []
    fenced = False
    for number, line in enumerate(lines):
        if line.startswith(("```", "~~~")):
            fenced = not fenced
        elif not fenced and (match := re.match(r"(#{1,6}) (.*)", line)):
            headings.append((number, len(match[1]), github_anchor(match[2])))
    found: dict[str, str] = {}
    for i, (start, level, anchor) in enumerate(headings):
        end = next((n for n, lv, _ in headings[i + 1 :] if lv <= level), len(lines))
        name, k = anchor, 1
        while name in found:  # GitHub numbers a repeated anchor
            name, k = f"{anchor}-{k}", k + 1
        found[name] = "\n".join(lines[start:end])
    return found


@pytest.mark.parametrize("code", reasons.codes())
def test_every_registered_code_is_documented_where_the_registry_says(code):
    for doc in reasons.reason(code).docs:
        page, _, anchor = doc.partition("#")
        assert page == "README.md" or page.startswith("docs/"), doc
        found = sections(ROOT / page)
        assert anchor in found, f"{doc}: no such section (anchors: {sorted(found)})"
        assert f"`{code}`" in found[anchor], f"{doc} does not name `{code}`"


def test_anchors_follow_github():
    assert github_anchor("What is refused, and why") == "what-is-refused-and-why"
    assert github_anchor("The citation audit (after generation)") == "the-citation-audit-after-generation"
    assert github_anchor("`decides` and Hamilton") == "decides-and-hamilton"


# --- every registered code is produced through a public entry point -----------------

GUIDE = b"# Guide\n\n@quill create_copy existing_path=refuse\n@quill create_copy close_required=yes\n"
DIRECTIVE_LINES = {
    "malformed_directive": b"@quill create_copy  existing_path=refuse\n",
    "unsupported_operation": b"@quill delete_copy existing_path=refuse\n",
    "unsupported_claim_key": b"@quill create_copy on_error=refuse\n",
    "unknown_directive_value": b"@quill create_copy existing_path=maybe\n",
    "duplicate_directive": b"@quill create_copy existing_path=refuse\n@quill create_copy existing_path=refuse\n",
}
SOURCES = {
    "guide": ("1.0", GUIDE),
    "same": ("1.0", b"@quill create_copy existing_path=refuse\n"),
    "other": ("1.0", b"@quill create_copy existing_path=overwrite\n"),
    "three-part": ("1.0.0", GUIDE),
    **{code: ("1.0", b"# Page\n\n" + line) for code, line in DIRECTIVE_LINES.items()},
}
TWO_OPERATIONS = (
    'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse"]\n[operations.move]\nto = ["a"]\n'
)


def entry(source_id: str, version: str, path: str, raw: bytes) -> dict:
    url = f"https://docs.invalid/{source_id}"
    return {"source_id": source_id, "version": version, "path": path, "url": url, "sha256": sha(raw)}


def sha(raw: bytes) -> str:
    return hashlib.sha256(raw).hexdigest()


def write_manifest(folder: Path, sources: dict[str, tuple[str, bytes]], **changes: dict) -> Path:
    """Write ``sources`` as ``folder/<id>.md`` and a manifest pinning them; ``changes[id]`` edits one entry."""
    folder.mkdir(parents=True, exist_ok=True)
    entries = []
    for source_id, (version, raw) in sources.items():
        (folder / f"{source_id}.md").write_bytes(raw)
        entries.append({**entry(source_id, version, f"{source_id}.md", raw), **changes.get(source_id, {})})
    manifest = folder / "manifest.json"
    manifest.write_text(json.dumps({"sources": entries}), encoding="utf-8")
    return manifest


@pytest.fixture(scope="module")
def gate(tmp_path_factory) -> Gate:
    return Gate.from_manifest(write_manifest(tmp_path_factory.mktemp("gate"), SOURCES))


def decided(result: dict) -> tuple[Outcome, str]:
    return Outcome("case", result["status"], result.get("error", "")), result["reason"]


def case(gate: Gate, candidates, version="1.0", key="existing_path", operation=None) -> tuple[Outcome, str]:
    return decided(gate.decide(candidates, version, key, operation))


CASES = {
    "invalid_candidate_ids": lambda g: case(g, "guide"),
    "duplicate_candidate": lambda g: case(g, ["guide", "guide"]),
    "invalid_requested_version": lambda g: case(g, ["guide"], version="1.0.0"),
    "unsupported_requested_operation": lambda g: case(g, ["guide"], operation="delete_copy"),
    "unsupported_requested_claim": lambda g: case(g, ["guide"], key="on_error"),
    "unknown_candidate": lambda g: case(g, ["nowhere"]),
    "invalid_source_version": lambda g: case(g, ["three-part"]),
    "no_eligible_version": lambda g: case(g, ["guide"], version="2.0"),
    "requested_claim_missing": lambda g: case(g, ["guide", "same"], key="close_required"),
    "same_version_directives_disagree": lambda g: case(g, ["same", "other"]),
    "eligible_directives_agree": lambda g: case(g, ["guide", "same"]),
}


@pytest.mark.parametrize("code", sorted(CASES))
def test_case_codes_are_produced_by_gate_decide(gate, code):
    assert CASES[code](gate) == (reasons.reason(code).outcomes[0], code)


def test_invalid_case_is_produced_by_gate_decide_many(gate):
    row = {"case_id": "a", "candidate_ids": ["guide"], "requested_version": "1.0", "claim_key": "existing_path"}
    results = gate.decide_many([row, row, "not an object"])
    assert results["reason"].tolist() == ["eligible_directives_agree", "invalid_case", "invalid_case"]
    assert decided(results["result"][1]) == (reasons.reason("invalid_case").outcomes[0], "invalid_case")


def test_missing_operation_is_produced_by_gate_decide(tmp_path):
    schema = tmp_path / "two.toml"
    schema.write_text(TWO_OPERATIONS, encoding="utf-8")
    two = Gate.from_manifest(write_manifest(tmp_path / "docs", {"guide": ("1.0", GUIDE)}), schema)
    assert case(two, ["guide"]) == (reasons.reason("missing_operation").outcomes[0], "missing_operation")


TYPED = 'prefix = "@quill"\n[operations.create_copy]\nexisting_path = ["refuse"]\ntimeout = { type = "number" }\n'


def test_wrong_value_type_is_produced_by_gate_decide(tmp_path):
    schema = tmp_path / "typed.toml"
    schema.write_text(TYPED, encoding="utf-8")
    pages = {"fast": ("1.0", b"@quill create_copy timeout=fast\n"), "five": ("1.0", b"@quill create_copy timeout=5\n")}
    typed = Gate.from_manifest(write_manifest(tmp_path / "docs", pages), schema)
    refused = Outcome("source", "refused", "DirectiveError")
    assert decided(typed.decide(["fast"], "1.0", "timeout")) == (
        Outcome("case", "refused", "DirectiveError"),
        "wrong_value_type",
    )
    assert reasons.reason("wrong_value_type").outcomes == (refused,)
    assert typed.decide(["five"], "1.0", "timeout")["status"] == "ready"


@pytest.mark.parametrize("code", sorted(DIRECTIVE_LINES))
def test_directive_codes_refuse_the_cases_of_their_source_only(gate, code):
    rows = [
        {"case_id": "bad", "candidate_ids": ["guide", code], "requested_version": "1.0", "claim_key": "existing_path"},
        {"case_id": "good", "candidate_ids": ["guide"], "requested_version": "1.0", "claim_key": "existing_path"},
    ]
    bad, good = gate.decide_many(rows)["result"]
    assert decided(bad) == (Outcome("case", "refused", "DirectiveError"), code)
    assert good["status"] == "ready"  # the source's cases are refused, not the run
    assert reasons.reason(code).outcomes == (Outcome("source", "refused", "DirectiveError"),)


CORPUS = {
    "trial": "The new system is not protected against outside attacks today. "
    "Monthly migraine days fell by 4.1 days with Veltrazine and placebo.",
    "other": "An unrelated page about copying documents to a new path.",
    "georgian": "ეს ახალი სისტემა არ არის დაცული გარე თავდასხმებისგან.",
    "rules": "Orders ship free unless they weigh over 20 kg in total. The minimum version is now 3.4 (it was "
    "3.1 before the release). Set retry=False to stop the client from retrying. Fewer than 5% of runs fail "
    "on the nightly build. Uploads of up to 40 files are accepted, unless the quota is spent.",
    "code": "Copy the whole tree with aws s3 cp localdir s3://bucket/ --recursive from a shell.",
}
QUOTE = "fell by 4.1 days with Veltrazine"
CITATIONS = {
    ("verbatim_match", "found"): ("trial", QUOTE),
    ("found_in_other_document", "misattributed"): ("other", QUOTE),
    ("unknown_cited_document", "misattributed"): ("missing", QUOTE),
    ("unknown_cited_document", "not_found"): ("missing", "nothing like this is anywhere"),
    ("no_verbatim_match", "not_found"): ("trial", "fell by 4.7 days with Veltrazine"),
    ("elision_drops_negation", "not_found"): ("trial", "The new system is ... protected against outside attacks today"),
    ("bracket_drops_negation", "not_found"): ("trial", "The new system is [now] protected against outside attacks"),
    ("bracket_inserts_negation", "not_found"): ("trial", "Monthly migraine days [never] fell by 4.1 days"),
    ("bracket_changes_number", "not_found"): ("trial", "Monthly migraine days fell by [4.7] days with Veltrazine"),
    ("bracket_replaces_value", "not_found"): ("rules", "Uploads of up to [many] files are accepted"),
    ("code_punctuation_changed", "not_found"): ("code", "aws s3 cp localdir s3://bucket/ -recursive from a shell"),
    ("bracket_drops_bound", "not_found"): ("rules", "Uploads of [many] 40 files are accepted"),
    ("bracket_drops_condition", "not_found"): ("rules", "Orders ship free [if] they weigh over 20 kg"),
    ("bracket_inserts_value", "not_found"): ("rules", "Set retry=False [or True] to stop the client from retrying"),
    ("bracket_inserts_condition", "not_found"): ("rules", "Uploads of up to 40 files are accepted [if small]"),
    ("bracket_inserts_bound", "not_found"): ("rules", "Uploads of up to 40 files are [at most] accepted"),
    ("elision_drops_bound", "not_found"): ("rules", "... 5% of runs fail on the nightly build"),
    ("elision_drops_condition", "not_found"): ("rules", "Orders ship free ... they weigh over 20 kg"),
    ("verbatim_match_at_deciding_word", "found"): ("rules", "5% of runs fail on the nightly build"),
    ("elision_moves_number", "not_found"): ("rules", "The minimum version is now ... was 3.1 before the release"),
    ("elision_unchecked_script", "not_found"): ("georgian", "ეს ახალი სისტემა ... დაცული გარე თავდასხმებისგან"),
    ("empty_quote", "insufficient_quote"): ("trial", "..."),
    ("too_few_tokens", "insufficient_quote"): ("trial", "fell by"),
    ("fragment_too_short", "insufficient_quote"): ("trial", "Monthly migraine days fell ... placebo"),
    ("quote_not_string", "invalid_citation"): ("trial", None),
    ("doc_id_missing", "invalid_citation"): (None, QUOTE),
    ("quote_too_long", "invalid_citation"): ("trial", "word " * 20_000),
}
#: The row-shape codes no citation id can key (the row has none, or another row's): produced by their rows, in order.
ROW_CITATIONS = {
    "row_not_object": ["a string, not a row"],
    "citation_id_missing": [{"doc_id": "trial", "quote": QUOTE}],
    "citation_id_repeated": [{"citation_id": "twice", "doc_id": "trial", "quote": QUOTE}] * 2,
    "claim_not_string": [{"citation_id": "c", "doc_id": "trial", "quote": QUOTE, "claim": 3}],
}


@pytest.fixture(scope="module")
def audit_rows():
    citations = [
        {"citation_id": f"{code}/{verdict}", "doc_id": doc_id, **({} if quote is None else {"quote": quote})}
        for (code, verdict), (doc_id, quote) in CITATIONS.items()
    ]
    rows = Audit.from_corpus(CORPUS).check(citations, diagnose=False)
    return dict(zip(rows["citation_id"], zip(rows["gate_verdict"], rows["reason"])))


@pytest.mark.parametrize("code, verdict", sorted(CITATIONS))
def test_citation_codes_are_produced_by_audit_check(audit_rows, code, verdict):
    assert audit_rows[f"{code}/{verdict}"] == (verdict, code)
    assert Outcome("citation", verdict) in reasons.reason(code).outcomes


@pytest.mark.parametrize("code", sorted(ROW_CITATIONS))
def test_row_shape_codes_are_produced_by_audit_check(code):
    rows = Audit.from_corpus(CORPUS).check(ROW_CITATIONS[code], diagnose=False)
    assert (rows["gate_verdict"].iloc[-1], rows["reason"].iloc[-1]) == ("invalid_citation", code)
    assert Outcome("citation", "invalid_citation") in reasons.reason(code).outcomes


MATCH_KIND_QUOTES = {
    "exact": QUOTE,
    "elided": "Monthly migraine days fell ... with Veltrazine and placebo",
    "bracketed": "[M]onthly migraine days fell by 4.1 days",
}


def test_match_kinds_are_the_registered_ones():
    citations = [{"citation_id": kind, "doc_id": "trial", "quote": q} for kind, q in MATCH_KIND_QUOTES.items()]
    rows = Audit.from_corpus(CORPUS).check(citations, diagnose=False)
    assert rows["gate_verdict"].tolist() == ["found"] * 3
    assert rows["match_kind"].tolist() == list(reasons.MATCH_KINDS) == list(MATCH_KIND_QUOTES)


def test_match_too_complex_is_produced_by_audit_check():
    audit = Audit.from_corpus({"repetitive": "word " * 8_000 + "alpha beta gamma delta."})
    row = audit.check([{"citation_id": "c", "doc_id": "repetitive", "quote": "word " * 4_000 + "... beta gamma delta"}])
    assert (row["gate_verdict"][0], row["reason"][0]) == ("not_found", "match_too_complex")
    assert reasons.reason("match_too_complex").outcomes == (Outcome("citation", "not_found"),)


def command(capsys, *args: str) -> tuple[Outcome, str]:
    """``python -m claimgate ARGS --quiet``, in-process; a whole-run refusal: exit 3, ``error: <Kind>: <code>: …``."""
    capsys.readouterr()
    argv = sys.argv
    sys.argv = ["claimgate", *args, "--quiet"]
    try:
        runpy.run_module("claimgate", run_name="__main__", alter_sys=False)
        status = 0
    except SystemExit as exc:
        status = exc.code
    finally:
        sys.argv = argv
    err = capsys.readouterr().err
    match = re.search(r"error: (\w+Error): (\w+)", err)
    assert status == 3 and match, (status, err)
    return Outcome("run", "refused", match[1]), match[2]


def gate_command(capsys, tmp_path: Path, manifest: Path, *options: str, cases: str | None = None) -> tuple:
    table = tmp_path / "cases.json"
    row = {"case_id": "a", "candidate_ids": ["guide"], "requested_version": "1.0", "claim_key": "existing_path"}
    table.write_text(cases if cases is not None else json.dumps([row]), encoding="utf-8")
    output = tmp_path / "out" / "result.json"
    return command(
        capsys, "gate", "--manifest", str(manifest), "--cases", str(table), "--output", str(output), *options
    )


def audit_command(capsys, tmp_path: Path, *source: str, citations: str | None = None) -> tuple:
    table = tmp_path / "citations.json"
    row = {"citation_id": "c", "doc_id": "guide.md", "quote": "copying documents to a new path"}
    table.write_text(citations if citations is not None else json.dumps([row]), encoding="utf-8")
    output = tmp_path / "out" / "audit.jsonl"
    return command(capsys, "audit", *source, "--citations", str(table), "--output", str(output))


def one(tmp_path: Path, **changes) -> Path:
    return write_manifest(tmp_path / "docs", {"guide": ("1.0", GUIDE)}, guide=changes)


def folder(tmp_path: Path, name: str, raw: bytes) -> str:
    (tmp_path / "pages").mkdir(exist_ok=True)
    (tmp_path / "pages" / name).write_bytes(raw)
    return str(tmp_path / "pages")


def without_pypdf(run):
    """``run()`` while ``import pypdf`` fails, as without the ``pdf`` extra."""
    with mock.patch.dict(sys.modules, {"pypdf": None}):
        return run()


def fifo_folder(tmp_path: Path) -> str:
    """A corpus folder whose one page is a FIFO (named pipe): refused, never read (it would block)."""
    folder(tmp_path, "guide.md", GUIDE)
    os.mkfifo(tmp_path / "pages" / "notes.md")
    return str(tmp_path / "pages")


RUNS = {
    "invalid_manifest": lambda c, t: gate_command(c, t, one(t, sha256=None)),
    "duplicate_source_id": lambda c, t: gate_command(
        c, t, write_manifest(t / "docs", {"guide": ("1.0", GUIDE), "copy": ("1.0", GUIDE)}, copy={"source_id": "guide"})
    ),
    "invalid_sha256": lambda c, t: gate_command(c, t, one(t, sha256="abc")),
    "path_outside_root": lambda c, t: gate_command(c, t, one(t, path="../guide.md")),
    "missing_source": lambda c, t: gate_command(c, t, one(t, path="gone.md")),
    "duplicate_source_path": lambda c, t: gate_command(
        c, t, write_manifest(t / "docs", {"guide": ("1.0", GUIDE), "copy": ("1.0", GUIDE)}, copy={"path": "guide.md"})
    ),
    "source_too_large": lambda c, t: gate_command(c, t, one(t), "--max-source-bytes", "10"),
    "corpus_too_large": lambda c, t: gate_command(c, t, one(t), "--max-corpus-bytes", "10"),
    "hash_mismatch": lambda c, t: gate_command(c, t, one(t, sha256="0" * 64)),
    "invalid_encoding": lambda c, t: gate_command(c, t, write_manifest(t / "docs", {"guide": ("1.0", b"caf\xe9\n")})),
    "invalid_schema": lambda c, t: gate_command(c, t, one(t), "--schema", str(t / "no-such-schema.toml")),
    "invalid_case_table": lambda c, t: gate_command(c, t, one(t), cases="not json"),
    "invalid_citation_table": lambda c, t: audit_command(
        c, t, "--corpus-dir", folder(t, "guide.md", GUIDE), citations="["
    ),
    "invalid_corpus": lambda c, t: audit_command(c, t, "--corpus-dir", str(t / "no-such-folder")),
    "document_too_deep": lambda c, t: audit_command(
        c, t, "--corpus-dir", folder(t, "guide.html", b"<div>" * 1_100 + GUIDE + b"</div>" * 1_100)
    ),
    "not_a_regular_file": lambda c, t: audit_command(c, t, "--corpus-dir", fifo_folder(t)),
    "unsupported_document": lambda c, t: without_pypdf(  # a file with no extractor is skipped, not refused
        lambda: audit_command(c, t, "--corpus-dir", folder(t, "guide.pdf", b"%PDF-1.4\n"))
    ),
    "unreadable_document": lambda c, t: audit_command(c, t, "--corpus-dir", folder(t, "guide.md", b"caf\xe9\n")),
    "document_too_large": lambda c, t: audit_command(
        c, t, "--corpus-dir", folder(t, "guide.md", GUIDE), "--max-source-bytes", "10"
    ),
    "invalid_source_version": lambda c, t: command(
        c, "pin", folder(t, "guide.md", GUIDE) + "/guide.md", "--version", " 1.0", "--output", str(t / "m.json")
    ),
    "invalid_answer": lambda c, t: answer_command(c, t, '{"content": "not a list", "text": 3}'),
    "ledger_invalid": lambda c, t: recheck_command(c, t, damage=lambda raw: b"not json\n"),
    "ledger_truncated": lambda c, t: recheck_command(c, t, damage=lambda raw: raw[:-5]),
    "ledger_row_edited": lambda c, t: recheck_command(c, t, damage=lambda raw: raw.replace(b"new path", b"old path")),
    "ledger_other_corpus": lambda c, t: recheck_command(c, t, corpus={"other": "another corpus"}),
    "ledger_renamed_source": lambda c, t: recheck_command(c, t, corpus={"guide-v2": LEDGER_DOCS["guide"]}),
    "ledger_other_schema": lambda c, t: request_recheck_command(c, t),
}

LEDGER_DOCS = {"guide": "Copying documents to a new path is refused by default."}


def recheck_command(capsys, tmp_path: Path, damage=None, corpus: dict | None = None) -> tuple:
    """A ledger from ``Audit.check``, ``damage``d, rechecked against ``corpus`` (default: the same documents)."""
    ledger = tmp_path / "ledger.jsonl"
    Audit.from_corpus(LEDGER_DOCS).check(
        [{"citation_id": "c", "doc_id": "guide", "quote": "copying documents to a new path"}], ledger=ledger
    )
    if damage is not None:
        ledger.write_bytes(damage(ledger.read_bytes()))
    (tmp_path / "now.json").write_text(json.dumps(corpus or LEDGER_DOCS), encoding="utf-8")
    output = str(tmp_path / "out" / "recheck.jsonl")
    return command(
        capsys, "recheck", "--ledger", str(ledger), "--corpus", str(tmp_path / "now.json"), "--output", output
    )


def request_recheck_command(capsys, tmp_path: Path) -> tuple:
    """A ledger of prepared requests from ``Gate.decide_many`` (the default schema), rechecked under another."""
    manifest, ledger = one(tmp_path), tmp_path / "ledger.jsonl"
    case = {"case_id": "c", "candidate_ids": ["guide"], "requested_version": "1.0", "claim_key": "existing_path"}
    Gate.from_manifest(manifest).decide_many([case], ledger=ledger)
    schema = tmp_path / "semver.toml"
    schema.write_text('prefix = "@quill"\n[versions]\npattern = "semver"\n[operations.create_copy]\n'
                      'existing_path = ["refuse", "overwrite"]\n', encoding="utf-8")  # fmt: skip
    output = str(tmp_path / "out" / "recheck.jsonl")
    return command(
        capsys, "recheck", "--ledger", str(ledger), "--manifest", str(manifest), "--schema", str(schema),
        "--output", output,
    )  # fmt: skip


def answer_command(capsys, tmp_path: Path, answer: str) -> tuple:
    (tmp_path / "answer.json").write_text(answer, encoding="utf-8")
    corpus = tmp_path / "corpus.json"
    corpus.write_text(json.dumps(CORPUS), encoding="utf-8")
    output = tmp_path / "out" / "answer.json"
    return command(
        capsys, "answer", "--corpus", str(corpus), "--answer", str(tmp_path / "answer.json"), "--output", str(output)
    )


# --- answer and claim codes, through Audit.check_answer -----------------------------------

ANSWER_QUOTE = "fell by 4.1 days with Veltrazine"
TRIAL_AT = CORPUS["trial"].index(ANSWER_QUOTE)


def _plain(text: str, *quotes: str) -> dict:
    return {
        "text": text,
        "citations": [{"marker": str(i), "doc_id": "trial", "quote": q} for i, q in enumerate(quotes, 1)],
    }


def _at(start: int) -> dict:
    return {"content": [{"type": "text", "text": "Days fell.", "citations": [char_citation(ANSWER_QUOTE, 0, start)]}]}


#: code -> (answer, policy, which claim, or None for the answer's own reason)
ANSWERS = {
    "every_claim_supported": (_plain("Days fell [1].", ANSWER_QUOTE), "strict", None),
    "uncited_connectives_allowed": (_plain("Days fell [1]. That is good.", ANSWER_QUOTE), "connective", None),
    "claims_failed": (_plain("Days fell [1]. That is good.", ANSWER_QUOTE), "strict", None),
    "no_claims": ({"text": "", "citations": []}, "strict", None),
    "citations_found": (_plain("Days fell [1].", ANSWER_QUOTE), "strict", 0),
    "citation_rejected": (_plain("Days fell [1].", "fell by 4.7 days with Veltrazine"), "strict", 0),
    "cited_text_not_at_offsets": (_at(TRIAL_AT + 1), "strict", 0),
    "marker_without_citation": (_plain("Days fell [2].", ANSWER_QUOTE), "strict", 0),
    "no_citation": (_plain("That is good.", ANSWER_QUOTE), "strict", 0),
}


@pytest.mark.parametrize("code", sorted(ANSWERS))
def test_answer_and_claim_codes_are_produced_by_audit_check_answer(code):
    answer, policy, claim = ANSWERS[code]
    result = Audit.from_corpus(CORPUS).check_answer(answer, documents=["trial"], policy=policy)
    if claim is None:
        produced = (Outcome("answer", result["verdict"]), result["reason"])
    else:
        produced = (Outcome("claim", result["claims"][claim]["status"]), result["claims"][claim]["reason"])
    assert produced == (reasons.reason(code).outcomes[0], code)


@pytest.mark.parametrize("code", sorted(RUNS))
def test_run_codes_are_produced_by_the_command_line(capsys, tmp_path, code):
    produced = RUNS[code](capsys, tmp_path)
    assert produced == (Outcome("run", "refused", "IngestionError"), code)
    assert produced[0] in reasons.reason(code).outcomes


def test_executor_codes_are_produced_by_the_failures_they_name():
    """A lost worker and a lost scheduler map to their codes (whole runs: tests/execution/test_executor_faults.py)."""
    from concurrent.futures.process import BrokenProcessPool

    from claimgate.execution.executors import executor_failure

    assert executor_failure(BrokenProcessPool()).reason == "worker_lost"
    pytest.importorskip("distributed")
    from distributed.comm.core import CommClosedError

    assert executor_failure(CommClosedError("gone"), client=None).reason == "scheduler_lost"
    for code in ("worker_lost", "scheduler_lost"):
        assert reasons.reason(code).outcomes == (Outcome("run", "refused", "ExecutionError"),)


def test_a_run_out_of_memory_is_one_line_exit_4_and_writes_nothing(capsys, tmp_path, monkeypatch):
    from claimgate.audit import loading
    from claimgate.cli.main import OUT_OF_MEMORY

    def exhausted(*args, **kwargs):
        raise MemoryError  # as under `ulimit -v` while the corpus file is read

    monkeypatch.setattr(loading, "read_corpus", exhausted)
    (tmp_path / "corpus.json").write_text(json.dumps(CORPUS), encoding="utf-8")
    row = {"citation_id": "c1", "doc_id": "trial", "quote": ANSWER_QUOTE}
    (tmp_path / "c.jsonl").write_text(json.dumps(row) + "\n", encoding="utf-8")
    output = tmp_path / "out.jsonl"
    code, _, err = cli(capsys, "audit", "--corpus", str(tmp_path / "corpus.json"), "--citations",
                       str(tmp_path / "c.jsonl"), "--output", str(output), "--quiet")  # fmt: skip
    assert (code, err) == (4, f"error: ExecutionError: out_of_memory: {OUT_OF_MEMORY}\n")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["c.jsonl", "corpus.json"]  # no output, no temporary
    assert reasons.reason("out_of_memory").outcomes == (Outcome("run", "refused", "ExecutionError"),)


def test_every_registered_outcome_is_produced_by_a_test_here():
    produced = (
        {(code, reasons.reason(code).outcomes[0]) for code in CASES}
        | {("invalid_case", Outcome("case", "refused", "GateError"))}
        | {("missing_operation", Outcome("case", "refused", "GateError"))}
        | {("wrong_value_type", Outcome("source", "refused", "DirectiveError"))}
        | {(code, Outcome("source", "refused", "DirectiveError")) for code in DIRECTIVE_LINES}
        | {(code, Outcome("citation", verdict)) for code, verdict in CITATIONS}
        | {(code, Outcome("citation", "invalid_citation")) for code in ROW_CITATIONS}
        | {("match_too_complex", Outcome("citation", "not_found"))}
        | {(code, Outcome("run", "refused", "IngestionError")) for code in RUNS}
        | {(code, Outcome("run", "refused", "ExecutionError")) for code in ("worker_lost", "scheduler_lost")}
        | {("out_of_memory", Outcome("run", "refused", "ExecutionError"))}
        | {(code, reasons.reason(code).outcomes[0]) for code in ANSWERS}
    )
    registered = {(r.code, outcome) for r in reasons.REASONS for outcome in r.outcomes}
    assert sorted(registered - produced, key=str) == []
    assert sorted(produced - registered, key=str) == []
