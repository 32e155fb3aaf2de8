"""The in-process API: ``Gate`` (before generation) and ``Audit`` (after it), loaded once, called many times.

Why: an assistant gates each request before it calls its model. Building a case file on disk and running
the command line re-reads and re-hashes every pinned source per call; here the manifest is verified and the
Hamilton driver is built once, and each call decides against what was verified.

What it refuses to do: decide against a pinned file that changed since it was verified. Before each
decision the pinned files of the case's candidates are checked again (a ``stat`` first; a re-hash only
when size or modification time moved) and a changed file refuses the call with the command line's
whole-run refusal, ``IngestionError`` ``hash_mismatch``. The rules are in docs/python-api.md.

Results are the command line's: ``Gate.decide`` returns the result object the ``gate`` command writes for
that case, ``Gate.decide_many`` the ``gate_results`` frame, ``Audit.check`` the audit's rows. Both products
run through the command line's own entry points, ``execution.drivers.run_gate`` and ``run_audit``, with one
``RunSettings`` built here.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from claimgate.audit.index.cache import check_cache_folder
from claimgate.audit.matching.settings import MatchSettings
from claimgate.audit.stages import DIAGNOSIS_COLUMN, audit_columns
from claimgate.errors import IngestionError
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.gate.declaring import declaring_ids, declaring_sources
from claimgate.gate.reference import decide_case
from claimgate.gate.schema import ClaimSchema
from claimgate.io.documents import DEFAULT_GLOB, read_document_folder
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES, read_corpus, read_manifest, read_source_text
from claimgate.io.tables import case_table_frame, citation_table_frame

__all__ = ["Gate", "Audit"]


@dataclass(frozen=True)
class _Pin:
    """One pinned file as verified: its manifest entry and the ``stat`` taken before it was read."""

    entry: Mapping[str, str]
    path: Path
    size: int
    mtime_ns: int


def _stat_of(path: Path) -> tuple[int, int] | None:
    """``(size, mtime_ns)`` of ``path`` (following links), or ``None`` when it cannot be stat'ed."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return info.st_size, info.st_mtime_ns


def _rows(cases: Iterable[Mapping] | pd.DataFrame) -> list:
    """Raw case or citation rows from a list of dicts or a frame (one row per frame row).

    From a frame, a missing cell (``None``/``NaN``) means the field is absent, and a NumPy array cell
    (a list column read by ``pandas.read_parquet``) becomes a list; other values are passed as they are.
    """
    if not isinstance(cases, pd.DataFrame):
        return list(cases)
    rows = []
    for record in cases.to_dict("records"):
        row = {}
        for name, value in record.items():
            if isinstance(value, np.ndarray):
                value = value.tolist()
            elif value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value)):
                continue
            row[str(name)] = value
        rows.append(row)
    return rows


class Gate:
    """The contract gate over one verified manifest, for many decisions in one process.

    Build it with ``Gate.from_manifest``. ``decide`` decides one case, ``decide_many`` a batch; both
    check the pins they use first (docs/python-api.md, "Pinned files between decisions").
    """

    def __init__(
        self,
        *,
        loaded: drivers.LoadedGate,
        pins: dict[str, _Pin],
        settings: RunSettings,
        manifest_path: Path,
        schema_path: str,
    ) -> None:
        """What ``from_manifest`` loaded and verified (use ``from_manifest``: it takes the stats and checks)."""
        self._loaded = loaded
        self._pins = pins
        self._settings = settings
        self._manifest_path = manifest_path
        self._schema_path = schema_path
        self._records = {record["source_id"]: record for record in loaded.verified_sources.to_dict("records")}
        self._declared: pd.DataFrame | None = None  # declaring_sources, built at the first ``declaring``

    @classmethod
    def from_manifest(
        cls,
        manifest: str | Path,
        schema: str | Path | None = None,
        *,
        max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES,
        adapters: Iterable[object] = (),
    ) -> Gate:
        """Read the manifest, verify every pinned file once, load the claim schema, build the driver.

        ``schema`` is a claim schema TOML (``None``: Quill's). ``adapters`` are Hamilton lifecycle adapters
        (hooks and validators of ``hamilton.lifecycle``, such as ``hamilton.plugins.h_tqdm.ProgressBar``)
        attached to the driver: the verification here and every ``decide_many`` run with them (``decide``
        runs no Hamilton execution); ``TypeError`` for an object that is not one, or one that would execute
        nodes or build results itself (``execution.adapters``; README, "Your own Hamilton adapters").
        Raises ``IngestionError`` exactly as the
        ``gate`` command refuses a whole run: ``invalid_manifest``, ``duplicate_source_id``,
        ``invalid_sha256``, ``path_outside_root``, ``missing_source``, ``source_too_large``,
        ``hash_mismatch``, ``invalid_encoding``, ``invalid_schema``.
        """
        manifest_path = Path(manifest)
        schema_path = str(schema or "")
        settings = RunSettings(max_source_bytes=max_source_bytes, adapters=tuple(adapters))
        loaded = read_manifest(manifest_path)
        # Each file's stat is taken BEFORE it is read and hashed: a change in between shows up as a moved
        # stat at the next decision, which then re-hashes (never the other way round).
        pins = {}
        for entry in loaded["sources"]:
            path = loaded["root"] / entry["path"]
            stat = _stat_of(path)
            if stat is not None:  # a missing file is refused by verified_sources below
                pins[entry["source_id"]] = _Pin(entry, path, *stat)
        return cls(
            loaded=drivers.load_gate(loaded, schema_path, settings),
            pins=pins,
            settings=settings,
            manifest_path=manifest_path,
            schema_path=schema_path,
        )

    @property
    def schema(self) -> ClaimSchema:
        """The claim schema every decision uses."""
        return self._loaded.schema

    @property
    def verified_sources(self) -> pd.DataFrame:
        """The verified sources (columns of ``io.sources.VERIFIED_SOURCE_COLUMNS``, all ``str``), a copy."""
        return self._loaded.verified_sources.copy()

    def refresh(self) -> None:
        """Re-read the manifest and re-verify every pinned file (and the schema), as ``from_manifest`` does.

        Picks up a re-pinned manifest. Raises the same ``IngestionError`` as ``from_manifest``; on a
        refusal the gate keeps its previous state, whose pins are still checked before each decision.
        """
        fresh = Gate.from_manifest(
            self._manifest_path,
            self._schema_path or None,
            max_source_bytes=self._settings.max_source_bytes,
            adapters=self._settings.adapters,
        )
        self.__dict__.update(fresh.__dict__)

    def check_pins(self, source_ids: Iterable[object]) -> None:
        """Check that the pinned files of ``source_ids`` are still the verified files.

        A file whose size and ``mtime_ns`` are unchanged is taken as unchanged (no read). Otherwise it is
        read and re-hashed: the same bytes are accepted (and the new stat kept); anything else raises
        ``IngestionError`` (``hash_mismatch``, ``missing_source``, ``source_too_large``,
        ``path_outside_root``), the ``gate`` command's whole-run refusal. Ids that are not pinned
        (unknown candidates, non-strings) are skipped: the request checks refuse them.
        """
        for source_id in source_ids:
            pin = self._pins.get(source_id) if isinstance(source_id, str) else None
            if pin is None:
                continue
            stat = _stat_of(pin.path)
            if stat == (pin.size, pin.mtime_ns):
                continue
            root = self._loaded.manifest["root"]
            read_source_text(root, pin.entry, self._settings.max_source_bytes)  # raises when changed
            if stat is not None and _stat_of(pin.path) == stat:  # unchanged while it was re-hashed
                self._pins[source_id] = _Pin(pin.entry, pin.path, *stat)

    def decide(
        self,
        candidate_ids: list[str],
        requested_version: str,
        claim_key: str,
        operation: str | None = None,
    ) -> dict:
        """Decide one case; return its result object, equal to the ``gate`` command's for that case.

        ``operation`` ``None`` means the field is absent (the schema's single operation). A bad request is
        not raised: it is the refused result object (``status`` ``refused``, ``error`` ``GateError``).
        Raises ``IngestionError`` (``hash_mismatch``…) when a candidate's pinned file changed since it
        was verified (``check_pins``); ``exc.as_result()`` is then the refused result object.

        Decided by ``gate.reference.decide_case`` over the verified sources (no Hamilton execution, about
        30 µs on the fixtures); tests hold it equal to the batch nodes field for field.
        """
        row: dict = {"candidate_ids": candidate_ids, "requested_version": requested_version, "claim_key": claim_key}
        if operation is not None:
            row["operation"] = operation
        if isinstance(candidate_ids, list):
            self.check_pins(candidate_ids)
        return decide_case(row, self._records, self._loaded.schema)

    def declaring(self, requested_version: str, claim_key: str, operation: str | None = None) -> list[str]:
        """Sorted ids of the pinned sources of exactly ``requested_version`` that declare ``(operation, claim_key)``.

        ``operation`` ``None`` means the schema's single operation. A source whose directives are
        refused is not declaring (the gate would refuse its cases). Raises ``ValueError`` (its message
        starts with the request check's reason) for an operation or key the schema lacks, and
        ``IngestionError`` when a pinned file changed since it was verified (``check_pins``).
        The same answer as the ``gate.declaring.declaring_sources`` node; docs/python-api.md,
        "Which pages declare a key".
        """
        self.check_pins(list(self._records))
        if self._declared is None:
            self._declared = declaring_sources(self._loaded.verified_sources, self._loaded.schema)
        return declaring_ids(self._declared, self._loaded.schema, requested_version, claim_key, operation)

    def decide_many(self, cases: Iterable[Mapping] | pd.DataFrame, *, ledger: str | Path | None = None) -> pd.DataFrame:
        """Decide a batch in one Hamilton execution; one row per case, in input order.

        ``cases`` is a list of case rows (``{case_id, candidate_ids, requested_version, claim_key[,
        operation]}``, as in a ``.json`` case table) or a frame with those columns (a missing cell is an
        absent field; a NumPy array cell is a list). Returns the ``gate_results`` frame: ``position``
        (int64), ``case_id`` (object), ``status``, ``reason``, ``error``, ``detail``, ``decided_at``
        (str), ``result`` (object: the result object). A bad row is refused on its own, as in the
        ``gate`` command. Raises ``IngestionError`` when a pinned file of any case's candidates changed.
        ``ledger``: a ``.jsonl`` path to append one row per prepared request to, for a later recheck
        (docs/recheck-rules.md, "Prepared requests").
        """
        rows = _rows(cases)
        lists = (row.get("candidate_ids") for row in rows if isinstance(row, dict))
        self.check_pins(sorted({c for ids in lists if isinstance(ids, list) for c in ids if isinstance(c, str)}))
        # The loaders' frame: position, case_id, request, case_problem; decided against what was verified.
        results = drivers.run_gate(self._loaded, case_table_frame(rows)).results
        if ledger is not None:
            from claimgate.gate.ledger_rows import request_ledger_rows
            from claimgate.io.ledger_file import append_ledger

            pins = {e["source_id"]: e["sha256"] for e in self._loaded.manifest["sources"]}
            decided = zip(results["case_id"], (rows[p] for p in results["position"]), results["result"])
            versions = {e["source_id"]: e["version"] for e in self._loaded.manifest["sources"]}
            append_ledger(ledger, request_ledger_rows(decided, pins, versions))
        return results


class Audit:
    """The citation audit over one corpus, indexed once, for many checks in one process.

    Build it with ``Audit.from_corpus`` (a folder, a corpus JSON file or a ``{doc_id: text}`` dict) or
    ``Audit.from_manifest`` (pinned documents, verified once when loaded).
    """

    def __init__(
        self,
        documents: dict[str, str],
        extractors: dict[str, str] | None = None,
        *,
        cache: str | Path | None = None,
        adapters: Iterable[object] = (),
        source_maps: dict | None = None,
    ) -> None:
        """Index ``documents`` (``{doc_id: text}``) once; prefer the ``from_*`` constructors, which check them.

        ``cache`` is a folder keeping the index between processes (see ``audit.index.cache``). ``adapters``:
        Hamilton lifecycle adapters attached to the driver, as for ``Gate.from_manifest`` (the indexing and
        every ``check`` run with them); ``TypeError`` for one that is not a watching lifecycle adapter.
        ``source_maps`` (``{doc_id: io.visible_text.VisibleText}``) moves a rendered page's spans into its file.
        """
        adapters = RunSettings(adapters=tuple(adapters)).adapters  # checked (execution.adapters)
        self._corpus = drivers.index_corpus(documents, extractors, cache, adapters, source_maps)

    @classmethod
    def from_corpus(
        cls,
        corpus: str | Path | Mapping[str, str],
        *,
        glob: str | Sequence[str] = DEFAULT_GLOB,
        cache: str | Path | None = None,
        adapters: Iterable[object] = (),
        html_main_content: bool = False,
    ) -> Audit:
        """An audit over a folder of pages, a corpus JSON file ``{doc_id: text}``, or such a dict.

        ``adapters``: Hamilton lifecycle adapters on the audit's driver (see ``Audit``'s constructor).

        ``cache`` (a folder) keeps the corpus index on disk, keyed by the documents' bytes and the
        normalizer's version: a later ``from_corpus`` of the same documents loads it instead of
        rebuilding, an edited corpus is rebuilt (see README, "Performance"). Raises ``OutputError``
        (a usage error) before any work for an empty ``cache`` path, a ``cache`` that is the corpus
        file, or a ``cache`` inside the corpus folder (its files would be read as documents next time).

        A folder is read by ``io.documents.read_document_folder`` (files matching ``glob``; ``doc_id`` the
        relative path with ``/``; see docs/documents.md). Raises ``IngestionError``: ``invalid_corpus``
        (a missing path, a bad JSON file, a dict with an empty id or a non-string text) or a folder's
        refusals (``unsupported_document``, ``unreadable_document``, ``document_too_large``…).
        """
        if cache is not None:
            is_folder = not isinstance(corpus, Mapping) and Path(corpus).is_dir()
            corpus_file = None if isinstance(corpus, Mapping) or is_folder else corpus
            check_cache_folder(
                cache, {"corpus": corpus_file}, input_folders={"corpus": corpus if is_folder else None}, label="cache"
            )
        if isinstance(corpus, Mapping):
            for doc_id, text in corpus.items():
                if not (isinstance(doc_id, str) and doc_id):
                    raise IngestionError("invalid_corpus", f"document id {doc_id!r} is not a non-empty string")
                if not isinstance(text, str):
                    raise IngestionError("invalid_corpus", f"document {doc_id!r} is a {type(text).__name__}")
            return cls(dict(corpus), cache=cache, adapters=adapters)
        if Path(corpus).is_dir():
            frame = read_document_folder(corpus, glob, cache_dir=cache, html_main_content=html_main_content)
            documents = dict(zip(frame["doc_id"], frame["text"]))
            maps = {d: m for d, m in zip(frame["doc_id"], frame["source_map"]) if m is not None}
            extractors = dict(zip(frame["doc_id"], frame["extractor"]))
            return cls(documents, extractors, cache=cache, adapters=adapters, source_maps=maps)
        return cls(read_corpus(corpus), cache=cache, adapters=adapters)

    @classmethod
    def from_manifest(
        cls, manifest: str | Path, *, max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES, adapters: Iterable[object] = ()
    ) -> Audit:
        """An audit over the pinned sources of a manifest (``doc_id`` = ``source_id``), verified once here.

        ``adapters``: Hamilton lifecycle adapters, on the verification and the audit's driver (see ``Audit``).
        Raises the ``IngestionError`` of ``Gate.from_manifest`` (``hash_mismatch``…).
        """
        settings = RunSettings(max_source_bytes=max_source_bytes, adapters=tuple(adapters))
        return cls(drivers.read_documents(drivers.PinnedManifest(manifest), settings), adapters=settings.adapters)

    @property
    def extractors(self) -> dict[str, str] | None:
        """``{doc_id: extractor}`` (``text``, ``html``, ``pdf``) for a folder corpus, else ``None``; a copy."""
        extractors = self._corpus.extractors
        return None if extractors is None else dict(extractors)

    @property
    def documents(self) -> dict[str, str]:
        """``{doc_id: text}`` the quotes are checked against (spans are character offsets into these), a copy."""
        return dict(self._corpus.documents)

    def check(
        self,
        citations: Iterable[Mapping] | pd.DataFrame,
        judge: Callable[[str, str], str] | None = None,
        *,
        min_tokens: int = 4,
        window_chars: int = 2000,
        diagnose: bool = True,
        ledger: str | Path | None = None,
    ) -> pd.DataFrame:
        """Audit citations against the corpus; one row per citation, in input order.

        ``citations`` is a list of ``{citation_id, doc_id, quote[, claim]}`` dicts or a frame with those
        columns. ``judge`` is an optional ``llm_call(system, user) -> str``, called for ``found`` quotes
        only and failing closed (see the README's citation audit). Returns the audit's rows with
        ``audit.stages.audit_columns``: ``citation_id``, ``doc_id`` (object), ``verdict``, ``reason``,
        ``gate_verdict`` (str), ``match_kind`` (str or None), ``matched_doc_ids`` (list of str), ``spans``
        (list of dicts, offsets in characters of ``documents``, lines 1-based; for a folder's Markdown and
        reStructuredText pages in characters and lines of the file as written, see docs/documents.md),
        ``elided`` (only with a
        judge: what each ellipsis left out, as spans), ``judge`` (dict or None), ``model_calls`` (int64);
        with ``diagnose`` (the default) then ``diagnosis`` (object: the near-miss diagnosis of a rejected
        citation, else None; see docs/audit-rules.md, "Diagnosis"). Verdicts are the same either way.
        A bad row is ``invalid_citation``; nothing is raised for one row. ``ledger``: a ``.jsonl`` path to
        append one ledger row per citation to, for a later recheck (docs/recheck-rules.md, "The ledger").
        """
        match = MatchSettings(min_tokens=min_tokens, window_chars=window_chars)
        table = citation_table_frame(_rows(citations))
        run = drivers.run_audit(table, self._corpus, llm_call=judge, match=match, diagnose=diagnose)
        results = run.results
        if ledger is not None:
            from claimgate.audit.ledger import citation_ledger_rows
            from claimgate.io.ledger_file import append_ledger

            quotes = dict(zip(table["citation_id"], table["quote"]))
            append_ledger(ledger, citation_ledger_rows(drivers.audit_rows(run), quotes, run.documents))
        columns = list(audit_columns(results))
        return results[[*columns, DIAGNOSIS_COLUMN] if diagnose else columns].reset_index(drop=True)

    def check_answer(
        self,
        answer: Mapping,
        judge: Callable[[str, str], str] | None = None,
        *,
        documents: list[str] | None = None,
        policy: str = "strict",
        answer_format: str = "auto",
        ledger: str | Path | None = None,
    ) -> dict:
        """Audit a whole generated answer claim by claim; ``accepted`` only when every claim is supported.

        ``answer`` is a parsed answer: plain ``{"text", "citations": [{"marker", "doc_id", "quote"}]}`` or an
        Anthropic Messages response (``{"content": [...]}``, whose ``document_index`` values index
        ``documents``, the doc ids in the order they were sent). ``policy`` is ``strict`` or ``connective``
        (docs/answer-rules.md). Returns the ``answer_result`` dict the ``answer`` command writes: ``verdict``
        (``accepted``/``refused``), ``reason``, ``failing_claims``, ``claims`` (each with ``status``,
        ``reason``, ``detail`` and its ``citations``: this audit's rows plus ``marker``, ``location``,
        ``offsets``), ``text`` and ``annotated`` (Markdown). Raises ``IngestionError`` ``invalid_answer``
        for an answer of neither shape, ``ValueError`` for an unknown policy or format. ``ledger``: a
        ``.jsonl`` path to append one ledger row per citation of the answer to (docs/recheck-rules.md).
        """
        from claimgate.audit.answer.claims import POLICIES
        from claimgate.execution.answers import AnswerOptions, run_answer

        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        overrides = {"sent_documents": list(documents)} if documents is not None else {}
        options = AnswerOptions(answer_format=answer_format, uncited_policy=policy)
        run = run_answer(dict(answer), self._corpus, llm_call=judge, options=options, overrides=overrides)
        if ledger is not None:
            from claimgate.audit.ledger import answer_ledger_rows
            from claimgate.io.ledger_file import append_ledger

            append_ledger(ledger, answer_ledger_rows(run.result, run.documents))
        return run.result
