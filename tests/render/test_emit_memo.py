"""An object a fleet renders alike in many clusters is emitted as YAML once; another value, or a
value of another type, is emitted on its own."""

from __future__ import annotations

import pytest

from generator.render import layout
from generator.yamlio import emit
from generator.yamlio.emit import to_yaml


@pytest.fixture
def emitted(monkeypatch) -> list[dict]:
    """The objects the emitter is asked for, with an empty memo."""
    monkeypatch.setattr(emit, "_ONCE", {})
    calls: list[dict] = []
    monkeypatch.setattr(emit, "to_yaml", lambda obj: calls.append(obj) or to_yaml(obj))
    return calls


def _config_map(data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}, "data": data}


def _file(cluster: str, obj: dict) -> bytes:
    tree = layout.build_tree(cluster, [("10-layer", [("component", [obj])])])
    return tree.files["10-layer/component/configmap_default_x.yaml"]


def test_the_same_object_in_another_cluster_is_emitted_once(emitted):
    first, second = _file("a", _config_map({"k": "v"})), _file("b", _config_map({"k": "v"}))
    assert len(emitted) == 1
    assert first.split(b"\n", 1)[1] == second.split(b"\n", 1)[1] == to_yaml(_config_map({"k": "v"})).encode()
    assert b"clusters/b/" in second.split(b"\n", 1)[0]


@pytest.mark.parametrize("other", [1, 1.0, "1", "true"])
def test_a_value_of_another_type_is_not_taken_for_it(emitted, other):
    """True == 1 == 1.0 in Python, but each is written as itself."""
    assert _file("a", {**_config_map({}), "data": {"k": True}}) != _file("a", {**_config_map({}), "data": {"k": other}})
    assert len(emitted) == 2
    assert _file("b", {**_config_map({}), "data": {"k": other}}).endswith(
        to_yaml({**_config_map({}), "data": {"k": other}}).encode()
    )


def test_a_full_memo_is_emptied(emitted, monkeypatch):
    monkeypatch.setattr(emit, "_ONCE_MAX", 1)
    _file("a", _config_map({"k": "v"}))
    _file("a", _config_map({"k": "w"}))
    _file("b", _config_map({"k": "v"}))
    assert len(emitted) == 3 and len(emit._ONCE) == 1
