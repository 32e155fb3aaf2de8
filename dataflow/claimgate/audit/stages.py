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
    so default outputs keep their shape.
    """
    from tqdm import tqdm  # imported when an audit runs: a gate run never needs it

    report_elided = llm_call is not None
    outcomes = []
    # the quotes to match normalized together, a block ahead (a memo: the same values); a refused row's is never read
    quotes, problems = citation_table["quote"].tolist(), citation_table["citation_problem"].tolist()
    ahead = [None if p else q for q, p in zip(quotes, problems, strict=True)]
    rows = zip(quotes, citation_table["doc_id"].tolist(), problems)
    for i, (quote, doc_id, problem) in enumerate(
        tqdm(rows, total=len(citation_table), desc="audit", unit="citation", file=sys.stderr, disable=not show_progress)
    ):
        memo.remember_ahead(ahead, i)
        if problem:
            code = problem.partition(":")[0]  # the row's reason code (io.tables.citation_table_frame)
            outcomes.append(("invalid_citation", code, None, [], [], []))
            continue
        match = audit_quote(
            quote,
            doc_id,
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
    frame = citation_table.copy()
    columns = ("gate_verdict", "reason", "match_kind", "matched_doc_ids", "spans")
    if report_elided:
        columns += ("elided",)
    for i, name in enumerate(columns):
        frame[name] = pd.Series([o[i] for o in outcomes], dtype=object, index=frame.index)
    return frame.astype({"gate_verdict": "str", "reason": "str"})


def citation_diagnoses(
    citation_matches: pd.DataFrame, normalized_sources: CorpusIndex, window_chars: int = 2000, diagnose: bool = True
) -> pd.Series:
    """The near-miss diagnosis of every citation (object Series on ``citation_matches``' index).

    ``diagnosis.citation_diagnosis`` of each row's quote, cited doc_id and gate
    outcome: a dict for ``not_found`` and ``misattributed`` rows (and
    ``insufficient_quote`` rows with a near, differing passage), ``None`` otherwise and
    for every row when ``diagnose`` is False. Reads the gate's columns
    (``gate_verdict``, ``reason``, ``matched_doc_ids``) and changes none of them. One
    ``PassageIndex`` per call (per run, or per partition), built lazily per cited
    document, so an executor ships the corpus index once.
    """
    values: list[dict | None] = [None] * len(citation_matches)
    if diagnose:
        passages = PassageIndex(normalized_sources)
        gated = zip(citation_matches["quote"], citation_matches["gate_verdict"], strict=True)
        ahead = [q if v != "invalid_citation" else None for q, v in gated]  # held since the gate ran, unless dropped
        rows = zip(
            citation_matches["quote"],
            citation_matches["doc_id"],
            citation_matches["gate_verdict"],
            citation_matches["reason"],
            citation_matches["matched_doc_ids"],
        )
        for i, (quote, doc_id, verdict, reason, matched) in enumerate(rows):
            memo.remember_ahead(ahead, i)
            match = {"verdict": verdict, "reason": reason, "matched_doc_ids": matched}
            values[i] = citation_diagnosis(quote, doc_id, match, passages, window_chars=window_chars)
    return pd.Series(values, dtype=object, index=citation_matches.index)


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
