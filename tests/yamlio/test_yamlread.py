"""The one reader's position lookup and its limits table."""

from __future__ import annotations

import os
import pickle

import pytest
from conftest import REPO, record_position_reads

from generator.yamlio import positions as yamlpos
from generator.yamlio import read as yamlread

TEXT = "a:\n  b: [1, 2]\n  c:\n  - x: 1\n"


def _at(positions: yamlread.Positions, path: tuple, at_value: bool = False):
    node, mark = positions.find(path, at_value)
    return node, None if mark is None else (mark.line, mark.column)


def test_find_gives_the_deepest_written_part_of_a_path():
    positions = yamlread.Positions(TEXT)
    node, mark = _at(positions, ("a", "b", 1))
    assert (node.value, mark) == ("2", (1, 9))
    assert _at(positions, ("a", "b"), at_value=True)[1] == (1, 5)  # the value, not the key
    assert _at(positions, ("a", "c", 0, "y")) == (None, (3, 4))  # the item holding the missing key
    assert _at(positions, ("z",)) == (None, None)  # nothing of the path is written


@pytest.mark.skipif(
    os.environ.get("GPU_GITOPS_YAML_BACKEND") == "events", reason="the compiled reader's one-read lookup"
)
def test_find_all_answers_each_path_as_find_does_in_one_read(monkeypatch):
    """Paths that share a prefix, repeat, end in the root, a value, an item or nowhere: one read
    of the text answers them all, each as ``find`` alone does."""
    queries = [
        (("a", "c", 0, "x"), True),
        (("a", "b", 1), False),
        ((), False),
        (("a", "c", 0, "x"), False),
        (("a", "c", 0, "y"), False),
        (("a",), True),
        (("a", "b", "k"), False),
        (("z",), False),
        (("a", "c", 10**30), False),
        (("a", "b", 1), False),
    ]
    alone = [_at(yamlread.Positions(TEXT), path, at_value) for path, at_value in queries]
    reads = record_position_reads(monkeypatch)
    for whole in (False, True):
        together = yamlread.Positions(TEXT, whole=whole).find_all(queries)
        assert [(node, None if mark is None else (mark.line, mark.column)) for node, mark in together] == alone
    assert len(reads) == 2


@pytest.mark.skipif(
    os.environ.get("GPU_GITOPS_YAML_BACKEND") == "events", reason="the compiled reader's one-read lookup"
)
def test_a_lookup_in_a_text_load_read_whole_stops_once_its_answers_are_settled():
    """``build_located`` marks the texts the compiled reader loaded; a lookup there reads no
    further than its answers need. Shown on a text no load takes (a repeated key, which
    a full read answers with the later one): the lookup stops at the first."""
    _data, where = yamlread.build_located(TEXT)
    assert where is not None and where._whole
    assert yamlread.build_located("%YAML 1.1\n---\na: 1\n")[1]._whole is False  # the event path read it
    repeated = "a: 1\nb: 2\na: 3\n"
    assert [_at(yamlread.Positions(repeated, whole=whole), ("a",))[1] for whole in (False, True)] == [(2, 0), (0, 0)]


def test_inputs_and_lint_locate_through_the_same_lookup():
    """An input read by ruamel's round-trip loader (an anchor) is located by the reader's
    lookup too, as lint's documents are."""
    fast = yamlpos.load_text(TEXT, "x.yaml")
    slow = yamlpos.load_text("a: &x\n  b: [1, 2]\n  c:\n  - x: 1\n", "x.yaml")
    assert isinstance(fast.where, yamlread.Positions) and isinstance(slow.where, yamlread.Positions)
    assert fast.position(("a", "c", 0, "x")) == slow.position(("a", "c", 0, "x")) == (4, 5)


def test_positions_are_pickled_without_events_and_read_again():
    positions = yamlread.Positions(TEXT)
    assert _at(positions, ("a", "c"))[1] == (2, 2)
    copy = pickle.loads(pickle.dumps(positions))
    assert copy._located is None and _at(copy, ("a", "c"))[1] == (2, 2)
    located = yamlpos.load_text("a: 1.5\n", "x.yaml")  # ruamel's map has no text to read again
    assert pickle.loads(pickle.dumps(located)).value_position(("a",)) == (1, 4)


def test_docs_name_the_limits_of_the_table():
    text = " ".join((REPO / "docs" / "lint.md").read_text(encoding="utf-8").split())
    manifests, inputs = yamlread.MANIFESTS, yamlread.INPUTS
    for phrase in (
        f"Files over {manifests.file_bytes >> 20} MiB",
        f"documents over {manifests.document_bytes >> 20} MiB",
        f"more than {manifests.depth} levels deep",
        f"more than {manifests.alias_nodes:,} nodes",
        f"{inputs.depth} levels and {inputs.file_bytes >> 20} MiB",
    ):
        assert phrase in text
    assert inputs.alias_nodes == manifests.alias_nodes  # "the same alias budget"
