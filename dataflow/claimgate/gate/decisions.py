"""What a decision stage returns, and how a decision order is read from a Hamilton graph (no concrete stage).

Every deciding node returns a ``Stage``: the cases it decided (one row per case,
``DECISION_COLUMNS``) and the rows it passes on for the cases it left open. A
deciding node declares the reason codes it decides with Hamilton's
``@tag(decides=[...])``; ``decision_stages`` reads those tags from any Hamilton
graph and orders the deciding nodes by their dependencies. This module knows no
concrete stage: the gate's own order, read once from ``stages.py``, is
``decision_order.py``, and that one reading is the only source of ``decided_at`` in
every result and of the decision order drawn in the pictures (``claimgate.pictures``).

See docs/gate-rules.md, "Decision order".
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd

#: Columns (and dtypes) of ``Stage.decided``: one row per case a stage decided.
DECISION_COLUMNS = {"position": "int64", "status": "str", "reason": "str", "error": "str", "detail": "str"}

#: The Hamilton tag a deciding node carries: ``@tag(decides=[reason codes])``.
DECIDES_TAG = "decides"


@dataclass(frozen=True)
class Stage:
    """What a deciding node returns.

    ``decided``: one row per case this node decided, ``DECISION_COLUMNS`` first
    (a stage may add columns its results need, such as ``missing_claim_source_ids``).
    ``passed``: the node's rows for the cases it did not decide, the next stage's input.
    A case is in at most one stage's ``decided``; a case in ``decided`` has no row in ``passed``.
    """

    decided: pd.DataFrame
    passed: pd.DataFrame


def decisions(positions: Iterable[int] | np.ndarray | pd.Series, **columns: object) -> pd.DataFrame:
    """A ``DECISION_COLUMNS`` frame for ``positions``; each column a scalar or one value per position.

    Columns not given are ``""``; extra keyword columns are kept after the decision columns.
    """
    index = np.asarray(list(positions) if not isinstance(positions, (np.ndarray, pd.Series)) else positions)
    frame = pd.DataFrame({"position": index.astype("int64")})
    for name in list(DECISION_COLUMNS)[1:]:
        value = columns.pop(name, "")
        frame[name] = value.to_numpy() if isinstance(value, pd.Series) else value
    for name, value in columns.items():
        frame[name] = value.to_numpy() if isinstance(value, pd.Series) else value
    return frame.astype({c: t for c, t in DECISION_COLUMNS.items()})


def no_decisions() -> pd.DataFrame:
    """An empty ``DECISION_COLUMNS`` frame (a stage that decided nothing)."""
    return pd.DataFrame({c: pd.Series(dtype=t) for c, t in DECISION_COLUMNS.items()})


def _decides(tags: Mapping[str, object]) -> tuple[str, ...]:
    value = tags.get(DECIDES_TAG)
    if value is None:
        return ()
    return tuple([value] if isinstance(value, str) else value)


def decision_stages(graph) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The deciding nodes of a Hamilton ``FunctionGraph``, in decision order, with the reasons each decides.

    Returns ``((node name, (reason, ...)), ...)``. Decision order is dependency order:
    each deciding node depends (through its inputs) on every deciding node before it.
    Raises ``ValueError`` when the deciding nodes do not form one such chain (the order
    would be ambiguous) or when two nodes claim the same reason.
    """
    nodes = graph.nodes
    deciding = {name: _decides(n.tags) for name, n in nodes.items() if _decides(n.tags)}
    ancestors = {name: upstream(graph, name) for name in deciding}
    ordered = sorted(deciding, key=lambda name: len(ancestors[name] & deciding.keys()))
    for place, name in enumerate(ordered):
        if ancestors[name] & deciding.keys() != set(ordered[:place]):
            raise ValueError(f"deciding nodes are not one chain: {name} after {ordered[:place]}")
    claimed = [reason for name in ordered for reason in deciding[name]]
    if len(claimed) != len(set(claimed)):
        raise ValueError(f"a reason is decided by two nodes: {sorted(claimed)}")
    return tuple((name, deciding[name]) for name in ordered)


def upstream(graph, name: str) -> set[str]:
    """Names of every node ``name`` depends on, directly or not, in a Hamilton ``FunctionGraph``."""
    seen: set[str] = set()
    todo = [dep.name for dep in graph.nodes[name].dependencies]
    while todo:
        current = todo.pop()
        if current in seen or current not in graph.nodes:
            continue
        seen.add(current)
        todo.extend(dep.name for dep in graph.nodes[current].dependencies)
    return seen


def downstream(graph, name: str) -> set[str]:
    """Names of every node that depends on ``name``, directly or not, in a Hamilton ``FunctionGraph``."""
    return {other for other in graph.nodes if name in upstream(graph, other)}


def case_decisions(
    case_table: pd.DataFrame, stages: list[Stage], decided_at_by_reason: Mapping[str, str]
) -> pd.DataFrame:
    """Every case's decision, in case-table order: ``DECISION_COLUMNS`` plus ``decided_at`` (str).

    ``decided_at_by_reason`` maps each reason to the node that decides it (for the gate,
    ``decision_order.decided_at_by_reason()``, read from the ``decides`` tags).
    Raises ``AssertionError`` when a case was decided by no stage or by two (the
    stages' contract is broken) or a reason is claimed by no stage's tag.
    """
    decided = pd.concat([stage.decided[list(DECISION_COLUMNS)] for stage in stages], ignore_index=True)
    decided = decided.astype(DECISION_COLUMNS).set_index("position").sort_index()
    positions = case_table["position"].to_numpy()
    assert decided.index.is_unique and np.array_equal(decided.index.to_numpy(), np.sort(positions)), (
        "every case must be decided by exactly one stage"
    )
    decided_at = decided["reason"].map(dict(decided_at_by_reason))
    undeclared = sorted(set(decided["reason"][decided_at.isna()]))
    assert not undeclared, f"reasons no stage declares: {undeclared}"
    return decided.assign(decided_at=decided_at.astype("str")).reindex(positions)
