"""Streaming the gate: decide a case table chunk by chunk and write JSONL lines as each chunk completes.

Why: a whole-table run holds every raw row, every frame and every result object at
once, so its memory grows with the table (about 2.6 GiB at 500,000 cases). A
streamed run holds one chunk at a time (a few per worker with an executor), so its
peak memory depends on ``chunk_rows``, not on the table's length.

How: the table-wide values are computed once through the gate's driver — the
verified sources, the claim schema and every source's parsed directives
(``TABLE_CONSTANTS``) — and passed as overrides to
one execution of the same driver per chunk, which asks for the final nodes
``result_lines`` and ``case_outcomes`` (``gate.result_lines``: the chunk's JSONL bytes,
joined straight from the decisions, and its decisions without result objects); the
lines are written in case-table order into one temporary file that replaces the
output only when every chunk is written (``atomic.write_atomic``). The decision nodes
are the same functions as in a whole-table run and the case chunks carry the whole
table's positions and duplicate checks (``io.case_stream``), so the bytes are the
same (tested).

With ``executor="dask"`` (or ``"multiprocessing"``, ``"ray"``) the workers decide the
chunks: the table-wide values are sent to each worker once, at most ``window``
chunks are in flight, and the driver writes each chunk's bytes as soon as it and the
chunks before it are done, never holding every result.

What it does not do: write a ``.json`` document (one JSON object around every case)
or ``.parquet``; those need the whole result, and the command line runs the
whole-table gate for them (``drivers.run_gate``).
"""

from __future__ import annotations

import collections
import contextlib
import gc
import io
import os
import types
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from claimgate.execution import drivers, executors, progress, workers
from claimgate.execution.settings import RunSettings
from claimgate.gate.decisions import Stage, decisions
from claimgate.io.atomic import write_atomic
from claimgate.io.case_stream import CaseChunks
from claimgate.runtime import signals

#: Nodes whose values are the same for every chunk of a table: computed once, then overridden per chunk.
TABLE_CONSTANTS = ("verified_sources", "claim_schema", "source_directives", "parsed_claims", "parsed_claim_records")
#: Rows per chunk of a local streamed run: about 200 MiB of chunk state on the benchmark's shapes.
#: Cases shown one per line in the command's summary table (as in a whole-table run).
SUMMARY_ROWS = 50
_SUMMARY_COLUMNS = ["position", "case_id", "status", "reason", "decided_at", "detail"]


@dataclass
class StreamedGate:
    """What a streamed run returns: how many cases, counts by (status, reason), the first rows' decisions.

    ``results`` has the columns of ``gate_results`` but ``result`` for the first
    ``SUMMARY_ROWS + 1`` cases only (enough for ``cli.terminal.summary_table``).
    ``ignored_directive_lines``: the lines a schema opt-in kept from being read.
    """

    cases: int = 0
    counts: collections.Counter = field(default_factory=collections.Counter)
    results: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(columns=_SUMMARY_COLUMNS))
    #: ``gate.stages.ignored_directive_lines`` of the pinned sources (for ``cli.documents.ignored_lines``).
    ignored_directive_lines: pd.DataFrame | None = None

    def status_counts(self) -> pd.DataFrame:
        """Cases per ``status, reason``, sorted by both (the frame a whole run's ``groupby`` gives)."""
        rows = sorted((status, reason, cases) for (status, reason), cases in self.counts.items())
        frame = pd.DataFrame(rows, columns=["status", "reason", "cases"])
        return frame.astype({"status": "str", "reason": "str", "cases": "int64"})


def table_constants(
    manifest_path: str | Path,
    schema_path: str | Path | None = None,
    max_source_bytes: int | None = None,
    max_corpus_bytes: int | None = None,
    adapters: tuple = (),
) -> tuple[dict, pd.DataFrame]:
    """The values of ``TABLE_CONSTANTS`` for a manifest and schema, computed once through the gate's driver.

    Returned with the sources' ``ignored_directive_lines`` (reported, not needed to decide).

    ``source_directives`` is computed with every verified source eligible, so each
    source is parsed once for the whole table; a chunk only ever joins its claims and
    errors with its own eligible sources, so a source no case can use changes nothing.
    ``parsed_claims`` and ``parsed_claim_records`` (every claim's record and answer-request
    JSON, ``gate.result_lines``) follow from those directives alone, so they are built once too.
    Raises ``IngestionError`` (``hash_mismatch``, ``invalid_manifest``, …) as a
    whole-table run does. ``adapters`` (``RunSettings.adapters``) watch these executions too.
    """
    inputs: dict = {"manifest_path": str(manifest_path), "schema_path": str(schema_path or "")}
    if max_source_bytes is not None:
        inputs["max_source_bytes"] = max_source_bytes
    if max_corpus_bytes is not None:
        inputs["max_corpus_bytes"] = max_corpus_bytes
    dr = drivers.gate_lines_driver(adapters)
    loaded = dr.execute(["verified_sources", "claim_schema", "ignored_directive_lines"], inputs=inputs)
    ignored = loaded.pop("ignored_directive_lines")
    every_source = Stage(
        decided=decisions([]), passed=pd.DataFrame({"source_id": loaded["verified_sources"]["source_id"]})
    )
    overrides = {**loaded, "eligible_sources": every_source}
    loaded.update(
        dr.execute(["source_directives", "parsed_claims", "parsed_claim_records"], inputs=inputs, overrides=overrides)
    )
    return loaded, ignored


@dataclass
class DecidedChunk:
    """One decided chunk: its JSONL bytes, its counts by ``(status, reason)``, its first rows' decisions."""

    lines: bytes
    cases: int
    counts: dict
    head: pd.DataFrame | None


#: One driver per process (the command's, or a worker's), built on first use, with the adapters it was built for.
_DRIVER: tuple[tuple, object] | None = None


def _chunk_driver(adapters: tuple) -> object:
    """The process's chunk driver for ``adapters`` (rebuilt when they are other objects than last time)."""
    global _DRIVER
    key = tuple(map(id, adapters))
    if _DRIVER is None or _DRIVER[0] != key:
        _DRIVER = (key, drivers.gate_lines_driver(adapters))
    return _DRIVER[1]


def decided_chunk(case_table: pd.DataFrame, constants: dict, adapters: tuple = ()) -> DecidedChunk:
    """Decide one chunk of the case table with the gate's driver; runs in the driver process or on a worker.

    ``adapters`` watch the chunk's execution (one graph execution per chunk); on a worker they are
    the pickled copies the executor sent.
    """
    with drivers.gc_paused():
        values = _chunk_driver(adapters).execute(
            ["result_lines", "case_outcomes"], overrides={**constants, "case_rows": case_table}
        )
    lines, results = values["result_lines"], values["case_outcomes"]
    counts = results.groupby(["status", "reason"]).size().to_dict()
    first = int(case_table["position"].iloc[0]) if len(case_table) else 0
    # A copy: a view would keep the whole object block (every result object of the chunk) alive.
    head = results.iloc[: SUMMARY_ROWS + 1].loc[:, _SUMMARY_COLUMNS].copy() if first <= SUMMARY_ROWS else None
    return DecidedChunk(lines, len(results), counts, head)


_WORKER_CONSTANTS: dict = {}


def _start_worker(run_pid: int, constants: dict) -> None:
    """Process-pool initializer: the worker dies with the run (``workers.watch_parent``), keeps the table values."""
    workers.watch_parent(run_pid)
    _WORKER_CONSTANTS.update(constants)


def _result(future: object) -> DecidedChunk:
    return future.result()


def _dask_result(future: object) -> DecidedChunk:
    """A Dask future's chunk; an ``OSError`` from the client (not the task) means the scheduler was lost.

    Caught here, before ``write_atomic`` would read an ``OSError`` as the output file's failure.
    """
    try:
        return future.result()
    except OSError:
        if future.status == "error":  # the task's own error, raised again on this side
            raise
        raise executors.scheduler_lost() from None


def _decided_with_installed(case_table: pd.DataFrame, adapters: tuple = ()) -> DecidedChunk:
    return decided_chunk(case_table, _WORKER_CONSTANTS, adapters)


def _in_order(futures: Iterable, result: Callable, window: int) -> Iterator[DecidedChunk]:
    """Results of ``futures`` in submission order, with at most ``window`` submitted and not yet returned."""
    pending: collections.deque = collections.deque()
    for future in futures:
        pending.append(future)
        if len(pending) >= window:
            yield result(pending.popleft())
    while pending:
        yield result(pending.popleft())


def adapters_argument(adapters: tuple) -> tuple:
    """The extra arguments of ``decided_chunk`` for ``adapters``: none when there are none (two-argument calls)."""
    return (adapters,) if adapters else ()


def _local_chunks(chunks: Iterable[pd.DataFrame], constants: dict, adapters: tuple = ()) -> Iterator[DecidedChunk]:
    """``decided_chunk`` of each chunk in this process, collecting garbage before each chunk after the first.

    A chunk's node values stay in a reference cycle of Hamilton's executor until the
    collector runs: collecting before the next chunk is decided bounds memory to one
    chunk, and the last chunk's values are left to the collector's own schedule (a
    collection over a chunk's result objects costs about 0.1 s).
    """
    for number, chunk in enumerate(chunks):
        if number:
            gc.collect()
        yield decided_chunk(chunk, constants, *adapters_argument(adapters))


@contextlib.contextmanager
def decided_chunks(chunks: Iterable[pd.DataFrame], constants: dict, settings: RunSettings) -> Iterator:
    """An iterator of ``DecidedChunk`` in table order, decided on ``settings.executor`` (closed on exit)."""
    window = settings.window or 2 * settings.workers
    adapters = settings.adapters
    extra = adapters_argument(adapters)
    if settings.executor == "local":
        yield _local_chunks(chunks, constants, adapters)
    elif settings.executor == "dask":
        with drivers.dask_client(settings.scheduler, settings.workers) as client, executors.executor_failures(client):
            shared = client.scatter(constants, broadcast=True)
            futures = (client.submit(decided_chunk, chunk, shared, *extra, pure=False) for chunk in chunks)
            yield _in_order(futures, _dask_result, window)
    elif settings.executor == "multiprocessing":
        from concurrent.futures import ProcessPoolExecutor

        pool = ProcessPoolExecutor(settings.workers, initializer=_start_worker, initargs=(os.getpid(), constants))
        try:
            with executors.executor_failures():  # a killed worker: one line, exit 4
                yield _in_order(
                    (pool.submit(_decided_with_installed, chunk, *extra) for chunk in chunks), _result, window
                )
        except BaseException:  # a failed or interrupted run stops its workers now
            workers.shutdown_pool(types.SimpleNamespace(pool=pool))
            raise
        pool.shutdown(wait=True)
    elif settings.executor == "ray":
        import ray

        with drivers.ray_session(settings.scheduler, settings.quiet):
            shared = ray.put(constants)
            remote = ray.remote(decided_chunk)
            yield _in_order((remote.remote(chunk, shared, *extra) for chunk in chunks), ray.get, window)
    else:
        drivers.check_executor(settings.executor)  # raises for an unknown name
        raise ValueError(f"executor {settings.executor!r} cannot stream")


class _NoBar:
    def update(self, cases: int) -> None:
        pass


@contextlib.contextmanager
def _case_bar(cases_path: str | Path, settings: RunSettings) -> Iterator:
    """The streamed run's bar in cases (``progress.case_bar``, total ``estimated_cases``), or none."""
    if not settings.progress:
        yield _NoBar()
        return
    bar = progress.case_bar(progress.estimated_cases(cases_path))
    try:
        yield bar
        if bar.total is not None and bar.n != bar.total:  # the estimate counted blank lines: the true total
            bar.total = bar.n
            bar.refresh()
    finally:
        bar.close()


def stream_gate(
    manifest_path: str | Path,
    cases_path: str | Path,
    output_path: str | Path,
    schema_path: str | Path | None = None,
    settings: RunSettings = drivers.LOCAL,
) -> StreamedGate:
    """Decide a case table chunk by chunk and write its JSONL output atomically; return the run's summary.

    The output's bytes equal those of a whole-table run written with
    ``writers.write_jsonl`` (one ``gate.requests.case_entry`` per line, in case-table order).
    Raises ``IngestionError`` for a refused case table, manifest, source or schema (in
    that order, as a whole-table run), before anything is written; ``OutputError``
    when the output cannot be written; ``ValueError`` for an unknown executor or
    ``settings.stream_chunk_rows`` < 1 (chunks of ``settings.chunk_rows`` cases, else ``partition_rows``
    on an executor and ``LOCAL_CHUNK_ROWS`` locally). Nothing is written unless every chunk is
    decided. With ``settings.progress`` (and stderr a terminal): a phase line while the table is
    read and the sources verified, then a bar in cases towards ``progress.estimated_cases``, with
    rate and ETA (``execution.progress``). The garbage
    collector is paused for the run and collects once between chunks, with the long-lived
    values frozen (``gc.freeze``; ``gc.unfreeze`` at the end also unfreezes whatever a
    caller had frozen).
    """
    drivers.check_executor(settings.executor)
    summary = StreamedGate()
    heads: list[pd.DataFrame] = []

    def write(handle: io.BufferedWriter) -> None:
        with decided_chunks(chunks, constants, settings) as decided, _case_bar(cases_path, settings) as bar:
            for chunk in decided:
                signals.raise_if_terminated()  # a signal something swallowed ends the run here, not at the end
                bar.update(chunk.cases)
                handle.write(chunk.lines)
                summary.cases += chunk.cases
                summary.counts.update(chunk.counts)
                if chunk.head is not None:
                    heads.append(chunk.head)
                del chunk  # not held while the next chunk is decided
                if settings.executor != "local":  # a local run collects before each next chunk (_local_chunks)
                    gc.collect()

    # The collector is paused for the whole run: the raw rows and table-wide values are long-lived
    # containers, and each automatic pass would rescan them all (re-enabling it between steps set off
    # a pass over the 50,000 rows just read). It collects explicitly between chunks instead, with what
    # lives through the run frozen out of its sight (``gc.freeze``), so each of those passes scans one
    # chunk's leftovers only (a full collection over 50,000 held rows took 0.3 s per chunk).
    with drivers.gc_paused():
        with progress.phase("gate: reading the case table", settings.progress):
            chunks = CaseChunks(cases_path, settings.stream_chunk_rows)  # a refused table stops here, first
        with progress.phase("gate: verifying the pinned sources and parsing their directives", settings.progress):
            constants, summary.ignored_directive_lines = table_constants(
                manifest_path, schema_path, settings.max_source_bytes, settings.max_corpus_bytes, settings.adapters
            )
        gc.freeze()
        try:
            write_atomic(output_path, write)
        finally:
            gc.unfreeze()
    if heads:
        summary.results = pd.concat(heads, ignore_index=True).iloc[: SUMMARY_ROWS + 1]
    return summary
