"""``Gate``: the contract gate in process, the manifest verified once and each call decided against it.

The rules (what a call refuses, when a pin is checked again) are in docs/python-api.md; ``claimgate.api``
re-exports ``Gate`` beside ``Audit``.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd

from claimgate.execution import drivers
from claimgate.execution.settings import RunSettings
from claimgate.gate.declaring import declaring_ids, declaring_sources
from claimgate.gate.reference import decide_case
from claimgate.gate.schema import ClaimSchema
from claimgate.io.sources import DEFAULT_MAX_SOURCE_BYTES, read_manifest, read_source_text
from claimgate.io.tables import case_table_frame

__all__ = ["Gate"]


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


def table_rows(cases: Iterable[Mapping] | pd.DataFrame) -> list:
    """Raw case or citation rows from a list of dicts or a frame (one row per frame row).

    From a frame, a missing cell (``None``/``NaN``) means the field is absent, and a NumPy array cell
    (a list column read by ``pandas.read_parquet``) becomes a list; other values are passed as they are.
    Raises ``TypeError`` for a string, bytes or a single mapping (a row, not a table of rows) and for
    what is not iterable; a row that is not a mapping is the table reader's to refuse, row by row.
    """
    if not isinstance(cases, pd.DataFrame):
        if isinstance(cases, (str, bytes, bytearray, Mapping)) or not isinstance(cases, Iterable):
            kind = "a single row (wrap it in a list)" if isinstance(cases, Mapping) else type(cases).__name__
            raise TypeError(f"expected rows (a list of dicts or a DataFrame), not {kind}")
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
        ``gate`` command. Raises ``IngestionError`` when a pinned file of any case's candidates changed,
        ``TypeError`` when ``cases`` is a string, bytes or one mapping instead of rows (``table_rows``).
        ``ledger``: a ``.jsonl`` path to append one row per prepared request to, for a later recheck
        (docs/recheck-rules.md, "Prepared requests").
        """
        rows = table_rows(cases)
        lists = (row.get("candidate_ids") for row in rows if isinstance(row, dict))
        self.check_pins(sorted({c for ids in lists if isinstance(ids, list) for c in ids if isinstance(c, str)}))
        # The loaders' frame: position, case_id, request, case_problem; decided against what was verified.
        results = drivers.run_gate(self._loaded, case_table_frame(rows)).results
        if ledger is not None:
            from claimgate.gate.ledger_rows import request_ledger_rows
            from claimgate.io.ledger_append import append_ledger

            pins = {e["source_id"]: e["sha256"] for e in self._loaded.manifest["sources"]}
            decided = zip(results["case_id"], (rows[p] for p in results["position"]), results["result"])
            versions = {e["source_id"]: e["version"] for e in self._loaded.manifest["sources"]}
            append_ledger(ledger, request_ledger_rows(decided, pins, versions, self._loaded.schema))
        return results
