"""The import direction: each top-level part of generator/ imports only what its docstring's
"May import:" line names, and no two parts import each other."""

from __future__ import annotations

import ast
import functools
import re

import pytest
from conftest import REPO

PACKAGE = REPO / "generator"


def _unit(module: str) -> str:
    """``generator.render.pipeline`` → ``generator.render``: the top-level part a module is in."""
    return ".".join(module.split(".")[:2])


@functools.cache
def _units() -> dict[str, ast.Module]:
    """Every top-level part, by name, with the parsed file that carries its docstring (read once
    per test process: every test below asks for it)."""
    units = {}
    for path in sorted(PACKAGE.iterdir()):
        if path.is_dir() and (path / "__init__.py").is_file():
            units[f"generator.{path.name}"] = ast.parse((path / "__init__.py").read_text(encoding="utf-8"))
        elif path.suffix == ".py" and path.name != "__init__.py":
            units[f"generator.{path.stem}"] = ast.parse(path.read_text(encoding="utf-8"))
    return units


def _allowed(tree: ast.Module) -> set[str]:
    doc = ast.get_docstring(tree) or ""
    match = re.search(r"^May import: (.*)", doc, flags=re.M | re.S)
    assert match, "say in the docstring what this part may import (a 'May import:' line)"
    if match.group(1).startswith("any part of generator"):
        return {"*"}
    return set(re.findall(r"generator\.[a-z_]+", match.group(1)))


def _imports(source: str | ast.Module) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source) if isinstance(source, str) else source):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module == "generator":
                found |= {f"generator.{a.name}" for a in node.names if a.name != "__version__"}
            elif node.module.startswith("generator."):
                found.add(node.module)
        elif isinstance(node, ast.Import):
            found |= {a.name for a in node.names if a.name.startswith("generator.")}
    return {_unit(m) for m in found}


def _files(unit: str) -> list:
    path = PACKAGE / unit.split(".")[1]
    return sorted(path.rglob("*.py")) if path.is_dir() else [path.with_suffix(".py")]


@functools.cache
def _parsed(path) -> ast.Module:
    """A module of generator/ parsed once per test process (both graphs below walk every module)."""
    return ast.parse(path.read_text(encoding="utf-8"))


@functools.cache
def _graph() -> dict[str, set[str]]:
    return {unit: set().union(*(_imports(_parsed(f)) for f in _files(unit))) - {unit} for unit in _units()}


@pytest.mark.parametrize("unit", sorted(_units()))
def test_a_part_imports_only_what_it_says(unit):
    allowed = _allowed(_units()[unit])
    if "*" in allowed:
        return
    extra = sorted(_graph()[unit] - allowed)
    assert not extra, f"{unit} imports {extra}: turn the import around, or name it under 'May import:'"


def test_the_parts_form_no_circle():
    graph = _graph()

    def reaches(start: str, goal: str, seen: frozenset = frozenset()) -> bool:
        return any(n == goal or (n not in seen and reaches(n, goal, seen | {n})) for n in graph.get(start, ()))

    circles = sorted(unit for unit in graph if reaches(unit, unit))
    assert not circles, f"import circle through {circles}"


def test_the_layer_check_sees_an_import_against_the_direction():
    assert _imports("from generator.render import layout\n") == {"generator.render"}
    assert _imports("from generator import tree, __version__\n") == {"generator.tree"}
    assert "generator.render" not in _allowed(_units()["generator.tree"])


def _module_graph() -> dict[str, set[str]]:
    """Module → the modules of generator it imports, anywhere in its file (inside functions too:
    a deferred import still ties the two modules together)."""
    modules = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(REPO).with_suffix("").parts)
        modules[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    graph = {}
    for name, path in modules.items():
        found = set()
        for node in ast.walk(_parsed(path)):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found |= {
                    f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                    for a in node.names
                }
            elif isinstance(node, ast.Import):
                found |= {a.name for a in node.names}
        graph[name] = {m for m in found if m in modules and m != name}
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def visit(node: str) -> None:
        index[node] = low[node] = len(index)
        stack.append(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            group = []
            while not group or group[-1] != node:
                group.append(stack.pop())
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_no_two_modules_import_each_other():
    """Per module, not only per part: ``bases`` and ``load`` importing each other (even inside a
    function) makes neither understandable alone; move what both need below both."""
    assert _circles(_module_graph()) == []


def test_the_circle_check_sees_a_circle():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
