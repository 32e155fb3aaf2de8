"""``Audit``: the citation audit in process, the corpus indexed once and each ``check`` run against it.

The rules are in docs/python-api.md; ``claimgate.api`` re-exports ``Audit`` beside ``Gate``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path

import pandas as pd

from claimgate.api.gate import table_rows
from claimgate.audit.index.cache_folder import check_cache_folder
from claimgate.audit.matching.settings import MatchSettings
from claimgate.audit.stages import DIAGNOSIS_COLUMN, audit_columns
from claimgate.errors import IngestionError
from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.io.corpus_file import read_corpus, refuse_empty_corpus
from claimgate.io.documents import DEFAULT_GLOB, frame_parts, read_document_folder
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES
from claimgate.io.tables import citation_table_frame

__all__ = ["Audit"]


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
        self._cache = cache
        self._source: tuple | None = None  # (path, glob, html_main_content): what ``refresh`` reads again

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
        rebuilding; of an edited corpus, it normalizes only the changed and added documents and
        reuses the others' parts from the newest index there (the same index as a cold build; see
        docs/python-api.md, "Refreshing an audit"). Raises ``OutputError``
        (a usage error) before any work for an empty ``cache`` path, a ``cache`` that is the corpus
        file, or a ``cache`` inside the corpus folder (its files would be read as documents next time).

        A folder is read by ``io.documents.read_document_folder`` (files matching ``glob``; ``doc_id`` the
        relative path with ``/``; see docs/documents.md). Raises ``IngestionError``: ``invalid_corpus``
        (a missing path, a bad JSON file, a dict with an empty id or a non-string text) or a folder's
        refusals (an empty dict, file ``{}`` or folder, as ``io.corpus_file.refuse_empty_corpus``;
        ``unsupported_document``, ``unreadable_document``, ``document_too_large``…).
        """
        if cache is not None:
            is_folder = not isinstance(corpus, Mapping) and Path(corpus).is_dir()
            corpus_file = None if isinstance(corpus, Mapping) or is_folder else corpus
            check_cache_folder(
                cache, {"corpus": corpus_file}, input_folders={"corpus": corpus if is_folder else None}, label="cache"
            )
        if isinstance(corpus, Mapping):
            return cls(_checked_documents(corpus), cache=cache, adapters=adapters)
        documents, extractors, maps = _read_corpus(corpus, glob, html_main_content, cache)
        audit = cls(documents, extractors, cache=cache, adapters=adapters, source_maps=maps)
        audit._source = (corpus, glob, html_main_content)
        return audit

    def refreshed(self, documents: Mapping[str, str]) -> Audit:
        """A new audit over ``documents`` (``{doc_id: text}``), re-indexing only the texts this one's index lacks.

        Every document whose text this audit's index holds (unchanged, renamed or copied:
        matched by the SHA-256 of the text) keeps its part; only changed and added documents
        are normalized, and the index equals a cold build's (``audit.index.reuse``; rules:
        docs/python-api.md, "Refreshing an audit"). With this audit's ``cache`` the new index
        is stored there too. This audit is left as it was. Raises ``IngestionError``
        ``invalid_corpus`` as ``from_corpus`` does for a dict.
        """
        fresh = object.__new__(type(self))
        fresh._corpus = drivers.index_corpus(_checked_documents(documents), None, self._cache, base=self._corpus)
        fresh._cache, fresh._source = self._cache, None
        return fresh

    def refresh(self) -> dict[str, list[str]]:
        """Read this audit's corpus folder or file again and re-index, in place, only the documents that changed.

        Returns ``{"added", "changed", "removed"}``: sorted lists of doc ids. The new index is
        built beside the old one and then swapped in as one assignment: a ``check`` running
        in another thread uses the old index or the new one, never a mix. Raises
        ``ValueError`` for an audit made from a dict or a manifest (nothing to read again:
        use :meth:`refreshed`), and the ``IngestionError`` of ``from_corpus`` when the corpus
        can no longer be read (the audit is then unchanged).
        """
        if self._source is None:
            raise ValueError("this audit was not made from a corpus folder or file: use refreshed(documents)")
        corpus, glob, html_main_content = self._source
        documents, extractors, maps = _read_corpus(corpus, glob, html_main_content, self._cache)
        before = self._corpus.documents
        self._corpus = drivers.index_corpus(documents, extractors, self._cache, source_maps=maps, base=self._corpus)
        return {
            "added": sorted(set(documents) - set(before)),
            "changed": sorted(d for d in documents if d in before and before[d] != documents[d]),
            "removed": sorted(set(before) - set(documents)),
        }

    @classmethod
    def from_manifest(
        cls, manifest: str | Path, *, max_source_bytes: int = DEFAULT_MAX_SOURCE_BYTES, adapters: Iterable[object] = ()
    ) -> Audit:
        """An audit over the pinned sources of a manifest (``doc_id`` = ``source_id``), verified once here.

        Each pinned page is read as a folder's page is (``io.pinned_pages``: Markdown and reStructuredText
        rendered, spans in characters and 1-based lines of the file as written; ``extractors`` recorded),
        after its SHA-256 is checked on the bytes as written (docs/documents.md, "Pinned pages").
        ``adapters``: Hamilton lifecycle adapters, on the verification and the audit's driver (see ``Audit``).
        Raises the ``IngestionError`` of ``Gate.from_manifest`` (``hash_mismatch``…) and of the extractors
        (``unreadable_document``…).
        """
        settings = RunSettings(max_source_bytes=max_source_bytes, adapters=tuple(adapters))
        frame = drivers.read_pinned_frame(drivers.PinnedManifest(manifest), settings)
        return cls._of_frame(frame, None, settings.adapters)

    @classmethod
    def _of_frame(cls, frame: pd.DataFrame, cache: str | Path | None, adapters: Iterable[object]) -> Audit:
        """An audit over a documents frame (``io.documents.DOCUMENT_COLUMNS``): texts, extractors, maps."""
        documents, extractors, maps = frame_parts(frame)
        return cls(documents, extractors, cache=cache, adapters=adapters, source_maps=maps)

    @property
    def extractors(self) -> dict[str, str] | None:
        """``{doc_id: extractor}`` (``markdown``, ``rst``, ``text``, ``html``, ``pdf``) for a folder corpus or a
        manifest, else ``None``; a copy."""
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
        A bad row is ``invalid_citation``; nothing is raised for one row. Raises ``TypeError`` when
        ``citations`` is a string, bytes or one mapping instead of rows, and ``ValueError`` when
        ``min_tokens`` or ``window_chars`` is not a whole number of at least 1. ``ledger``: a ``.jsonl`` path to
        append one ledger row per citation to, for a later recheck (docs/recheck-rules.md, "The ledger").
        """
        match = MatchSettings(min_tokens=min_tokens, window_chars=window_chars)
        table = citation_table_frame(table_rows(citations))
        run = drivers.run_audit(table, self._corpus, llm_call=judge, match=match, diagnose=diagnose)
        results = run.results
        if ledger is not None:
            from claimgate.audit.ledger import citation_ledger_rows
            from claimgate.io.ledger_append import append_ledger

            quotes = dict(zip(table["citation_id"], table["quote"]))
            append_ledger(ledger, citation_ledger_rows(drivers.audit_rows(run), quotes, run.documents, run.source_maps))
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
            from claimgate.io.ledger_append import append_ledger

            append_ledger(ledger, answer_ledger_rows(run.result, run.documents, run.source_maps))
        return run.result


def _checked_documents(corpus: Mapping) -> dict[str, str]:
    """``corpus`` as a dict; ``IngestionError`` ``invalid_corpus`` for an empty or non-str id, a non-str text,
    or no document at all (``io.corpus_file.refuse_empty_corpus``)."""
    for doc_id, text in corpus.items():
        if not (isinstance(doc_id, str) and doc_id):
            raise IngestionError("invalid_corpus", f"document id {doc_id!r} is not a non-empty string")
        if not isinstance(text, str):
            raise IngestionError("invalid_corpus", f"document {doc_id!r} is a {type(text).__name__}")
    refuse_empty_corpus(corpus, "no document in the corpus dict")
    return dict(corpus)


def _read_corpus(corpus: str | Path, glob, html_main_content: bool, cache) -> tuple[dict, dict | None, dict | None]:
    """``(documents, extractors, source maps)`` of a corpus folder (``read_document_folder``) or JSON file."""
    if Path(corpus).is_dir():
        return frame_parts(read_document_folder(corpus, glob, cache_dir=cache, html_main_content=html_main_content))
    return read_corpus(corpus), None, None
