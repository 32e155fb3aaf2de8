"""The answer audit's driver and its one entry point, ``run_answer`` (command line, API, demo).

A whole answer is small: one local execution of ``audit.answer.dataflow_modules()`` plus the
answer's loading nodes, over the same documents as an audit run. No decision is taken here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hamilton import driver

import claimgate  # noqa: F401  (telemetry off before Hamilton is imported)
from claimgate.execution.drivers import (
    DOCUMENT_FRAMES,
    LOCAL,
    CorpusFile,
    Documents,
    IndexedCorpus,
    _document_inputs,
    _match_inputs,
    gc_paused,
)
from claimgate.execution.settings import RunSettings


@dataclass(frozen=True)
class AnswerOptions:
    """How an answer is read and judged: ``answer_format`` (``auto``/``plain``/``anthropic``),
    ``documents_path`` (the doc ids in the order sent, a JSON list; ``""``: none), ``uncited_policy``
    (``strict``/``connective``), ``diagnose``."""

    answer_format: str = "auto"
    documents_path: str = ""
    uncited_policy: str = "strict"
    diagnose: bool = True


@dataclass
class AnswerRun:
    """What one answer run returns: ``result`` (the ``answer_result`` dict) and the documents checked.

    ``source_maps``: ``{doc_id: VisibleText | PdfPages}`` of a folder's or a manifest's rendered pages and PDFs
    (``None`` for a corpus file), for the ledger's fingerprints (``audit.ledger``).
    """

    result: dict
    documents: dict
    source_maps: dict | None = None


def answer_driver(document_source: str) -> driver.Driver:
    """The answer audit's driver: documents by ``document_source`` (``corpus``/``manifest``/``folder``)."""
    from claimgate.audit.answer import dataflow_modules
    from claimgate.audit.answer import loading as answer_loading

    modules = (*dataflow_modules(), answer_loading)
    return driver.Builder().with_modules(*modules).with_config({"document_source": document_source}).build()


def run_answer(
    answer: str | Path | dict,
    documents: Documents,
    *,
    llm_call: object | None = None,
    match: object | None = None,
    options: AnswerOptions = AnswerOptions(),
    settings: RunSettings = LOCAL,
    overrides: dict | None = None,
) -> AnswerRun:
    """Audit one answer (a file path, or a parsed answer document) against ``documents``.

    ``documents`` is a ``CorpusFile``, ``PinnedManifest``, ``DocumentFolder`` or an
    ``IndexedCorpus`` (``Audit``). ``overrides`` sets nodes directly (``sent_documents``: the doc ids
    in the order sent, instead of ``options.documents_path``). Raises ``IngestionError``
    (``invalid_answer`` and the audit's
    whole-run refusals of the documents).
    """
    inputs: dict = {
        **_match_inputs(match),
        "diagnose": options.diagnose,
        "uncited_policy": options.uncited_policy,
        "answer_format": options.answer_format,
        "documents_path": options.documents_path,
    }
    if llm_call is not None:
        inputs["llm_call"] = llm_call
    overrides = dict(overrides or {})
    if isinstance(answer, dict):
        overrides["answer_document"] = answer
    else:
        inputs["answer_path"] = str(answer)
    if isinstance(documents, IndexedCorpus):
        overrides.update(source_documents=documents.documents, normalized_sources=documents.index)
        if documents.source_maps:  # rendered pages' spans go back into their files, as a run over the files does
            inputs["source_maps"] = documents.source_maps
        dr, mapped, maps = answer_driver("corpus"), False, documents.source_maps
    else:
        document_source, document_inputs = _document_inputs(documents)
        inputs.update(**document_inputs, **settings.size_limits())
        dr, mapped, maps = answer_driver(document_source), document_source in DOCUMENT_FRAMES, None  # node source_maps
    wanted = ["answer_result", "source_documents", *(["source_maps"] if mapped else [])]
    with gc_paused():
        out = dr.execute(wanted, inputs=inputs, overrides=overrides)
    maps = out["source_maps"] if mapped else maps
    return AnswerRun(out["answer_result"], out["source_documents"], maps or None)


__all__ = ["AnswerOptions", "AnswerRun", "CorpusFile", "answer_driver", "run_answer"]
