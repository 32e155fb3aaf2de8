"""Drivers: build Hamilton drivers for the gate and the audit, run them, shape documents.

A small driver layer, as in Hamilton's examples: choose modules and config, pick an
executor, ask for the final nodes, and turn the frames into the JSON documents the
command line writes. No decision is taken here.
"""

from __future__ import annotations

import contextlib
import gc
import importlib.util
import logging
import sys
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pandas as pd
from hamilton import driver, lifecycle

import claimgate  # noqa: F401  (telemetry off, extension autoloading off: before Hamilton is imported)
from claimgate.execution import dask_scheduler, signals
from claimgate.execution import workers as workers_module
from claimgate.gate import batching as gate_batching
from claimgate.gate import loading as gate_loading
from claimgate.gate import results as gate_results
from claimgate.gate import stages as gate_stages
from claimgate.gate.schema import DEFAULT_EXECUTION_MODE, ClaimSchema
from claimgate.io import pinned_sources

EXECUTORS = ("local", "multiprocessing", "dask", "ray")
EXECUTION_MODE = DEFAULT_EXECUTION_MODE  # the seed's; a schema may set its own ``execution_mode``
POLICY = (
    "Only sources whose version equals the requested version exactly are eligible; a newer version is never "
    "a fallback and candidate order never picks a winner. Only explicit directive lines are read; prose is "
    "never interpreted. A request is prepared only when every eligible source declares the requested key "
    "and all values agree; otherwise the gate stops with a reason."
)
LIMIT = (
    "The gate compares declared directive values. It is not a prose contradiction detector and not an "
    "authority system, and a prepared answer request is not an answer: no model is called."
)


def quiet_hamilton_logs(debug: bool = False) -> None:
    """Keep Hamilton's own error banner off stderr unless ``debug`` (refusals print one line)."""
    logging.getLogger("hamilton").setLevel(logging.DEBUG if debug else logging.CRITICAL)


def check_executor(executor: str) -> None:
    """Raise ``ValueError`` (one line, for a usage error) when ``executor`` is unknown or not installed."""
    if executor not in EXECUTORS:
        raise ValueError(f"unknown executor {executor!r}; choose one of {', '.join(EXECUTORS)}")
    if executor == "ray" and importlib.util.find_spec("ray") is None:
        raise ValueError("--executor ray needs the optional extra: pip install 'claimgate[ray]'")


@contextlib.contextmanager
def gc_paused() -> Iterator[None]:
    """Pause Python's cyclic garbage collector for a bulk build, restoring it afterwards.

    A batch run allocates millions of long-lived containers (raw case rows, result
    dicts); each automatic collection rescans all of them, which cost about 40% of a
    50,000-case run. Nothing built here forms reference cycles that need collecting.
    """
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


@contextlib.contextmanager
def dask_client(scheduler: str | None = None, workers: int = 2) -> Iterator[object]:
    """A ``dask.distributed.Client``, closed on exit (with its cluster when it made one), also when interrupted.

    Connects to ``scheduler`` (an address such as ``tcp://host:8786``) or, without
    one, to a ``LocalCluster`` of ``workers`` single-threaded processes with no
    dashboard and Dask's logs at ERROR. Raises ``UsageError`` when the scheduler
    cannot be reached.
    """
    from dask.distributed import Client, LocalCluster

    client = cluster = None
    try:
        # A SIGTERM while the cluster starts is held until it is up, then ends the run here,
        # where ``finally`` closes it (a half-built cluster cannot be closed).
        with signals.deferred_termination():
            if scheduler:
                client = dask_scheduler.scheduler_client(Client, scheduler)
            else:
                with warnings.catch_warnings():
                    # Another cluster on this machine holds port 8787: Dask picks another and says so.
                    warnings.filterwarnings("ignore", message="Port .* is already in use", category=UserWarning)
                    cluster = LocalCluster(
                        n_workers=workers,
                        threads_per_worker=1,
                        processes=True,
                        dashboard_address=None,
                        silence_logs=logging.ERROR,
                    )
                client = Client(cluster)
        yield client
    finally:
        if client is not None:
            client.close()
        if cluster is not None:
            cluster.close()


def ray_init_config(scheduler: str | None = None, quiet: bool = True) -> dict:
    """Keyword arguments for ``ray.init``: no dashboard, and with ``quiet`` no Ray log lines on the console.

    Ray's usage reporting is off for the whole process (``RAY_USAGE_STATS_ENABLED=0``,
    set by ``import claimgate``). With ``quiet``, Ray logs at ERROR and its workers'
    output is not forwarded to the driver's console.
    """
    config: dict = {"include_dashboard": False}
    if scheduler:
        config["address"] = scheduler
    if quiet:
        config.update(logging_level=logging.ERROR, log_to_driver=False)
    return config


@contextlib.contextmanager
def ray_session(scheduler: str | None = None, quiet: bool = True) -> Iterator[None]:
    """``ray.init`` (``ray_init_config``) on entry and ``ray.shutdown`` on exit."""
    import ray

    ray.init(**ray_init_config(scheduler, quiet))
    try:
        yield
    finally:
        ray.shutdown()


@contextlib.contextmanager
def task_executor(
    executor: str, scheduler: str | None = None, workers: int = 2, quiet: bool = True
) -> Iterator[object | None]:
    """A Hamilton task executor for ``executor`` (``None`` for ``local``), closed on exit.

    ``multiprocessing`` workers die with this process, even by ``SIGKILL``, and are
    terminated when the block ends (``execution.workers``). ``dask`` runs on a
    ``dask_client``. ``ray`` needs the optional ``ray`` extra and starts Ray with
    ``ray_init_config`` (``quiet``: no Ray log lines). Each plugin module
    (``hamilton.plugins.h_dask``, ``h_ray``) is imported here, explicitly: claimgate
    turns Hamilton's extension autoloading off. Raises ``ValueError`` for an unknown
    name or a missing extra (``check_executor``), before anything is started.
    """
    check_executor(executor)
    if executor == "local":
        yield None
    elif executor == "multiprocessing":
        pool = workers_module.ParentBoundProcessExecutor(max_tasks=workers)
        try:
            yield pool
        finally:  # a run that ended early (an error, Ctrl-C, SIGTERM) stops its workers now
            workers_module.shutdown_pool(pool)
    elif executor == "dask":
        from hamilton.plugins.h_dask import DaskExecutor

        with dask_client(scheduler, workers) as client:
            yield DaskExecutor(client=client)
    else:  # ray (checked above): the executor calls ray.init and ray.shutdown itself
        from hamilton.plugins.h_ray import RayTaskExecutor

        yield RayTaskExecutor(ray_init_config=ray_init_config(scheduler, quiet))


class ProgressBar(
    lifecycle.GraphExecutionHook, lifecycle.NodeExecutionHook, lifecycle.TaskGroupingHook, lifecycle.TaskReturnHook
):
    """A tqdm bar on stderr: nodes done in a whole-table run, tasks done in a partitioned run.

    Why not ``hamilton.plugins.h_tqdm.ProgressBar``: it keeps its tqdm bar on the adapter,
    and a remote executor pickles the adapter into every task, so a partitioned run
    failed with ``PicklingError``. This bar stays in the driver process (a pickled copy
    has none and draws nothing); a partitioned run counts tasks as they return to the
    driver, the total growing when the partitions are known. tqdm's ``disable=None``
    keeps it silent when stderr is not a terminal.
    """

    def __init__(self, desc: str, partitioned: bool) -> None:
        self.desc = desc
        self.partitioned = partitioned
        self.bar = None

    def __getstate__(self) -> dict:
        return {**self.__dict__, "bar": None}

    def run_before_graph_execution(self, *, execution_path, **future_kwargs) -> None:
        import tqdm

        total = None if self.partitioned else len(execution_path)
        unit = "tasks" if self.partitioned else "nodes"
        self.bar = tqdm.tqdm(desc=self.desc, total=total, unit=unit, file=sys.stderr, disable=None, leave=False)

    def run_before_node_execution(self, *, node_name: str, **future_kwargs) -> None:
        if self.bar is not None and not self.partitioned:
            self.bar.set_postfix_str(node_name, refresh=True)

    def run_after_node_execution(self, **future_kwargs) -> None:
        if self.bar is not None and not self.partitioned:
            self.bar.update(1)

    def run_after_task_grouping(self, *, task_ids: list[str], **future_kwargs) -> None:
        if self.bar is not None and self.partitioned:
            self.bar.total = len(task_ids)
            self.bar.refresh()

    def run_after_task_expansion(self, *, parameters: dict, **future_kwargs) -> None:
        if self.bar is not None and self.partitioned and self.bar.total is not None:
            # The block was counted once at grouping; it now runs once per partition.
            self.bar.total += len(parameters) - 1
            self.bar.refresh()

    def run_after_task_return(self, *, task_id: str, **future_kwargs) -> None:
        if self.bar is not None and self.partitioned:
            self.bar.set_postfix_str(task_id, refresh=False)
            self.bar.update(1)

    def run_after_graph_execution(self, **future_kwargs) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


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


def case_entry(request: object, case_id: str | None, result: dict) -> dict:
    """One output entry ``{case_id, candidate_ids, requested_version, claim_key[, operation], result}``.

    The request fields are echoed from the raw row (``None`` where the row lacks them
    or is not an object); ``operation`` is echoed too when the row gives one.
    """
    fields = request if isinstance(request, dict) else {}
    entry = {
        "case_id": case_id,
        "candidate_ids": fields.get("candidate_ids"),
        "requested_version": fields.get("requested_version"),
        "claim_key": fields.get("claim_key"),
    }
    if "operation" in fields:
        entry["operation"] = fields["operation"]
    entry["result"] = result
    return entry


def case_entries(run: GateRun) -> list[dict]:
    """Every case's ``case_entry``, in case-table order."""
    return [
        case_entry(request, case_id, result)
        for request, case_id, result in zip(run.case_rows["request"], run.results["case_id"], run.results["result"])
    ]


def refusal_details(run: GateRun) -> list[dict]:
    """``[{position, case_id, error, reason, detail}]`` for every refused case, in case-table order.

    ``detail`` is the one-line explanation of the reason (which source and line, which
    candidate). It sits beside the result objects, which keep exactly the shape of docs/gate-rules.md, "Result objects".
    """
    refused = run.results.loc[run.results["status"] == "refused", ["position", "case_id", "error", "reason", "detail"]]
    return [
        {"position": int(p), "case_id": c, "error": e, "reason": r, "detail": d}
        for p, c, e, r, d in refused.itertuples(index=False, name=None)
    ]


def ignored_lines(run: GateRun) -> list[dict]:
    """``[{source_id, line, rule, quote}]``: the run's ``ignored_directive_lines`` as JSON-ready dicts.

    ``[]`` for a schema without opt-ins; computed from the verified sources when the run lacks the frame.
    """
    frame = run.ignored_directive_lines
    if frame is None:
        frame = gate_stages.ignored_directive_lines(run.verified_sources, run.schema)
    return [
        {"source_id": s, "line": int(n), "rule": r, "quote": q}
        for s, n, r, q in frame[["source_id", "line", "rule", "quote"]].itertuples(index=False, name=None)
    ]


def gate_document(run: GateRun, fixture_kind: str, changed_source: dict | None = None) -> dict:
    """The ``gate_result.json`` document of docs/gate-rules.md, "Result objects" (``changed_source``: default run).

    ``ignored_directive_lines`` is present only when the schema opts into a narrower
    directive rule (docs/gate-rules.md, "Directive opt-ins"), listing every line it kept
    from being read.
    """
    document = {
        "execution_mode": run.schema.execution_mode,
        "model_called": False,
        "fixture_kind": fixture_kind,
        "grammar": run.schema.grammar,
        "schema": run.schema.as_dict(),
        "cases": case_entries(run),
    }
    document["refusal_details"] = refusal_details(run)
    if run.schema.skip_fenced_code or run.schema.directive_scope != "line":
        document["ignored_directive_lines"] = ignored_lines(run)
    if changed_source is not None:
        document["changed_source"] = changed_source
    document["policy"] = POLICY
    document["limit"] = LIMIT
    return document


def text_table(rows: list[list[str]], header: list[str]) -> str:
    """Left-aligned fixed-width text table with a rule under the header."""
    widths = [max(len(str(v)) for v in column) for column in zip(header, *rows)]
    lines = ["  ".join(str(v).ljust(w) for v, w in zip(header, widths)).rstrip()]
    lines.append("  ".join("-" * w for w in widths))
    lines.extend("  ".join(str(v).ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows)
    return "\n".join(lines)


#: Characters of a refusal's detail shown in the terminal table (the whole detail is in the result file).
DETAIL_CHARS = 72


def clipped(text: str, width: int = DETAIL_CHARS) -> str:
    """``text`` cut to at most ``width`` characters at a word boundary, with ``…`` when cut.

    A first word longer than ``width`` is cut inside it (there is no boundary to use).
    """
    if len(text) <= width:
        return text
    cut = text[: width - 1]
    boundary = cut.rfind(" ")
    if boundary > 0:
        cut = cut[:boundary]
    return cut.rstrip() + "…"


def summary_table(run: GateRun) -> str:
    """A readable table of case, status, reason and decided_at (and the detail of a refusal)."""
    rows = [
        [case_id if isinstance(case_id, str) else f"<row {position}>", status, reason, decided_at, clipped(detail)]
        for position, case_id, status, reason, decided_at, detail in zip(
            run.results["position"],
            run.results["case_id"],
            run.results["status"],
            run.results["reason"],
            run.results["decided_at"],
            run.results["detail"],
        )
    ]
    return text_table(rows, ["case", "status", "reason", "decided_at", "detail"])


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
        if max_source_bytes is not None:
            inputs["max_source_bytes"] = max_source_bytes
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
