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


class _Answered(Positions):
    """The reader's positions, each ``find`` made once: ``position(path, True)`` and
    ``plain_scalar(path)`` ask the same question, and its answer is the text's."""

    __slots__ = ("_answers",)

    def __init__(self, text: str):
        super().__init__(text)
        self._answers: dict = {}

    def find_all(self, queries):
        answers = self._answers
        for path, at_value in queries:
            key = (tuple(path), at_value)
            if key not in answers:
                answers[key] = super().find_all([(path, at_value)])[0]
        return [answers[(tuple(path), at_value)] for path, at_value in queries]


def test_every_path_of_every_rendered_file_is_located_as_the_node_tree_locates_it():
    compared = 0
    for path in sorted((ROOT / "rendered").rglob("*.yaml")):
        text = path.read_text(encoding="utf-8")
        obj = load(text)
        composed = Document(str(path), text, 0, obj)
        mapped = Document(str(path), text, 0, obj, where=_Answered(text))
        missing = [("nothing",), ("metadata", "nothing"), ("spec", 99, "x")]
        for where in [*_paths(obj), *missing]:
            for at_value in (False, True):
                assert mapped.position(where, at_value) == composed.position(where, at_value), (path, where)
            assert mapped.plain_scalar(where) == composed.plain_scalar(where), (path, where)
            compared += 1
    assert compared > 10_000
