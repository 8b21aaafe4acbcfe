"""Deferred serialisation markers (k.yaml / k.json / k.hash) resolved after evaluation."""

from __future__ import annotations

import hashlib
import json

import pytest
from ruamel.yaml import YAML

from generator.errors import InputError
from generator.library.deferred import resolve


def _marker(fmt, value):
    return {"__gpu_gitops__": {"format": fmt, "value": value}}


def test_yaml_marker_becomes_canonical_yaml_text():
    config = {"version": "v1", "flags": {"migStrategy": "mixed", "failOnInitError": True}}
    text = resolve({"data": {"config.yaml": _marker("yaml", config)}})["data"]["config.yaml"]
    assert text.splitlines()[0] == "flags:"  # keys sorted
    assert YAML(typ="safe").load(text) == config


def test_hash_is_independent_of_key_order_and_changes_with_content():
    a = resolve(_marker("sha256", {"a": 1, "b": [1, 2]}))
    b = resolve(_marker("sha256", {"b": [1, 2], "a": 1}))
    c = resolve(_marker("sha256", {"a": 2, "b": [1, 2]}))
    assert a == b != c
    assert a == hashlib.sha256(b'{"a":1,"b":[1,2]}').hexdigest()


def test_nested_markers_resolve_inside_out():
    inner = _marker("json", {"x": 1})
    out = resolve(_marker("sha256", [inner]))
    assert (
        out
        == hashlib.sha256(
            json.dumps([json.dumps({"x": 1}, indent=2) + "\n"], separators=(",", ":")).encode()
        ).hexdigest()
    )


@pytest.mark.parametrize(
    "bad",
    [
        {"__gpu_gitops__": {"format": "toml", "value": 1}},
        {"__gpu_gitops__": {"format": "yaml", "value": 1}, "extra": 1},
    ],
)
def test_malformed_markers_are_errors(bad):
    with pytest.raises(InputError, match="malformed __gpu_gitops__ marker"):
        resolve(bad)


def test_the_result_is_resolved_in_place_not_copied():
    """The engine's result holds tens of thousands of containers and a few markers: only the
    markers' holders change."""
    holder = {"data": {"config.yaml": _marker("json", {"x": 1}), "plain": "y"}}
    objects = [holder, {"metadata": {"labels": {"a": "b"}}}]
    untouched = objects[1]["metadata"]
    out = resolve(objects)
    assert out is objects and out[0] is holder and out[1]["metadata"] is untouched
    assert holder["data"] == {"config.yaml": json.dumps({"x": 1}, indent=2) + "\n", "plain": "y"}
