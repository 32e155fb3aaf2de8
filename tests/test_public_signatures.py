"""No public function of the running rooms takes more than eight parameters (ROOMS_PLAN.md, hard limits).

Read with ``inspect`` over every module of ``claimgate.execution``, ``claimgate.cli`` and ``claimgate.api``:
module-level functions and the methods of public classes defined there (``self``/``cls`` not counted).
What travels together travels as one frozen object (``RunSettings``, ``MatchSettings``), so a dataclass's
generated ``__init__`` (one keyword per field) is not counted. Hamilton's lifecycle hooks keep the
signature Hamilton calls them with (``execution.progress``), so methods a class overrides from a
Hamilton base class are not counted either.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import claimgate.api
import claimgate.cli
import claimgate.execution
import pytest

LIMIT = 8


def module_names() -> list[str]:
    names = ["claimgate.api"]
    for package in (claimgate.api, claimgate.execution, claimgate.cli):
        names += [f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)]
    return sorted(names)


def _inherited_from_hamilton(cls: type, name: str) -> bool:
    return any(name in vars(base) for base in cls.__mro__[1:] if base.__module__.startswith("hamilton"))


def public_functions(module) -> dict[str, inspect.Signature]:
    """``{qualified name: signature}`` of the module's public functions and public classes' methods."""
    found = {}
    for name, value in vars(module).items():
        if name.startswith("_") or getattr(value, "__module__", None) != module.__name__:
            continue
        if inspect.isfunction(value):
            found[name] = inspect.signature(value)
        elif inspect.isclass(value):
            for attribute, member in vars(value).items():
                if isinstance(member, (classmethod, staticmethod)):
                    member = member.__func__
                if not inspect.isfunction(member) or (attribute.startswith("_") and attribute != "__init__"):
                    continue
                if attribute == "__init__" and dataclasses.is_dataclass(value):
                    continue
                if _inherited_from_hamilton(value, attribute):
                    continue
                found[f"{name}.{attribute}"] = inspect.signature(member)
    return found


def counted(signature: inspect.Signature) -> int:
    return len([p for p in signature.parameters if p not in ("self", "cls")])


@pytest.mark.parametrize("module_name", module_names())
def test_no_public_function_takes_more_than_eight_parameters(module_name):
    module = importlib.import_module(module_name)
    too_many = {name: counted(sig) for name, sig in public_functions(module).items() if counted(sig) > LIMIT}
    assert too_many == {}


def test_the_count_sees_methods_and_the_entry_points():
    from claimgate.execution import drivers

    functions = public_functions(drivers)
    assert counted(functions["run_audit"]) == 8 and counted(functions["run_gate"]) == 4
    assert "Gate.__init__" in public_functions(importlib.import_module("claimgate.api.gate"))
    assert "Audit.check" in public_functions(importlib.import_module("claimgate.api.audit"))
