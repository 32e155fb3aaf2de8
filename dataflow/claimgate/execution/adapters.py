"""Your own Hamilton lifecycle adapters on claimgate's drivers: trackers, progress bars, timers.

``Gate``, ``Audit`` and the command line (``--adapter module:object``) take adapters built on
``hamilton.lifecycle``'s base classes (``GraphExecutionHook``, ``NodeExecutionHook``,
``TaskExecutionHook``…, or Hamilton's own such as ``hamilton.plugins.h_tqdm.ProgressBar`` and the
Hamilton UI's tracker) and pass them to every driver a run builds (``Builder.with_adapters``).

Only adapters that *watch* are accepted: hooks and validators. An adapter that takes over how a node
executes or how the result is built (``BaseDoNodeExecute``, ``BaseDoBuildResult``, ``BaseDoRemoteExecute``…)
could change a decision or a verdict, which no run setting may do (``execution.settings``): it is
refused. See the README, "Your own Hamilton adapters".
"""

from __future__ import annotations

import typing
from collections.abc import Iterable

from hamilton.lifecycle import base

#: Every lifecycle base class (``hamilton.lifecycle.base.LifecycleAdapter``).
LIFECYCLE_BASES: tuple[type, ...] = typing.get_args(base.LifecycleAdapter)
#: The bases whose adapters do the work instead of watching it (execute a node, build the result, run a
#: task elsewhere): refused. The input and edge-type checks (``BaseDoValidateInput``…) only validate.
DOING_BASES: tuple[type, ...] = (
    base.BaseDoNodeExecute,
    base.BaseDoNodeExecuteAsync,
    base.BaseDoBuildResult,
    base.BaseDoRemoteExecute,
)


def adapter_problem(adapter: object) -> str | None:
    """Why ``adapter`` cannot be attached (one line), or ``None`` when it is a watching lifecycle adapter."""
    if isinstance(adapter, type):
        return f"{adapter.__name__} is a class, not an adapter object (instantiate it)"
    if not isinstance(adapter, LIFECYCLE_BASES):
        return f"{type(adapter).__name__} is not a Hamilton lifecycle adapter (hamilton.lifecycle base classes)"
    doing = [b.__name__ for b in DOING_BASES if isinstance(adapter, b)]
    if doing:
        return (
            f"{type(adapter).__name__} is a {doing[0]} adapter: it would execute nodes or build results itself, "
            "which could change a decision; only hooks and validators are attached"
        )
    return None


def checked_adapters(adapters: Iterable[object] = ()) -> tuple[object, ...]:
    """``adapters`` as a tuple, each checked by ``adapter_problem``.

    Raises ``TypeError`` (one line) for an object that is not a watching lifecycle adapter.
    """
    adapters = tuple(adapters)
    for adapter in adapters:
        problem = adapter_problem(adapter)
        if problem:
            raise TypeError(problem)
    return adapters
