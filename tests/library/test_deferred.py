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


def test_objects_without_a_marker_are_not_walked(monkeypatch):
    """Of an engine's result ({component: [objects]}) only the objects whose bytes hold a
    marker are walked; the others are screened by their marshalled bytes."""
    from generator.library import deferred

    walked = []
    real = deferred._resolve

    def counting(value, depth):
        walked.append(value)
        return real(value, depth)

    monkeypatch.setattr(deferred, "_resolve", counting)
    plain = {"kind": "ConfigMap", "data": {"a": "b"}, "spec": {"items": [{"x": 1}, {"y": [2]}]}}
    marked = {"kind": "ConfigMap", "data": {"config.json": _marker("json", {"x": 1})}}
    result = {"component": [plain, marked]}
    assert resolve(result)["component"][1]["data"]["config.json"] == json.dumps({"x": 1}, indent=2) + "\n"
    assert all(value is not plain and value is not plain["spec"] for value in walked)
    assert marked["data"] in walked


def test_a_marker_deep_in_a_value_marshal_cannot_write_is_still_resolved():
    class Opaque:
        pass

    obj = {"data": {"h": _marker("sha256", {"a": 1})}, "other": Opaque()}
    assert resolve({"c": [obj]})["c"][0]["data"]["h"] == hashlib.sha256(b'{"a":1}').hexdigest()


def test_equal_values_are_serialised_once_and_types_keep_their_texts(monkeypatch):
    """A fleet's clusters defer many values alike: each text is made once a process."""
    from generator.library import deferred

    made = []
    real = deferred._FORMATS["json"]
    monkeypatch.setitem(deferred._FORMATS, "json", lambda v: made.append(v) or real(v))
    monkeypatch.setattr(deferred, "_TEXTS", {})
    first = resolve({"c": [{"data": {"k": _marker("json", {"on": True, "n": 1.0})}}]})
    second = resolve({"c": [{"data": {"k": _marker("json", {"on": True, "n": 1.0})}}]})
    assert first == second and len(made) == 1
    other = resolve({"c": [{"data": {"k": _marker("json", {"on": 1, "n": 1})}}]})  # equal in Python, not in text
    assert other["c"][0]["data"]["k"] == json.dumps({"n": 1, "on": 1}, indent=2) + "\n" and len(made) == 2
