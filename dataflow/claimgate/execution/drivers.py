"""Drivers: build Hamilton drivers for the gate and the audit, and run them — one entry point per product.

A small driver layer, as in Hamilton's examples: choose modules and config, pick an
executor (``execution.executors``), ask for the final nodes. ``run_gate`` and
``run_audit`` are the only places either product is executed: the command line calls
them with files, ``Gate`` and ``Audit`` (``claimgate.api``) with what they loaded once
(``LoadedGate``, ``IndexedCorpus``). How a run runs travels whole as one
``RunSettings``; what the audit's matching needs as one ``MatchSettings``. What the
command line writes and prints from a run is ``cli.documents`` and ``cli.terminal``.
No decision is taken here.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
from hamilton import driver

import claimgate  # noqa: F401  (telemetry off, extension autoloading off: before Hamilton is imported)
from claimgate.execution.document_sources import (  # noqa: F401  (drivers.CorpusFile, ... as before)
    CorpusFile,
    DocumentFolder,
    Documents,
    IndexedCorpus,
    PinnedManifest,
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
from claimgate.execution.hamilton_logs import quiet_hamilton_logs, quiet_refusals  # noqa: F401  (drivers.quiet_hamilton_logs)
from claimgate.execution.progress import ProgressBar
from claimgate.execution.settings import RunSettings
from claimgate.gate import batching as gate_batching
from claimgate.gate import loading as gate_loading
from claimgate.gate import result_lines as gate_result_lines
from claimgate.gate import results as gate_results
from claimgate.gate import stages as gate_stages
from claimgate.gate.schema import ClaimSchema
from claimgate.io import pinned_sources

if TYPE_CHECKING:  # the audit's modules are imported when an audit runs, not for a gate run
    from claimgate.audit.index.ahead import ChunksAhead
    from claimgate.audit.matching.settings import MatchSettings

quiet_refusals()  # the API's refusals print nothing through Hamilton's loggers (execution.hamilton_logs)

#: How a run runs when the caller says nothing: whole-table, local, the loaders' size limits.
LOCAL = RunSettings()


def _builder(modules: tuple, config: dict, remote_executor: object | None, adapters: tuple = ()) -> driver.Builder:
    """A driver builder over ``modules``: whole-table, or partitioned on ``remote_executor`` (dynamic execution).

    ``adapters`` (``RunSettings.adapters``, checked) are attached with ``Builder.with_adapters``.
    """
    builder = (
        driver.Builder().with_modules(*modules).with_config({**config, "partitioned": remote_executor is not None})
    )
    if remote_executor is not None:
        builder = builder.enable_dynamic_execution(allow_experimental_mode=True).with_remote_executor(remote_executor)
    if adapters:
        builder = builder.with_adapters(*adapters)
    return builder


def gate_driver(remote_executor: object | None = None, progress: bool = False, adapters: tuple = ()) -> driver.Driver:
    """The gate's Hamilton driver: whole-table for ``None``, partitioned on ``remote_executor`` otherwise."""
    modules = (pinned_sources, gate_loading, gate_batching, gate_stages, gate_results)
    builder = _builder(modules, {}, remote_executor, adapters)
    if progress:
        builder = builder.with_adapters(ProgressBar("gate", partitioned=remote_executor is not None))
    return builder.build()


def gate_lines_driver(adapters: tuple = ()) -> driver.Driver:
    """The gate's whole-table driver plus ``gate.result_lines``: a batch's decisions as JSON lines (streamed runs)."""
    modules = (pinned_sources, gate_loading, gate_batching, gate_stages, gate_results, gate_result_lines)
    return _builder(modules, {}, None, adapters).build()


@dataclass
class GateRun:
    """What one gate run returns: decisions, the whole case table, and the loaded schema and sources."""

    results: pd.DataFrame
    case_rows: pd.DataFrame
    schema: ClaimSchema
    verified_sources: pd.DataFrame
    #: ``gate.stages.ignored_directive_lines`` (``None`` when a caller built the run without it).
    ignored_directive_lines: pd.DataFrame | None = None


@dataclass(frozen=True)
class LoadedGate:
    """A manifest read and verified once, its claim schema, and the driver built for them (``Gate``).

    ``manifest`` is ``io.sources.read_manifest``'s document; ``verified_sources`` the
    ``verified_sources`` node's frame. Made by ``load_gate``; a run over it decides
    against these values and reads no file.
    """

    manifest: dict
    verified_sources: pd.DataFrame
    schema: ClaimSchema
    driver: driver.Driver


def load_gate(manifest: dict, schema_path: str | Path | None = None, settings: RunSettings = LOCAL) -> LoadedGate:
    """Verify every pinned file of a read ``manifest`` and load the claim schema (``None``: Quill's), once.

    Raises ``IngestionError`` exactly as a gate run over files refuses a whole run. The driver carries
    ``settings.adapters`` (every later ``decide_many`` runs with them).
    """
    dr = gate_driver(adapters=settings.adapters)
    out = dr.execute(
        ["verified_sources", "claim_schema"],
        overrides={"load_manifest": manifest},
        inputs={"schema_path": str(schema_path or ""), **settings.size_limits()},
    )
    return LoadedGate(manifest, out["verified_sources"], out["claim_schema"], dr)


def _run_loaded_gate(loaded: LoadedGate, case_rows: pd.DataFrame) -> GateRun:
    """Decide ``case_rows`` (``io.tables.case_table_frame``) against ``loaded`` in one local execution."""
    overrides = {
        "load_manifest": loaded.manifest,
        "verified_sources": loaded.verified_sources,
        "claim_schema": loaded.schema,
        "case_rows": case_rows,
    }
    with gc_paused():
        results = loaded.driver.execute(["gate_results"], overrides=overrides)["gate_results"]
    return GateRun(results, case_rows, loaded.schema, loaded.verified_sources)


def run_gate(
    manifest: str | Path | LoadedGate,
    cases: str | Path | pd.DataFrame,
    schema_path: str | Path | None = None,
    settings: RunSettings = LOCAL,
) -> GateRun:
    """Run the gate over a case table in one Hamilton execution (or one per partition of ``settings``).

    The command line passes files: a manifest, a case table and a schema path (``None``:
    Quill's). ``Gate`` passes a ``LoadedGate`` and the case frame of ``io.tables.case_table_frame``
    (then ``schema_path`` and ``settings`` are those it was loaded with, and the run is one
    local execution with no ``ignored_directive_lines``). Raises ``IngestionError`` when the
    manifest, a source, the schema or the case table is refused; never for a single bad case.
    """
    if isinstance(manifest, LoadedGate):
        if not isinstance(cases, pd.DataFrame):
            raise TypeError("a LoadedGate decides a case frame (io.tables.case_table_frame), not a path")
        return _run_loaded_gate(manifest, cases)
    inputs: dict = {
        "manifest_path": str(manifest),
        "cases_path": str(cases),
        "schema_path": str(schema_path or ""),
        **settings.size_limits(),
    }
    with task_executor(settings.executor, settings.scheduler, settings.workers, settings.quiet) as remote:
        if remote is not None:
            inputs["partition_rows"] = settings.partition_rows
        dr = gate_driver(remote, progress=settings.progress, adapters=settings.adapters)
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


def audit_driver(
    document_source: str, remote_executor: object | None = None, progress: bool = False, adapters: tuple = ()
) -> driver.Driver:
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
        adapters,
    )
    if progress and remote_executor is not None:
        builder = builder.with_adapters(ProgressBar(desc="audit", partitioned=True))
    return builder.build()


@dataclass
class AuditRun:
    """What one audit run returns: one row per citation, the documents, and each document's extractor.

    ``extractors`` (``{doc_id: extractor}``) is set for a folder corpus and a pinned manifest (``io.documents``,
    ``io.pinned_pages``), read now (``DocumentFolder``, ``PinnedManifest``) or indexed once by ``Audit``
    (``IndexedCorpus``); ``source_maps`` then holds their rendered pages' maps (``io.visible_text``).
    """

    results: pd.DataFrame
    documents: dict
    extractors: dict | None = None
    skipped: list | None = None  # a folder's files with no extractor (doc_ids), not read
    source_maps: dict | None = None  # {doc_id: VisibleText | PdfPages} of rendered pages and PDFs (ledger rows)


#: The node giving the documents' frame (``io.documents.DOCUMENT_COLUMNS``) per ``document_source``.
DOCUMENT_FRAMES = {"folder": "folder_documents", "manifest": "pinned_documents"}


def _document_inputs(documents: Documents) -> tuple[str, dict]:
    """The audit driver's ``document_source`` and the inputs naming the documents' file or folder."""
    if isinstance(documents, CorpusFile):
        return "corpus", {"corpus_path": str(documents.path)}
    if isinstance(documents, PinnedManifest):
        return "manifest", {"manifest_path": str(documents.path)}
    if isinstance(documents, DocumentFolder):
        globs = [documents.glob] if isinstance(documents.glob, str) else list(documents.glob or ())
        return "folder", {
            "corpus_dir": str(documents.path),
            **({"corpus_glob": globs} if globs else {}),
            **({"corpus_exclude": list(documents.exclude)} if documents.exclude else {}),
            **({"html_main_content": True} if documents.html_main_content else {}),
        }
    raise TypeError(
        f"documents must be a CorpusFile, PinnedManifest, DocumentFolder or IndexedCorpus, not {documents!r}"
    )


def read_pinned_frame(documents: PinnedManifest, settings: RunSettings = LOCAL) -> pd.DataFrame:
    """A manifest's pinned sources verified and extracted, read once (node ``pinned_documents``).

    Columns of ``io.documents.DOCUMENT_COLUMNS``; raises ``IngestionError`` as an audit over the manifest does.
    """
    _, inputs = _document_inputs(documents)
    return audit_driver("manifest", adapters=settings.adapters).execute(
        ["pinned_documents"], inputs={**inputs, **settings.size_limits()}
    )["pinned_documents"]


def index_corpus(
    documents: dict,
    extractors: dict | None = None,
    cache_dir: str | Path | None = None,
    adapters: tuple = (),
    source_maps: dict | None = None,
    base: IndexedCorpus | None = None,
) -> IndexedCorpus:
    """Index ``documents`` (``{doc_id: text}``) once; ``cache_dir`` keeps the index between processes.

    ``adapters`` (checked lifecycle adapters) ride on the driver: the indexing and every later check run with them.
    ``source_maps`` (``{doc_id: VisibleText}``, a folder's rendered pages) moves their spans into the files.
    ``base``: this audit's previous index (``Audit.refresh``): every document whose text it holds keeps
    its part and only the others are normalized (``audit.index.reuse``, the same index as a cold build);
    the base's driver is kept (``adapters`` are ignored) and sees no indexing node.
    """
    if base is not None:
        from claimgate.audit import stages as audit_stages
        from claimgate.audit.index.cache import cached_corpus_index

        index = cached_corpus_index(documents, cache_dir, audit_stages.build_corpus_index, base=base.index)
        return IndexedCorpus(documents, extractors, index, base.driver, source_maps or None)
    dr = audit_driver("corpus", adapters=adapters)
    inputs = {} if cache_dir is None else {"cache_dir": str(cache_dir)}
    index = dr.execute(["normalized_sources"], inputs=inputs, overrides={"source_documents": documents})
    return IndexedCorpus(documents, extractors, index["normalized_sources"], dr, source_maps or None)


def _match_inputs(match: MatchSettings | None) -> dict:
    """The matching nodes' inputs from ``match`` (``None``: ``MatchSettings()``; ``max_steps`` is not an input)."""
    from claimgate.audit.matching.settings import MatchSettings

    match = MatchSettings() if match is None else match
    if match.max_steps != MatchSettings().max_steps:
        raise ValueError("max_steps is the matcher's own limit; an audit run cannot change it")
    return {
        "min_tokens": match.min_tokens,
        "min_fragment_tokens": match.min_fragment_tokens,
        "window_chars": match.window_chars,
    }


def run_audit(
    citations: str | Path | pd.DataFrame,
    documents: Documents,
    *,
    llm_call: object | None = None,
    match: MatchSettings | None = None,
    diagnose: bool = True,
    cache_dir: str | Path | None = None,
    settings: RunSettings = LOCAL,
    chunks_ahead: ChunksAhead | None = None,
) -> AuditRun:
    """Audit a citation table against ``documents``: a corpus file, a pinned manifest, a folder, or an index.

    The command line passes a citation file and a ``CorpusFile``, ``PinnedManifest`` or
    ``DocumentFolder``; ``Audit`` passes the citation frame of ``io.tables.citation_table_frame`` and
    its ``IndexedCorpus`` (one local execution over the index built once). ``match`` travels whole to
    the matching nodes (``None``: ``MatchSettings()``). ``diagnose``: add the near-miss diagnosis to
    rejected rows (verdicts are the same either way; see docs/audit-rules.md, "Diagnosis").
    ``cache_dir`` keeps the corpus index on disk between runs (``audit.index.cache``). ``chunks_ahead``
    (a corpus file, local executor): a forked helper normalizing the file's chunks while this process
    imports (``audit.index.ahead``; the command starts it, the index is the same without it). With
    ``settings.row_helper`` and the local executor, a forked helper audits and diagnoses the citations from the
    last back while this process goes forward (``runtime.rows_ahead``; the rows are the same without it). Raises
    ``IngestionError`` when the corpus, manifest, a source, a folder's document or the citation
    table is refused.
    """
    inputs: dict = {**_match_inputs(match), "diagnose": diagnose}
    if llm_call is not None:
        inputs["llm_call"] = llm_call
    if isinstance(documents, IndexedCorpus):
        overrides = {
            "source_documents": documents.documents,
            "normalized_sources": documents.index,
            "citation_rows": citations,
        }
        if documents.source_maps:
            inputs["source_maps"] = documents.source_maps
        results = documents.driver.execute(["audit_results"], inputs=inputs, overrides=overrides)["audit_results"]
        return AuditRun(results, documents.documents, documents.extractors, None, documents.source_maps)
    document_source, document_inputs = _document_inputs(documents)
    inputs.update(citations_path=str(citations), **document_inputs, **settings.size_limits())
    if cache_dir is not None:
        inputs["cache_dir"] = str(cache_dir)
    if chunks_ahead is not None:
        inputs["chunks_ahead"] = chunks_ahead
    frame_node = DOCUMENT_FRAMES.get(document_source)  # the documents' frame: their extractors and source maps
    with task_executor(settings.executor, settings.scheduler, settings.workers, settings.quiet) as remote:
        if remote is not None:
            inputs["partition_rows"] = settings.partition_rows
        else:
            inputs.update(show_progress=settings.progress, row_helper=settings.row_helper)
        dr = audit_driver(document_source, remote, progress=settings.progress, adapters=settings.adapters)
        wanted = ["audit_results", "source_documents", *([frame_node] if frame_node else [])]
        with gc_paused():
            out = dr.execute(wanted, inputs=inputs)
    if frame_node is None:
        return AuditRun(out["audit_results"], out["source_documents"])
    from claimgate.io.documents import frame_source_maps

    frame = out[frame_node]
    extractors = dict(zip(frame["doc_id"], frame["extractor"]))
    skipped = list(frame.attrs.get("skipped", []))
    return AuditRun(out["audit_results"], out["source_documents"], extractors, skipped, frame_source_maps(frame))


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
