"""An object a fleet renders alike in many clusters is schema-checked once; failures always again."""

from __future__ import annotations

import pytest

from generator.render import checks
from generator.render.layout import build_tree
from generator.validate import SchemaValidator


def _config_map(data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}, "data": data}


@pytest.fixture
def counted(monkeypatch):
    """A validator whose checks are counted, with an empty memo."""
    monkeypatch.setattr(checks, "_PASSED", {})
    validator = SchemaValidator("1.32")
    calls: list[dict] = []
    real = validator.check
    monkeypatch.setattr(validator, "check", lambda obj: calls.append(obj) or real(obj))
    return validator, calls


def _validate(cluster: str, obj: dict, validator: SchemaValidator) -> list:
    tree = build_tree(cluster, [("10-layer", [("component", [obj])])])
    return checks.validate(tree, validator, False, f"rendered/{cluster}")


def test_the_same_object_in_another_cluster_is_not_checked_again(counted):
    validator, calls = counted
    assert _validate("a", _config_map({"k": "v"}), validator) == []
    assert _validate("another-cluster", _config_map({"k": "v"}), validator) == []
    assert len(calls) == 1


def test_an_object_that_differs_in_one_value_is_checked(counted):
    validator, calls = counted
    _validate("a", _config_map({"k": "v"}), validator)
    _validate("b", _config_map({"k": "w"}), validator)
    _validate("c", _config_map({"k": "1"}), validator)
    assert len(calls) == 3


def test_a_failing_object_is_checked_and_reported_in_every_cluster(counted):
    validator, calls = counted
    bad = _config_map({"k": 1})  # data values are strings
    first, second = _validate("a", bad, validator), _validate("b", bad, validator)
    assert len(first) == 1 and "data/k" in first[0].message
    assert str(first[0].location) == "rendered/a/10-layer/component/configmap_default_x.yaml"
    assert str(second[0].location) == "rendered/b/10-layer/component/configmap_default_x.yaml"
    assert len(calls) == 2


def test_another_validator_checks_again(counted):
    validator, calls = counted
    _validate("a", _config_map({"k": "v"}), validator)
    other = SchemaValidator("1.31")
    assert _validate("a", _config_map({"k": "v"}), other) == []
    assert _validate("b", _config_map({"k": "v"}), validator) == []
    assert len(calls) == 1  # the other's check is its own
    assert len(checks._PASSED) == 2
