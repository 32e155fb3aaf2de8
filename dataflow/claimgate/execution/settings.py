"""How a run reads and where it runs: one frozen settings object, built once and passed whole.

The command line builds it from its options (``cli.options.run_settings``), ``Gate`` and ``Audit``
build theirs from their arguments; the drivers (``execution.drivers``) and the streamed gate
(``execution.streaming``) read it. No field changes a decision or a verdict: the same inputs give
byte-identical results on every executor, partition size and worker count (tested). What decides is
elsewhere: the claim schema (gate) and ``MatchSettings`` (audit), passed beside it.
"""

from __future__ import annotations

from dataclasses import dataclass

#: Cases per chunk of a streamed run on the local executor (bounded memory, few executions).
LOCAL_CHUNK_ROWS = 25_000


@dataclass(frozen=True)
class RunSettings:
    """Size limits, executor, scheduler, partitions, workers, progress: everything about running.

    ``executor``: ``local``, ``multiprocessing``, ``dask`` or ``ray``; ``scheduler``: a Dask
    scheduler or Ray address (``None``: a local cluster of ``workers`` processes).
    ``partition_rows``: rows per partition on an executor that is not local. ``chunk_rows``:
    cases per chunk of a streamed gate run (``None``: ``partition_rows`` on an executor,
    ``LOCAL_CHUNK_ROWS`` locally). ``window``: chunks in flight on an executor (``None``: twice
    ``workers``). ``progress``: a bar on a terminal's stderr. ``quiet``: keep the executor's own
    logging off stderr. ``max_source_bytes`` / ``max_corpus_bytes``: refuse a larger source or
    corpus (``None``: the loaders' defaults, ``io.sources.DEFAULT_MAX_SOURCE_BYTES`` and
    ``DEFAULT_MAX_CORPUS_BYTES``). ``adapters``: your Hamilton lifecycle adapters (hooks and validators,
    checked by ``execution.adapters.checked_adapters``), attached to every driver the run builds; they
    watch a run and cannot change what it decides. ``row_helper``: with the local executor, a forked helper
    audits and diagnoses an audit's citations from the last back while the run goes forward
    (``runtime.rows_ahead``: the same rows either way; off unless asked: the command asks, ``Audit`` never does).
    """

    executor: str = "local"
    scheduler: str | None = None
    partition_rows: int = 10_000
    chunk_rows: int | None = None
    workers: int = 2
    window: int | None = None
    progress: bool = False
    quiet: bool = True
    max_source_bytes: int | None = None
    max_corpus_bytes: int | None = None
    adapters: tuple = ()
    row_helper: bool = False

    def __post_init__(self) -> None:
        """Check ``adapters`` (``TypeError``, one line, for one that is not a watching lifecycle adapter)."""
        if self.adapters:
            from claimgate.execution.adapters import checked_adapters

            object.__setattr__(self, "adapters", checked_adapters(self.adapters))
        elif not isinstance(self.adapters, tuple):
            object.__setattr__(self, "adapters", ())

    @property
    def stream_chunk_rows(self) -> int:
        """Cases per chunk of a streamed run (``chunk_rows``, else by executor as the docstring says)."""
        if self.chunk_rows is not None:
            return self.chunk_rows
        return self.partition_rows if self.executor != "local" else LOCAL_CHUNK_ROWS

    def size_limits(self) -> dict[str, int]:
        """The loaders' ``max_source_bytes`` / ``max_corpus_bytes`` inputs that are set (none: their defaults)."""
        limits = {"max_source_bytes": self.max_source_bytes, "max_corpus_bytes": self.max_corpus_bytes}
        return {name: value for name, value in limits.items() if value is not None}
