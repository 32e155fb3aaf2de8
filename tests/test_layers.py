"""The package's layers, read from the source as a reader sees it: imports only go down, and no circle.

Every module of ``claimgate`` is parsed with ``ast`` and every import counts: module-level, inside a
function (lazy), and under ``if TYPE_CHECKING:``. The layers (README, "Project layout"):

0. leaves: ``errors``, ``textlines``, ``lookalikes``, ``resources``, ``runtime``, ``reasons``, ``synthetic``
1. ``io``
2. ``gate``, ``audit`` (never each other)
3. ``execution``, ``pictures``, ``report`` (the review page)
4. ``cli``, ``api`` (and ``__main__``, the command line's entry)

The package ``__init__`` is a leaf whose lazy ``Gate``/``Audit`` access to ``claimgate.api`` is the one
allowed upward import. Every room is held to importing only down and to no import circle.
"""

from __future__ import annotations

import ast
from pathlib import Path

import claimgate
import pytest

PACKAGE = Path(claimgate.__file__).resolve().parent

LAYERS = {
    **dict.fromkeys(("errors", "textlines", "lookalikes", "resources", "runtime", "reasons", "synthetic"), 0),
    "io": 1,
    "gate": 2,
    "audit": 2,
    "execution": 3,
    "pictures": 3,
    "report": 3,
    "cli": 4,
    "api": 4,
    "__main__": 4,
}
#: Rooms whose modules must sit on no circle: every room.
CHECKED_ROOMS = tuple(LAYERS)
#: The one allowed upward import: the package's lazy ``from claimgate import api`` (``Gate``, ``Audit``).
ALLOWED = {("claimgate", "claimgate.api")}


def module_files() -> dict[str, Path]:
    """``{dotted module name: file}`` for every module of the package (``__init__`` as its package)."""
    modules = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        modules[".".join(parts)] = path
    return modules


MODULES = module_files()


def _known(name: str) -> str | None:
    """The longest prefix of ``name`` that is a module of the package (``None`` outside it)."""
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


def imported_modules(module: str) -> set[str]:
    """The package's modules ``module`` imports anywhere in its file (lazy and type-only imports too)."""
    path = MODULES[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - node.level + 1]
                source = ".".join([*base, *([node.module] if node.module else [])])
            else:
                source = node.module or ""
            # ``from claimgate.gate import stages`` imports the module ``claimgate.gate.stages``.
            names = [f"{source}.{alias.name}" for alias in node.names]
            names = [name if name in MODULES else source for name in names]
        else:
            continue
        for name in names:
            if name == "claimgate" or name.startswith("claimgate."):
                target = _known(name)
                if target is not None and target != module:
                    found.add(target)
    return found


IMPORTS = {module: imported_modules(module) for module in MODULES}


def room(module: str) -> str | None:
    """``io`` for ``claimgate.io.tables``; ``None`` for the package ``__init__`` itself."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def layer(module: str) -> int:
    """The module's layer (the package ``__init__`` is a leaf)."""
    name = room(module)
    return 0 if name is None else LAYERS[name]


def upward_imports(module: str) -> list[str]:
    """Imports of ``module`` into a higher layer, or across the two products (gate and audit)."""
    bad = []
    for target in sorted(IMPORTS[module]):
        if (module, target) in ALLOWED:
            continue
        across = layer(module) == layer(target) == 2 and room(module) != room(target)
        if layer(target) > layer(module) or across:
            bad.append(target)
    return bad


def circles() -> list[list[str]]:
    """Every import circle (a strongly connected set of more than one module), the allowed edge left out."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []

    def visit(module: str) -> None:  # Tarjan's algorithm; the package is a few hundred modules deep at most
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(IMPORTS[module]):
            if (module, target) in ALLOWED:
                continue
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in MODULES:
        if module not in index:
            visit(module)
    return found


def test_every_room_of_the_package_has_a_layer():
    rooms = {room(module) for module in MODULES} - {None}
    assert rooms <= set(LAYERS), f"rooms without a layer: {sorted(rooms - set(LAYERS))}"


def test_the_walk_sees_lazy_and_type_only_imports():
    # cli.documents imports GateRun for its annotations only; drivers imports the audit's modules lazily.
    assert "claimgate.execution.drivers" in IMPORTS["claimgate.cli.documents"]
    assert "claimgate.audit.matching.settings" in IMPORTS["claimgate.execution.drivers"]
    assert "claimgate.api" in IMPORTS["claimgate"]  # the one allowed upward import, seen and allowed


@pytest.mark.parametrize("name", list(LAYERS))
def test_a_room_imports_only_down(name):
    modules = [m for m in MODULES if room(m) == name]
    bad = {module: upward_imports(module) for module in modules if upward_imports(module)}
    assert bad == {}


@pytest.mark.parametrize("name", CHECKED_ROOMS)
def test_a_room_is_on_no_import_circle(name):
    assert [circle for circle in circles() if any(room(m) == name for m in circle)] == []


def test_the_package_init_imports_only_leaves_and_the_api_lazily():
    assert {m for m in IMPORTS["claimgate"] if layer(m) > 0} == {"claimgate.api"}
