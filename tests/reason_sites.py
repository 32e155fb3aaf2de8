"""Where the package emits a reason code: string literals in reason positions, found by reading the code.

Read by ``tests/test_reason_codes.py``. Every module under ``dataflow/claimgate/`` is walked
(whatever room it lives in), and a string literal counts as an emitted code when it stands

- as the first argument (or ``reason=``) of ``IngestionError``, ``GateError``, ``DirectiveError``, ``ExecutionError``
  or ``ClaimgateError``, or of the registry's lookup ``reason("...")``;
- as a ``reason=`` keyword of any call, or in a ``decides=[...]`` tag;
- at the place of a parameter named ``reason`` of a function defined in the package
  (``verdict_row(verdict, reason, ...)``, ``read_utf8_text(path, reason, ...)``);
- as the value of a ``"reason"`` key (a dict literal, or ``row["reason"] = ...``);
- as the value of a name ``reason``, ``REASON`` or ``*_reason``, also unpacked from a tuple
  (``operation, reason, detail = None, "invalid_case", problem``) or from the returns of the
  function called (``... = check_request(...)``);
- in a module-level constant whose name holds ``REASON`` or ends in ``_CHECKS``;
- compared with a reason (``result["reason"] == "no_verbatim_match"``);
- returned by a function named ``*_reason``;
- at the place of a reason in a tuple appended to a list that other tuples give a reason
  at that place (``outcomes.append((verdict, match["reason"], ...))``).

An f-string in such a place is reported as it is (``Site.literal`` is ``None``): a code must
be a stable literal.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

EXCEPTIONS = {"IngestionError", "GateError", "DirectiveError", "ExecutionError", "ClaimgateError"}


@dataclass(frozen=True)
class Site:
    """One literal in a reason position: ``module:line``, the literal (``None`` for an f-string), the rule."""

    where: str
    literal: str | None
    rule: str


def _name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _is_reason_name(name: str | None) -> bool:
    return name is not None and (name in ("reason", "REASON") or name.lower().endswith("_reason"))


def _is_reason_expr(node: ast.AST) -> bool:
    """``reason``, ``x.reason``, ``x["reason"]``."""
    if isinstance(node, ast.Subscript):
        return isinstance(node.slice, ast.Constant) and node.slice.value == "reason"
    return _is_reason_name(_name(node))


def _literals(node: ast.AST | None) -> Iterator[ast.AST]:
    """The string literals (and f-strings) ``node`` can evaluate to, through ``a if c else b``, ``a or b``, tuples."""
    if node is None:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.JoinedStr):
        yield node
    elif isinstance(node, ast.IfExp):
        yield from _literals(node.body)
        yield from _literals(node.orelse)
    elif isinstance(node, ast.BoolOp):
        for value in node.values:
            yield from _literals(value)
    elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        for element in node.elts:
            yield from _literals(element)
    elif isinstance(node, ast.Call) and _name(node.func) in ("list", "tuple"):
        for arg in node.args:
            yield from _literals(arg)


#: Column dtypes: a ``{"reason": "str"}`` mapping names a column's type, not a code.
DTYPES = {"str", "string", "object", "int64", "float64", "bool", "category"}


def _is_dtype_mapping(node: ast.Dict) -> bool:
    return all(isinstance(v, ast.Constant) and v.value in DTYPES for v in node.values)


def _element(node: ast.AST, index: int) -> ast.AST | None:
    if isinstance(node, (ast.Tuple, ast.List)) and index < len(node.elts):
        return node.elts[index]
    return None


class _Package:
    """What one reading of every module gives: parameter places of ``reason``, returns of each function."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.modules = {
            path: ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            for path in sorted(root.rglob("*.py"))
            if path.name != "reasons.py" or path.parent != root
        }
        self.reason_places: dict[str, set[int]] = defaultdict(set)
        self.returns: dict[str, list[ast.AST]] = defaultdict(list)
        for tree in self.modules.values():
            for node in ast.walk(tree):
                if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    if node.name.startswith("__"):
                        continue  # ``__init__`` of every class: the exceptions are matched by name
                    names = [a.arg for a in [*node.args.posonlyargs, *node.args.args]]
                    for place, arg in enumerate(names):
                        if arg == "reason":
                            self.reason_places[node.name].add(place)
                            if names and names[0] in ("self", "cls"):
                                self.reason_places[node.name].add(place - 1)  # called as a method
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.Return) and inner.value is not None:
                            self.returns[node.name].append(inner.value)


def reason_sites(root: Path) -> list[Site]:
    """Every literal in a reason position in the modules under ``root`` (``claimgate.reasons`` itself left out)."""
    package = _Package(root)
    sites: list[Site] = []
    for path, tree in package.modules.items():
        module = path.relative_to(root.parent).as_posix()

        def add(node: ast.AST | None, rule: str, module: str = module) -> None:
            for literal in _literals(node):
                value = literal.value if isinstance(literal, ast.Constant) else None
                if value != "":
                    sites.append(Site(f"{module}:{literal.lineno}", value, rule))

        for node in tree.body:  # module-level tables of reasons
            if isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                names = [_name(t) or "" for t in targets]
                if any("REASON" in n or n.endswith("_CHECKS") for n in names):
                    for inner in ast.walk(node.value):
                        if isinstance(inner, (ast.Constant, ast.JoinedStr)):
                            add(inner, "reason table")
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                called = _name(node.func)
                if (called in EXCEPTIONS or called == "reason") and node.args:
                    add(node.args[0], f"{called}(...)")
                for place in package.reason_places.get(called, ()):
                    if 0 <= place < len(node.args):
                        add(node.args[place], f"reason parameter of {called}")
                for keyword in node.keywords:
                    if keyword.arg == "reason":
                        add(keyword.value, "reason=")
                    elif keyword.arg == "decides":
                        add(keyword.value, "decides=")
            elif isinstance(node, ast.Dict) and not _is_dtype_mapping(node):
                for key, value in zip(node.keys, node.values):
                    if isinstance(key, ast.Constant) and key.value == "reason":
                        add(value, '"reason" key')
            elif isinstance(node, (ast.Assign, ast.AnnAssign)):
                targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                for target in targets:
                    if _is_reason_expr(target):
                        add(node.value, "reason assignment")
                    elif isinstance(target, ast.Tuple):
                        for place, element in enumerate(target.elts):
                            if not _is_reason_expr(element):
                                continue
                            add(_element(node.value, place), "reason unpacked")
                            if isinstance(node.value, ast.Call):
                                called = _name(node.value.func)
                                for returned in package.returns.get(called, ()):
                                    add(_element(returned, place), f"reason returned by {called}")
            elif isinstance(node, ast.Compare):
                sides = [node.left, *node.comparators]
                if any(_is_reason_expr(side) for side in sides):
                    for side in sides:
                        if not _is_reason_expr(side):
                            add(side, "compared with a reason")
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                if node.name.endswith("_reason"):
                    for inner in ast.walk(node):
                        if isinstance(inner, ast.Return):
                            add(inner.value, f"returned by {node.name}")
                _appended_tuples(node, add)
    return sites


def _appended_tuples(function: ast.AST, add) -> None:
    """Tuples appended to one list: a place where one tuple has a reason is a reason place in all."""
    appended: dict[str, list[ast.Tuple]] = defaultdict(list)
    for node in ast.walk(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "append"
            and isinstance(node.func.value, ast.Name)
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Tuple)
        ):
            appended[node.func.value.id].append(node.args[0])
    for tuples in appended.values():
        places = {p for t in tuples for p, element in enumerate(t.elts) if _is_reason_expr(element)}
        for place in places:
            for t in tuples:
                add(_element(t, place), "reason place of an appended tuple")
