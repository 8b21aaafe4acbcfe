"""Patterns a module defines at import compile when first used (``generator.regex``)."""

from __future__ import annotations

import ast
import re

from conftest import REPO

from generator import regex


def _compiled_at_import(tree: ast.Module) -> list[int]:
    """Lines of the ``re.compile`` calls run when the module is imported (outside any function)."""
    found = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                continue
            func = getattr(child, "func", None)
            if (
                isinstance(child, ast.Call)
                and isinstance(func, ast.Attribute)
                and func.attr == "compile"
                and isinstance(func.value, ast.Name)
                and func.value.id == "re"
            ):
                found.append(child.lineno)
            visit(child)

    visit(tree)
    return found


def test_no_module_compiles_a_pattern_at_import():
    """``re`` compiles in Python: a pattern a run never uses costs its compiling anyway when its
    module compiles it at import (2 ms of a lint after an edit)."""
    compiled = {}
    for path in sorted((REPO / "generator").rglob("*.py")):
        lines = _compiled_at_import(ast.parse(path.read_text(encoding="utf-8")))
        if lines and path != REPO / "generator" / "regex.py":
            compiled[str(path.relative_to(REPO))] = lines
    assert not compiled, f"use generator.regex.compile for these: {compiled}"


def test_a_deferred_pattern_compiles_on_first_use_and_answers_as_re(monkeypatch):
    source = r"(?P<n>[0-9]+)([a-z]*)"
    compiled: list[str] = []
    real = re.compile

    def counted(pattern: str, flags: int = 0) -> re.Pattern[str]:
        compiled.append(pattern)
        return real(pattern, flags)

    monkeypatch.setattr(re, "compile", counted)
    pattern = regex.compile(source, re.I)
    assert compiled == []  # nothing compiled yet
    assert pattern.fullmatch("12AB").group("n") == "12" and pattern.sub(r"\2", "1a 2b") == "a b"
    assert pattern.fullmatch("3c").group(2) == "c" and compiled == [source, source]  # once a method
    assert "match" not in vars(pattern) and "fullmatch" in vars(pattern)  # kept once looked up
    assert pattern.pattern == source and pattern.flags == real(source, re.I).flags
    assert pattern.groupindex == {"n": 1} and repr(pattern) == repr(real(source, re.I))
