"""Render's lint findings are located through the reader's position map: at the same line and
column as the ruamel node tree located them, for every path of every rendered file."""

from __future__ import annotations

from pathlib import Path

from generator.lint.model import Document
from generator.yamlio.read import Positions, load

ROOT = Path(__file__).resolve().parents[2]


def _paths(node, base=()):
    yield base
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*base, key))
    elif isinstance(node, list):
        for i, value in enumerate(node):
            yield from _paths(value, (*base, i))


def test_every_path_of_every_rendered_file_is_located_as_the_node_tree_locates_it():
    compared = 0
    for path in sorted((ROOT / "rendered").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        obj = load(text)
        composed = Document(str(path), text, 0, obj)
        mapped = Document(str(path), text, 0, obj, where=Positions(text))
        missing = [("nothing",), ("metadata", "nothing"), ("spec", 99, "x")]
        for where in [*_paths(obj), *missing]:
            for at_value in (False, True):
                assert mapped.position(where, at_value) == composed.position(where, at_value), (path, where)
            assert mapped.plain_scalar(where) == composed.plain_scalar(where), (path, where)
            compared += 1
    assert compared > 10_000
