"""Deferred serialisation markers (k.yaml / k.json / k.hash) resolved as the engine's result is parsed."""

from __future__ import annotations

import hashlib
import json

import pytest
from ruamel.yaml import YAML

from generator.errors import InputError
from generator.library.deferred import loads


def resolve(value):
    """``value`` as the engine returns it: JSON text, parsed by ``loads``."""
    return loads(json.dumps(value))


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


def test_markers_are_resolved_while_the_text_is_parsed_not_by_a_walk_after(monkeypatch):
    """Each object is seen once, by ``json.loads``'s hook as it is parsed: there is no walk of
    the result (tens of thousands of containers a cluster, a few markers) afterwards."""
    from generator.library import deferred

    seen = []
    real = deferred._resolved
    monkeypatch.setattr(deferred, "_resolved", lambda value: seen.append(value) or real(value))
    text = json.dumps({"c": [{"data": {"config.yaml": _marker("json", {"x": 1}), "plain": "y"}}, {"k": {"a": 1}}]})
    out = loads(text)
    assert out["c"][0]["data"] == {"config.yaml": json.dumps({"x": 1}, indent=2) + "\n", "plain": "y"}
    assert len(seen) == text.count("{")  # every object once, the marker's own three included


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
