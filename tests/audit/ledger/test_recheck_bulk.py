"""``recheck_lines`` (the command's path: rows of untouched documents written from their bytes) writes the bytes
of ``recheck_citations``, the statement (one ledger row at a time).

The two are compared as the command writes them (``io.writers.jsonl_line``), on ledgers written across
revisions, with removed, unknown, edited, moved and untouched documents, citations that never held, and rows
of prepared requests among them.
"""

from __future__ import annotations

from claimgate.api import Audit
from claimgate.audit.recheck import recheck_citations
from claimgate.audit.recheck_lines import recheck_lines
from claimgate.errors import IngestionError
from claimgate.io.ledger_append import append_ledger
from claimgate.io.ledger_lines import read_ledger, read_ledger_lines
from claimgate.io.writers import jsonl_line
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

SENTENCES = [
    "The cache keeps 40 entries by default.",
    "Retries are not enabled unless you set the flag.",
    "Each request may upload at most 25 files at once.",
    "Tokens expire after 3600 seconds of inactivity.",
    "The server never stores passwords in plain text.",
]
REQUEST = {"kind": "request", "case_id": "c1", "corpus_sha256": "m" * 64, "sources": {"d0": None}, "status": "ready"}


def written_bytes(rows: list[dict]) -> list[bytes]:
    return [jsonl_line(row) for row in rows]


def outcome(recheck, ledger: list[dict], documents: dict) -> object:
    """The rows as written, or the refusal (``ledger_other_corpus``, ``ledger_renamed_source``) in one line."""
    try:
        return written_bytes(recheck(ledger, documents))
    except IngestionError as exc:
        return exc.one_line()


def both(ledger: list[dict], documents: dict, path) -> object:
    """The rows (or refusal) of the statement, checked against the command's path (``read_ledger_lines`` then
    ``recheck_lines``) on the ledger file at ``path``."""
    expected = outcome(recheck_citations, ledger, documents)
    try:
        fast = recheck_lines(read_ledger_lines(path), documents).lines
    except IngestionError as exc:
        fast = exc.one_line()
    assert fast == expected
    return expected


@st.composite
def revisions(draw):
    """``(old documents, citations, a second revision the ledger also saw, today's documents)``."""
    n = draw(st.integers(1, 4))
    old = {f"d{i}": " ".join(draw(st.permutations(SENTENCES))[: draw(st.integers(1, 4))]) for i in range(n)}
    citations = []
    for k in range(draw(st.integers(1, 8))):
        doc_id = draw(st.sampled_from([*old, "missing"]))
        sentence = draw(st.sampled_from(SENTENCES))
        quote = sentence[: draw(st.integers(10, len(sentence)))]
        citations.append({"citation_id": f"c{k}", "doc_id": doc_id, "quote": quote})
    edit = draw(st.sampled_from(["none", "number", "prepend", "remove", "rewrite"]))
    middle = dict(old)
    if draw(st.booleans()):
        middle["d0"] = old["d0"] + " A sentence added later."
    today = dict(middle if draw(st.booleans()) else old)
    target = draw(st.sampled_from(sorted(old)))
    if edit == "number":
        today[target] = today[target].replace("40", "41").replace("25", "26").replace("3600", "60")
    elif edit == "prepend":
        today[target] = "A paragraph put in front.\n\n" + today[target]
    elif edit == "remove" and len(today) > 1:
        del today[target]
    elif edit == "rewrite":
        today[target] = "Nothing of the old page is left here at all."
    if draw(st.booleans()):
        today["new page"] = "A page the ledger never saw."
    return old, citations, middle, today


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(case=revisions(), with_request=st.booleans())
def test_recheck_rows_are_the_reference_rows_byte_for_byte(tmp_path, case, with_request):
    old, citations, middle, today = case
    path = tmp_path / "ledger.jsonl"
    path.unlink(missing_ok=True)
    Audit.from_corpus(old).check(citations, ledger=path)
    if with_request:
        append_ledger(path, [REQUEST])
    Audit.from_corpus(middle).check(citations[:2], ledger=path)  # a later run over a revision in between
    both(read_ledger(path), today, path)


def test_a_document_recorded_at_two_revisions_is_rechecked_as_the_reference_does(tmp_path):
    old = {"d0": SENTENCES[0], "d1": SENTENCES[1]}
    path = tmp_path / "ledger.jsonl"
    Audit.from_corpus(old).check([{"citation_id": "a", "doc_id": "d0", "quote": "The cache keeps 40"}], ledger=path)
    newer = {**old, "d0": SENTENCES[0] + " More."}
    Audit.from_corpus(newer).check([{"citation_id": "b", "doc_id": "d0", "quote": "keeps 40 entries"}], ledger=path)
    rows = recheck_citations(read_ledger(path), newer)
    assert both(read_ledger(path), newer, path) == written_bytes(rows)
    # The document is "changed" as a whole once any of its rows recorded another hash: both rows are
    # re-audited, the one that recorded today's hash too (as the reference does).
    assert rows[0]["status"] == "intact" and rows[1]["verdict"] is not None


def test_unchanged_rows_copy_their_spans_and_verdicts(tmp_path):
    docs = {"d0": SENTENCES[0], "d1": SENTENCES[3]}
    path = tmp_path / "ledger.jsonl"
    cites = [
        {"citation_id": "a", "doc_id": "d0", "quote": "The cache keeps 40 entries"},
        {"citation_id": "b", "doc_id": "d1", "quote": "keys are rotated every single week"},
        {"citation_id": "c", "doc_id": "gone", "quote": "a quote of a page that was never there"},
    ]
    Audit.from_corpus(docs).check(cites, ledger=path)
    rows = recheck_citations(read_ledger(path), docs)
    assert [(r["status"], r["verdict"]) for r in rows] == [
        ("unchanged", "found"),
        ("not_held", "not_found"),
        ("not_held", "not_found"),
    ]
    assert docs["d0"][rows[0]["spans"][0]["start"] : rows[0]["spans"][0]["end"]] == "The cache keeps 40 entries"
    assert both(read_ledger(path), docs, path) == written_bytes(rows)


def test_removed_and_edited_documents_among_unchanged_ones_keep_ledger_order(tmp_path):
    docs = {f"d{i}": SENTENCES[i] for i in range(4)}
    path = tmp_path / "ledger.jsonl"
    cites = [{"citation_id": str(i), "doc_id": f"d{i % 4}", "quote": SENTENCES[i % 4][:-1]} for i in range(12)]
    Audit.from_corpus(docs).check(cites, ledger=path)
    today = {**docs, "d1": "Now: " + SENTENCES[1], "d2": "Rewritten entirely, nothing left."}
    del today["d3"]
    rows = recheck_citations(read_ledger(path), today)
    assert [r["ledger_line"] for r in rows] == list(range(1, 13))
    assert [r["status"] for r in rows[:4]] == ["unchanged", "intact", "invalid", "invalid"]
    assert rows[3]["diagnosis"] == {"kind": "document_removed"}
    both(read_ledger(path), today, path)


def test_a_sealed_row_with_a_number_for_its_document_is_rechecked_as_the_reference_does(tmp_path):
    path = tmp_path / "ledger.jsonl"
    Audit.from_corpus({"d0": SENTENCES[0]}).check(
        [{"citation_id": "a", "doc_id": "d0", "quote": "The cache"}], ledger=path
    )
    odd = {**read_ledger(path)[0], "doc_id": 7, "sources": {"d0": None}}
    append_ledger(path, [{k: v for k, v in odd.items() if k not in ("schema", "row_sha256")}])
    rows = both(read_ledger(path), {"d0": SENTENCES[0]}, path)
    assert len(rows) == 2 and b'"doc_id":7' in rows[1]
