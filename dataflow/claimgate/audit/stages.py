"""The citation audit (after generation), as a Hamilton dataflow.

Why: fabricated quotes, frankenquotes (real words stitched into a sentence never
written) and real quotes lifted from the wrong document all read as supportive to a
model-based judge. A deterministic verbatim gate catches them first, for zero model
calls; only quotes that exist go on to a judgment of support.

What it refuses to do: accept a quote that is not in the text (after normalization,
as whole tokens), accept a quote from another document as if it were from the cited
one, let an ellipsis hide a negation, or pass a rejected citation to the judge.

Nodes: ``citation_table → normalized_sources → citation_matches → judged_citations →
audit_result``. Each document is normalized once per run, into an index that finds
quotes in *other* documents without scanning them (``index.types.CorpusIndex``). Beside
the judge, ``citation_diagnoses`` explains every rejected citation (nearest passage,
edits, kind; see docs/audit-rules.md, "Diagnosis"): it reads the gate's outcome and never
changes a verdict.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from functools import partial

import pandas as pd

from claimgate.audit.diagnosis.diagnose import citation_diagnosis
from claimgate.audit.diagnosis.nearest_passage import PassageIndex
from claimgate.audit.index.ahead import ChunksAhead
from claimgate.audit.index.build import build_corpus_index
from claimgate.audit.index.cache import cached_corpus_index
from claimgate.audit.index.types import CorpusIndex
from claimgate.audit.judge import judge_citation
from claimgate.audit.matching.audit import audit_quote
from claimgate.audit.text import memo
from claimgate.errors import bounded_detail
from claimgate.io.tables import QUOTE_TOO_LONG_REASON
from claimgate.io.visible_text import raw_diagnosis, raw_spans
from claimgate.runtime.rows_ahead import rows_from_both_ends

#: Columns of ``audit_result``, in order (the row shape written by the command line).
#: ``claim`` and ``quote`` are the citation's own (``""`` for a missing claim), so one file is enough to
#: review a row: its ``spans`` and ``diagnosis`` point into the quote and the documents.
AUDIT_COLUMNS = (
    "citation_id",
    "doc_id",
    "claim",
    "quote",
    "verdict",
    "reason",
    "gate_verdict",
    "match_kind",
    "matched_doc_ids",
    "spans",
    "judge",
    "model_calls",
)
#: Columns when a judge is configured: ``elided`` (what each ellipsis left out) follows ``spans``.
JUDGED_AUDIT_COLUMNS = (*AUDIT_COLUMNS[:10], "elided", *AUDIT_COLUMNS[10:])
#: A corpus of more characters than this gets no row helper (``runtime.rows_ahead``): the pages the two processes
#: write are copied, which at 200,000 real-prose documents (213 M characters) took the two over 1 GiB together
#: and saved no time (docs/audit-rules.md, "Auditing rows from both ends").
ROW_HELPER_MAX_CHARS = 64 * 2**20

#: Column added after the others: the near-miss diagnosis of a rejected citation (dict or None).
DIAGNOSIS_COLUMN = "diagnosis"


def audit_columns(frame: pd.DataFrame) -> tuple[str, ...]:
    """The output columns of an audit frame: with ``elided`` only when the run recorded it (no ``diagnosis``)."""
    return JUDGED_AUDIT_COLUMNS if "elided" in frame.columns else AUDIT_COLUMNS


def normalized_sources(
    source_documents: dict, cache_dir: str | None = None, chunks_ahead: ChunksAhead | None = None
) -> CorpusIndex:
    """Every document normalized once, with offset maps back to the original and a corpus index.

    With ``cache_dir`` the index is loaded from that folder when one was stored for
    exactly these documents and this normalizer, else built and stored there
    (``audit.index.cache``; a cache never changes a result). Hamilton's own caching
    is not used: it cannot fingerprint this run's frames with list-valued columns.
    ``chunks_ahead``: the command's forked helper normalizing the corpus file's chunks
    (``audit.index.ahead``; the same index, see docs/audit-rules.md, "Indexing a big corpus file").
    """
    build = build_corpus_index if chunks_ahead is None else partial(build_corpus_index, ahead=chunks_ahead)
    return cached_corpus_index(source_documents, cache_dir, build)


def citation_matches(
    citation_table: pd.DataFrame,
    normalized_sources: CorpusIndex,
    min_tokens: int = 4,
    min_fragment_tokens: int = 3,
    window_chars: int = 2000,
    show_progress: bool = False,
    llm_call: Callable | None = None,
    row_helper: bool = False,
) -> pd.DataFrame:
    """The verbatim gate's outcome for every citation, in citation-table order.

    Needs ``citation_table`` columns of ``tables.citation_table_frame``. Adds
    ``gate_verdict`` (``found``, ``misattributed``, ``not_found``,
    ``insufficient_quote`` or ``invalid_citation``), ``reason`` (str code),
    ``match_kind`` (``exact``/``elided``/``bracketed`` or None), ``matched_doc_ids``
    (list of str) and ``spans`` (list of ``{doc_id, start, end, start_line, end_line,
    text}`` in original characters, 1-based lines). A row with a
    ``citation_problem`` is ``invalid_citation`` and is not matched; its reason names what is wrong
    (``citation_id_missing``, ``doc_id_missing``, ``quote_too_long``, …: ``tables.citation_table_frame``).
    When a judge is configured (``llm_call``), also ``elided`` (list of ``{position, doc_id, start,
    end, start_line, end_line, text}``: what each ellipsis left out, see
    docs/audit-rules.md, "Ellipses and brackets"); without one the column is absent,
    so default outputs keep their shape. ``row_helper``: a forked helper audits rows from the last back
    while this process goes forward (``runtime.rows_ahead``; the command asks for one; the same rows either
    way, see docs/audit-rules.md, "Auditing rows from both ends").
    """
    from claimgate.runtime.bars import progress_bar  # imported when an audit runs: a gate run never needs it

    report_elided = llm_call is not None
    # the quotes to match normalized together, a block ahead (a memo: the same values); a refused row's is never read
    quotes, problems = citation_table["quote"].tolist(), citation_table["citation_problem"].tolist()
    doc_ids = citation_table["doc_id"].tolist()
    ahead = [None if p else q for q, p in zip(quotes, problems, strict=True)]
    remembered: set[int] = set()

    def outcomes_of(rows: range) -> list[tuple]:
        outcomes = []
        for i in rows:
            memo.remember_batch_of(ahead, i, remembered)
            if problems[i]:
                code = problems[i].partition(":")[0]  # the row's reason code (io.tables.citation_table_frame)
                outcomes.append(("invalid_citation", code, None, [], [], []))
                continue
            match = audit_quote(
                quotes[i],
                doc_ids[i],
                normalized_sources,
                min_tokens=min_tokens,
                min_fragment_tokens=min_fragment_tokens,
                window_chars=window_chars,
                report_elided=report_elided,
            )
            outcomes.append(
                (
                    match["verdict"],
                    match["reason"],
                    match["match_kind"],
                    match["matched_doc_ids"],
                    match["spans"],
                    match.get("elided", []),
                )
            )
        return outcomes

    memo.remember_batch_of(ahead, 0, remembered)  # before a fork: the helper holds the first block's quotes too
    bar = progress_bar(total=len(quotes), desc="audit", unit="citation", file=sys.stderr, disable=not show_progress)
    with bar:
        keys = partial(_row_keys, (quotes, doc_ids, problems))
        helper = _helper_wanted(row_helper, normalized_sources)
        outcomes = rows_from_both_ends(len(quotes), outcomes_of, keys, _is_outcome, helper, bar.update)
    frame = citation_table.copy()
    columns = ("gate_verdict", "reason", "match_kind", "matched_doc_ids", "spans")
    if report_elided:
        columns += ("elided",)
    for i, name in enumerate(columns):
        frame[name] = pd.Series([o[i] for o in outcomes], dtype=object, index=frame.index)
    return frame.astype({"gate_verdict": "str", "reason": "str"})


def _helper_wanted(row_helper: bool, index: CorpusIndex) -> bool:
    """Whether the run asked for a row helper and the corpus holds at most :data:`ROW_HELPER_MAX_CHARS`."""
    if not row_helper:
        return False
    originals = getattr(index.docs, "originals", None)  # a DocumentTable's texts, without building each document
    texts = originals if originals is not None else (document.original for document in index.docs)
    return sum(map(len, texts)) <= ROW_HELPER_MAX_CHARS


def _row_keys(columns: tuple[list, ...], rows: range) -> list[tuple]:
    """The inputs deciding ``rows`` (one tuple per row of ``columns``' values), for ``runtime.rows_ahead``'s check."""
    return [tuple(column[i] for column in columns) for i in rows]


def _is_outcome(value: object) -> bool:
    """A gate outcome's shape: (verdict, reason, match kind, matched doc ids, spans, elided)."""
    return (
        type(value) is tuple
        and len(value) == 6
        and type(value[0]) is str
        and type(value[1]) is str
        and all(type(value[k]) is list for k in (3, 4, 5))
    )


def citation_diagnoses(
    citation_matches: pd.DataFrame,
    normalized_sources: CorpusIndex,
    window_chars: int = 2000,
    diagnose: bool = True,
    row_helper: bool = False,
) -> pd.Series:
    """The near-miss diagnosis of every citation (object Series on ``citation_matches``' index).

    ``diagnosis.citation_diagnosis`` of each row's quote, cited doc_id and gate
    outcome: a dict for ``not_found`` and ``misattributed`` rows (and
    ``insufficient_quote`` rows with a near, differing passage), ``None`` otherwise and
    for every row when ``diagnose`` is False. Reads the gate's columns
    (``gate_verdict``, ``reason``, ``matched_doc_ids``) and changes none of them. One
    ``PassageIndex`` per call (per run, or per partition), built lazily per cited
    document, so an executor ships the corpus index once. ``row_helper``: as ``citation_matches``'.
    """
    if not diagnose:
        return pd.Series([None] * len(citation_matches), dtype=object, index=citation_matches.index)
    passages = PassageIndex(normalized_sources)
    quotes, doc_ids = citation_matches["quote"].tolist(), citation_matches["doc_id"].tolist()
    verdicts, reasons = citation_matches["gate_verdict"].tolist(), citation_matches["reason"].tolist()
    matched = citation_matches["matched_doc_ids"].tolist()
    ahead = [q if v != "invalid_citation" else None for q, v in zip(quotes, verdicts, strict=True)]
    remembered: set[int] = set()

    def diagnoses_of(rows: range) -> list[dict | None]:
        values = []
        for i in rows:
            memo.remember_batch_of(ahead, i, remembered)  # held since the gate ran, unless dropped
            match = {"verdict": verdicts[i], "reason": reasons[i], "matched_doc_ids": matched[i]}
            values.append(citation_diagnosis(quotes[i], doc_ids[i], match, passages, window_chars=window_chars))
        return values

    memo.remember_batch_of(ahead, 0, remembered)
    keys = partial(_row_keys, (quotes, doc_ids, verdicts, reasons, [tuple(m) for m in matched]))
    helper = _helper_wanted(row_helper, normalized_sources)
    values = rows_from_both_ends(len(quotes), diagnoses_of, keys, _is_diagnosis, helper)
    return pd.Series(values, dtype=object, index=citation_matches.index)


def _is_diagnosis(value: object) -> bool:
    """A diagnosis' shape: a dict or ``None``."""
    return value is None or type(value) is dict


def judged_citations(
    citation_matches: pd.DataFrame, source_documents: dict, llm_call: Callable | None = None
) -> pd.DataFrame:
    """Citations with the optional judge applied to ``found`` ones only.

    Adds ``judge`` (None, or ``{"reasoning", "verdict", "confidence"}``) and
    ``model_calls`` (int64: 1 where the judge was called, else 0). Without
    ``llm_call`` no row is judged. Rejected citations never reach the judge.
    """
    frame = citation_matches.copy()
    judgments: list[dict | None] = []
    calls: list[int] = []
    for claim, quote, doc_id, verdict, spans in zip(
        frame["claim"], frame["quote"], frame["doc_id"], frame["gate_verdict"], frame["spans"]
    ):
        if llm_call is None or verdict != "found":
            judgments.append(None)
            calls.append(0)
            continue
        judgments.append(judge_citation(llm_call, claim or "", quote, doc_id, source_documents[doc_id], spans))
        calls.append(1)
    frame["judge"] = pd.Series(judgments, dtype=object, index=frame.index)
    frame["model_calls"] = pd.Series(calls, dtype="int64", index=frame.index)
    return frame


def audit_result(
    judged_citations: pd.DataFrame, citation_diagnoses: pd.Series, source_maps: dict | None = None
) -> pd.DataFrame:
    """One output row per citation, in citation-table order: ``position``, :func:`audit_columns`, ``diagnosis``.

    ``verdict`` is the judge's label where the judge ran, else the gate's verdict;
    ``diagnosis`` (object: dict or None) comes from ``citation_diagnoses``. With ``source_maps``
    (``{doc_id: VisibleText | PdfPages}`` of ``io.visible_text``: a folder's rendered Markdown and
    reStructuredText pages, and its PDFs) the ``spans`` and ``elided`` of a rendered page are moved into
    the file as written (``raw_spans``: raw character offsets and lines, the raw slice, and the hidden
    markup inside each span as its ``elided``), and so are a diagnosis's nearest passage and edits
    (``raw_diagnosis``); a PDF's spans gain ``page`` and ``end_page``; see docs/documents.md.
    """
    frame = judged_citations.copy()
    # A quote refused for its length is shown by its head and its length (errors.bounded_detail), so the
    # output stays small; every other row carries its quote whole.
    frame["quote"] = pd.Series(
        [bounded_detail(q) if r == QUOTE_TOO_LONG_REASON and isinstance(q, str) else q
         for q, r in zip(frame["quote"], frame["reason"])],
        dtype=object, index=frame.index,
    )  # fmt: skip
    if source_maps:
        for column in ("spans", "elided"):
            if column in frame.columns:
                moved = [raw_spans(spans, source_maps) for spans in frame[column]]
                frame[column] = pd.Series(moved, dtype=object, index=frame.index)
    frame["verdict"] = [
        judgment["verdict"] if judgment is not None else verdict
        for judgment, verdict in zip(frame["judge"], frame["gate_verdict"])
    ]
    if source_maps:  # the nearest passage and its edits slice the file as written too
        citation_diagnoses = pd.Series(
            [raw_diagnosis(d, source_maps) for d in citation_diagnoses], dtype=object, index=citation_diagnoses.index
        )
    frame[DIAGNOSIS_COLUMN] = citation_diagnoses
    return frame[["position", *audit_columns(frame), DIAGNOSIS_COLUMN]].reset_index(drop=True)
