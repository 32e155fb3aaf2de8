"""Drivers: build Hamilton drivers for the gate and the audit, and run them.

A small driver layer, as in Hamilton's examples: choose modules and config, pick an
executor (``execution.executors``), ask for the final nodes. The JSON documents and
terminal tables made from a run are in ``execution.documents``, re-exported here. No
decision is taken here.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from hamilton import driver

import claimgate  # noqa: F401  (telemetry off, extension autoloading off: before Hamilton is imported)
from claimgate.execution.documents import (  # noqa: F401  (re-exported: the driver layer's public names)
    DETAIL_CHARS,
    LIMIT,
    POLICY,
    case_entries,
    case_entry,
    clipped,
    gate_document,
    ignored_lines,
    refusal_details,
    summary_table,
    text_table,
)
from claimgate.execution.executors import (  # noqa: F401  (re-exported)
    EXECUTORS,
    check_executor,
    dask_client,
    gc_paused,
    ray_init_config,
    ray_session,
    task_executor,
)
from claimgate.execution.progress import ProgressBar
from claimgate.gate import batching as gate_batching
from claimgate.gate import loading as gate_loading
from claimgate.gate import result_lines as gate_result_lines
from claimgate.gate import results as gate_results
from claimgate.gate import stages as gate_stages
from claimgate.gate.schema import ClaimSchema
from claimgate.io import pinned_sources


def quiet_hamilton_logs(debug: bool = False) -> None:
    """Keep Hamilton's own error banner off stderr unless ``debug`` (refusals print one line)."""
    logging.getLogger("hamilton").setLevel(logging.DEBUG if debug else logging.CRITICAL)


def _builder(modules: tuple, config: dict, remote_executor: object | None) -> driver.Builder:
    """A driver builder over ``modules``: whole-table, or partitioned on ``remote_executor`` (dynamic execution)."""
    builder = (
        driver.Builder().with_modules(*modules).with_config({**config, "partitioned": remote_executor is not None})
    )
    if remote_executor is not None:
        builder = builder.enable_dynamic_execution(allow_experimental_mode=True).with_remote_executor(remote_executor)
    return builder


def gate_driver(remote_executor: object | None = None, progress: bool = False) -> driver.Driver:
    """The gate's Hamilton driver: whole-table for ``None``, partitioned on ``remote_executor`` otherwise."""
    builder = _builder(
        (pinned_sources, gate_loading, gate_batching, gate_stages, gate_results), {}, remote_executor
    )
    if progress:
        builder = builder.with_adapters(ProgressBar("gate", partitioned=remote_executor is not None))
    return builder.build()


def gate_lines_driver() -> driver.Driver:
    """The gate's whole-table driver plus ``gate.result_lines``: a batch's decisions as JSON lines (streamed runs)."""
    modules = (pinned_sources, gate_loading, gate_batching, gate_stages, gate_results, gate_result_lines)
    return _builder(modules, {}, None).build()


@dataclass
class GateRun:
    """What one gate run returns: decisions, the whole case table, and the loaded schema and sources."""

    results: pd.DataFrame
    case_rows: pd.DataFrame
    schema: ClaimSchema
    verified_sources: pd.DataFrame
    #: ``gate.stages.ignored_directive_lines`` (``None`` when a caller built the run without it).
    ignored_directive_lines: pd.DataFrame | None = None


def run_gate(
    manifest_path: str | Path,
    cases_path: str | Path,
    schema_path: str | Path | None = None,
    *,
    max_source_bytes: int | None = None,
    max_corpus_bytes: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    partition_rows: int = 10_000,
    progress: bool = False,
) -> GateRun:
    """Run the gate over a case table in one Hamilton execution (or one per partition).

    Raises ``IngestionError`` when the manifest, a source, the schema or the case
    table is refused; never for a single bad case.
    """
    inputs: dict = {
        "manifest_path": str(manifest_path),
        "cases_path": str(cases_path),
        "schema_path": str(schema_path or ""),
    }
    if max_source_bytes is not None:
        inputs["max_source_bytes"] = max_source_bytes
    if max_corpus_bytes is not None:
        inputs["max_corpus_bytes"] = max_corpus_bytes
    with task_executor(executor, scheduler) as remote:
        if remote is not None:
            inputs["partition_rows"] = partition_rows
        dr = gate_driver(remote, progress=progress)
        # The loading nodes are upstream of every decision node: a refused manifest, schema
        # or case table stops the run before any case is decided.
        with gc_paused():
            out = dr.execute(
                ["gate_results", "case_rows", "claim_schema", "verified_sources", "ignored_directive_lines"],
                inputs=inputs,
            )
    return GateRun(
        out["gate_results"],
        out["case_rows"],
        out["claim_schema"],
        out["verified_sources"],
        out["ignored_directive_lines"],
    )


# --------------------------------------------------------------------------- citation audit


def audit_driver(document_source: str, remote_executor: object | None = None, progress: bool = False) -> driver.Driver:
    """The audit's Hamilton driver; ``document_source`` is ``"corpus"``, ``"manifest"`` or ``"folder"``.

    With ``progress``, a partitioned run shows partitions done on stderr (a whole-table
    run shows citations done from inside ``citation_matches`` instead).
    """
    if document_source not in ("corpus", "manifest", "folder"):
        raise ValueError(f"document_source must be corpus, manifest or folder, not {document_source!r}")
    from claimgate.audit import batching as audit_batching  # imported when an audit runs, not for a gate run
    from claimgate.audit import loading as audit_loading
    from claimgate.audit import stages as audit_stages

    builder = _builder(
        (pinned_sources, audit_loading, audit_batching, audit_stages),
        {"document_source": document_source},
        remote_executor,
    )
    if progress and remote_executor is not None:
        builder = builder.with_adapters(ProgressBar(desc="audit", partitioned=True))
    return builder.build()


@dataclass
class AuditRun:
    """What one audit run returns: one row per citation, the documents, and each document's extractor.

    ``extractors`` (``{doc_id: extractor}``) is set only for a folder corpus (``io.documents``).
    """

    results: pd.DataFrame
    documents: dict
    extractors: dict | None = None


def run_audit(
    citations_path: str | Path,
    *,
    corpus_path: str | Path | None = None,
    manifest_path: str | Path | None = None,
    corpus_dir: str | Path | None = None,
    corpus_glob: str | None = None,
    llm_call: object | None = None,
    min_tokens: int = 4,
    window_chars: int = 2000,
    max_source_bytes: int | None = None,
    max_corpus_bytes: int | None = None,
    executor: str = "local",
    scheduler: str | None = None,
    partition_rows: int = 10_000,
    progress: bool = False,
    diagnose: bool = True,
    cache_dir: str | Path | None = None,
) -> AuditRun:
    """Audit a citation table against a corpus file, a pinned manifest or a folder of pages (exactly one).

    ``corpus_glob`` selects the folder's files (default every file, ``io.documents.DEFAULT_GLOB``).
    ``diagnose``: add the near-miss diagnosis to rejected rows (verdicts are the same either way; see
    docs/audit-rules.md, "Diagnosis"). ``cache_dir`` keeps the corpus index on disk between runs
    (``audit.index_cache``). Raises ``IngestionError`` when the corpus, manifest, a source, a folder's
    document or the citation table is refused; ``ValueError`` when not exactly one document source is given.
    """
    sources = {"corpus": corpus_path, "manifest": manifest_path, "folder": corpus_dir}
    given = [name for name, value in sources.items() if value is not None]
    if len(given) != 1:
        raise ValueError("give exactly one of corpus_path, manifest_path and corpus_dir")
    inputs: dict = {
        "citations_path": str(citations_path),
        "min_tokens": min_tokens,
        "window_chars": window_chars,
        "diagnose": diagnose,
    }
    if corpus_path is not None:
        inputs["corpus_path"] = str(corpus_path)
    elif corpus_dir is not None:
        inputs["corpus_dir"] = str(corpus_dir)
        if corpus_glob:
            inputs["corpus_glob"] = corpus_glob
    else:
        inputs["manifest_path"] = str(manifest_path)
    if max_source_bytes is not None:
        inputs["max_source_bytes"] = max_source_bytes
    if max_corpus_bytes is not None:
        inputs["max_corpus_bytes"] = max_corpus_bytes
    if llm_call is not None:
        inputs["llm_call"] = llm_call
    if cache_dir is not None:
        inputs["cache_dir"] = str(cache_dir)
    with task_executor(executor, scheduler) as remote:
        if remote is not None:
            inputs["partition_rows"] = partition_rows
        else:
            inputs["show_progress"] = progress
        dr = audit_driver(given[0], remote, progress=progress)
        wanted = ["audit_results", "source_documents", *(["folder_documents"] if corpus_dir is not None else [])]
        with gc_paused():
            out = dr.execute(wanted, inputs=inputs)
    extractors = None
    if corpus_dir is not None:
        extractors = dict(zip(out["folder_documents"]["doc_id"], out["folder_documents"]["extractor"]))
    return AuditRun(out["audit_results"], out["source_documents"], extractors)


def audit_rows(run: AuditRun) -> list[dict]:
    """Output rows (``audit_stages.AUDIT_COLUMNS``) as plain JSON-ready dicts, in citation-table order.

    For a folder corpus each row also has ``extractors``: ``{doc_id: extractor}`` for the cited document
    (when it is in the corpus) and every document in ``matched_doc_ids``, the documents its spans point into.
    A row with a diagnosis ends with a ``diagnosis`` field; other rows have none.
    """
    from claimgate.audit import stages as audit_stages

    columns = list(audit_stages.audit_columns(run.results))
    diagnoses = run.results.get(audit_stages.DIAGNOSIS_COLUMN, pd.Series([None] * len(run.results)))
    rows = []
    for values, diagnosis in zip(run.results[columns].itertuples(index=False, name=None), diagnoses):
        row = dict(zip(columns, values))
        row["model_calls"] = int(row["model_calls"])
        if run.extractors is not None:
            cited = [row["doc_id"]] if row["doc_id"] in run.extractors else []
            row["extractors"] = {d: run.extractors[d] for d in [*cited, *row["matched_doc_ids"]]}
        if diagnosis is not None:
            row[audit_stages.DIAGNOSIS_COLUMN] = diagnosis
        rows.append(row)
    return rows
