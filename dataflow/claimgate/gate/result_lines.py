"""A batch's output as JSON lines, joined straight from the decisions (nodes ``case_outcomes``, ``result_lines``).

Why: a streamed ``gate`` run (``execution.streaming``) needs each case's entry as one
JSON line, not as a Python object. Building 50,000 result dicts, wrapping each in its
entry and then serializing it cost about as much as deciding the cases. Here each
piece that many cases share is serialized once per batch (a claim record, a claim's
text inside an answer request, a status and reason, a deciding node's name) and each
case's line is joined from those bytes and a few small serializations of its own.

The bytes are exactly those of ``io.tables.jsonl_line(result_object.case_entry(request,
case_id, result))`` for the result object ``results.gate_result`` builds (tested on
the fixtures, the benchmark inputs and random case tables): JSON serializes a string
character by character, so the escaped text of a joined string is the join of the
escaped pieces. A case whose values ``orjson`` refuses (a lone surrogate, an integer
beyond 64 bits) is written through that reference path instead.

No decision is taken here: statuses, reasons and ``decided_at`` come from the
deciding stages (node ``results.case_decisions``), and each case's lookups from node
``results.result_parts``, the same nodes ``gate_result`` reads. The entries' shape:
``result_object.py`` and docs/gate-rules.md, "Result objects". This module is part of
the streaming driver only, so its three nodes (``parsed_claim_records``, built once per
table, ``case_outcomes`` and ``result_lines``) are not drawn in the gate's DAG picture.
"""

from __future__ import annotations

import orjson
import pandas as pd

from claimgate.gate.result_object import case_entry, entry_fields, refused_result, user_message_head
from claimgate.gate.result_parts import ClaimRecords, ResultParts, claim_records_of
from claimgate.io.writers import jsonl_line

#: Columns of ``case_outcomes``, in order.
OUTCOME_COLUMNS = ("position", "case_id", "status", "reason", "error", "detail", "decided_at")

_dumps = orjson.dumps


def parsed_claim_records(parsed_claims: pd.DataFrame) -> ClaimRecords:
    """Every parsed claim as a record and as its answer-request JSON, built once for the whole table.

    Given to ``results.result_parts`` (which builds the same records per batch without it);
    a streamed run computes it once and overrides it in every chunk.
    """
    return claim_records_of(parsed_claims)


def case_outcomes(case_table: pd.DataFrame, case_decisions: pd.DataFrame) -> pd.DataFrame:
    """Every case's decision without its result object; one row per case in case-table order.

    Columns: ``position`` (int64), ``case_id`` (object: str or None), ``status``,
    ``reason``, ``error``, ``detail``, ``decided_at`` (str): those of ``gate_result``
    without ``result``.
    """
    decided = case_decisions
    frame = pd.DataFrame(
        {
            "position": decided.index.to_numpy(dtype="int64"),
            "case_id": pd.Series(case_table["case_id"].to_numpy(), dtype=object, index=range(len(decided))),
            **{column: decided[column].array for column in OUTCOME_COLUMNS[2:]},
        }
    )
    return frame.astype({c: "str" for c in OUTCOME_COLUMNS[2:]})


def _escaped(text: str) -> bytes:
    """``text`` as the inside of a JSON string (escaped, without its quotes), UTF-8."""
    return _dumps(text)[1:-1]


class _LineWriter:
    """Joins one batch's JSON lines from bytes serialized once per batch (see the module docstring)."""

    def __init__(self, parts: ResultParts) -> None:
        self.parts = parts
        self.claims: list[bytes | None] = []
        for record in parts.claim_records:
            try:
                self.claims.append(_dumps(record))
            except TypeError:  # a value orjson refuses: cases citing it take the reference path
                self.claims.append(None)
        self.some_claim_refused = None in self.claims
        # A claim's answer-request JSON is ASCII (``json.dumps``' default), so escaping it never fails.
        self.claims_in_request = [_escaped(text) for text in parts.claim_jsons]
        self.system = _dumps(parts.system_prompt)
        self.request_heads: dict[tuple[str, str, str], bytes] = {}
        self.verdicts: dict[tuple[str, str], bytes] = {}
        self.tails: dict[str, bytes] = {}
        self.refused: dict[tuple[str, str, str], bytes] = {}

    def request_head(self, requested_version: str, operation: str, claim_key: str) -> bytes:
        """The answer request's bytes up to its first claim (``result_object.answer_request``'s text)."""
        key = (requested_version, operation, claim_key)
        head = self.request_heads.get(key)
        if head is None:
            user = user_message_head(requested_version, operation, claim_key)
            head = b',"answer_request":{"messages":[{"role":"system","content":' + self.system
            head += b'},{"role":"user","content":"' + _escaped(user)
            self.request_heads[key] = head
        return head

    def verdict(self, status: str, reason: str) -> bytes:
        key = (status, reason)
        found = self.verdicts.get(key)
        if found is None:
            found = self.verdicts[key] = b',"status":' + _dumps(status) + b',"reason":' + _dumps(reason)
        return found

    def tail(self, decided_at: str) -> bytes:
        found = self.tails.get(decided_at)
        if found is None:
            found = self.tails[decided_at] = b',"decided_at":' + _dumps(decided_at) + b"}}\n"
        return found

    def refused_result(self, error: str, reason: str, decided_at: str) -> bytes:
        """``,"result":`` and a refused case's result object (``result_object.refused_result``), the entry closed."""
        key = (error, reason, decided_at)
        found = self.refused.get(key)
        if found is None:
            found = self.refused[key] = b',"result":' + _dumps(refused_result(error, reason, decided_at)) + b"}\n"
        return found

    def decided_line(self, entry: dict, position: int, status: str, reason: str, decided_at: str) -> bytes:
        """A non-refused case's line: ``entry`` (``case_entry`` without ``result``) and its result object.

        Raises ``TypeError`` when orjson refuses one of its values. ``entry`` gains the
        result object's first fields.
        """
        parts = self.parts
        candidate_ids, requested_version, claim_key, operation = parts.requests[position]
        eligible_ids, excluded_ids = parts.sources_by_case.get(position) or ((), ())
        a, b = parts.claim_slices.get(position, (0, 0))
        numbers = parts.claim_numbers[a:b]
        claims = self.claims
        if self.some_claim_refused and any(claims[number] is None for number in numbers):
            raise TypeError("a claim holds a value orjson refuses")
        entry["result"] = {
            "requested_version": requested_version,
            "claim_key": claim_key,
            "operation": operation,
            "candidate_ids": candidate_ids,
            "eligible_source_ids": eligible_ids,
            "excluded_wrong_version_ids": excluded_ids,
        }
        head = _dumps(entry)[:-2]  # the entry and its result, both left open
        if status == "ready":
            agreed = parts.agreed[position]
            return b"".join(
                (
                    head,
                    self.request_head(requested_version, operation, claim_key),
                    b", ".join([self.claims_in_request[number] for number in numbers]),
                    b']}"}]}',
                    self.verdict(status, reason),
                    b',"claims":[',
                    b",".join([claims[number] for number in numbers]),
                    b"]" if agreed is None else b'],"agreed_value":' + _dumps(agreed),
                    self.tail(decided_at),
                )
            )
        missing = parts.missing.get(position)
        return b"".join(
            (
                head,
                b',"answer_request":null',
                self.verdict(status, reason),
                b',"claims":[',
                b",".join([claims[number] for number in numbers]),
                b"]" if missing is None else b'],"missing_claim_source_ids":' + _dumps(list(missing)),
                self.tail(decided_at),
            )
        )


def result_lines(case_table: pd.DataFrame, case_outcomes: pd.DataFrame, result_parts: ResultParts) -> bytes:
    """Every case's output entry as one JSON line (UTF-8, ``\\n``-terminated), in case-table order.

    The bytes equal ``jsonl_line(case_entry(request, case_id, result)) + b"\\n"`` per case,
    with ``result`` the case's object in ``gate_result`` (see the module docstring).
    """
    writer = _LineWriter(result_parts)
    lines: list[bytes] = []
    append = lines.append
    for request, case_id, position, status, error, reason, decided_at in zip(
        case_table["request"].tolist(),
        case_outcomes["case_id"].tolist(),
        case_outcomes["position"].tolist(),
        case_outcomes["status"].tolist(),
        case_outcomes["error"].tolist(),
        case_outcomes["reason"].tolist(),
        case_outcomes["decided_at"].tolist(),
    ):
        entry = entry_fields(request, case_id)
        try:
            if status == "refused":
                append(_dumps(entry)[:-1] + writer.refused_result(error, reason, decided_at))
            else:
                append(writer.decided_line(entry, position, status, reason, decided_at))
        except TypeError:  # orjson refused a value: the reference path writes this case
            result = result_parts.result_object(position, status, error, reason, decided_at)
            append(jsonl_line(case_entry(request, case_id, result)) + b"\n")
    return b"".join(lines)
