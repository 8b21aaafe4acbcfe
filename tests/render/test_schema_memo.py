"""An object a fleet renders alike in many clusters is schema-checked once, and its lint rules run once;
each cluster's problems are located at its own file."""

from __future__ import annotations

import pytest
from conftest import MISMATCHED_DEPLOYMENT

from generator.render import checks
from generator.render.layout import build_tree
from generator.validate import SchemaValidator


def _config_map(data: dict) -> dict:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "x", "namespace": "default"}, "data": data}


@pytest.fixture
def counted(monkeypatch):
    """A validator whose checks are counted, with an empty memo."""
    monkeypatch.setattr(checks, "_VERDICTS", {})
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


def test_a_failing_object_is_checked_once_and_reported_in_every_cluster_at_its_file(counted):
    validator, calls = counted
    bad = _config_map({"k": 1})  # data values are strings
    first, second = _validate("a", bad, validator), _validate("b", bad, validator)
    assert len(first) == 1 and "data/k" in first[0].message
    assert str(first[0].location) == "rendered/a/10-layer/component/configmap_default_x.yaml"
    assert str(second[0].location) == "rendered/b/10-layer/component/configmap_default_x.yaml"
    assert second[0].message == first[0].message
    assert len(calls) == 1


def test_another_validator_checks_again(counted):
    validator, calls = counted
    _validate("a", _config_map({"k": "v"}), validator)
    other = SchemaValidator("1.31")
    assert _validate("a", _config_map({"k": "v"}), other) == []
    assert _validate("b", _config_map({"k": "v"}), validator) == []
    assert len(calls) == 1  # the other's check is its own
    assert len(checks._VERDICTS) == 2


def test_a_full_memo_drops_its_least_recently_used_and_keeps_what_every_cluster_uses(counted, monkeypatch):
    validator, calls = counted
    monkeypatch.setattr(checks, "_MEMO_MAX", 4)
    shared = _config_map({"k": "shared"})
    for i in range(8):  # a fleet: each cluster has the shared object and one of its own
        _validate(f"c{i}", shared, validator)
        _validate(f"c{i}", _config_map({"k": f"own-{i}"}), validator)
    assert len(checks._VERDICTS) <= 4
    assert [c["data"]["k"] for c in calls] == ["shared"] + [f"own-{i}" for i in range(8)]  # shared: once
    _validate("again", _config_map({"k": "own-0"}), validator)  # dropped long ago: checked again
    assert calls[-1]["data"]["k"] == "own-0" and len(calls) == 10


_MISMATCHED = MISMATCHED_DEPLOYMENT


@pytest.fixture
def rule_runs(monkeypatch):
    """The lint rules' runs over an object, counted, with an empty memo."""
    import generator.lint

    monkeypatch.setattr(checks, "_SHARED_RESULTS", {})
    runs: list[str] = []
    real = generator.lint.object_result
    monkeypatch.setattr(
        generator.lint, "object_result", lambda engine, file, *a: runs.append(file) or real(engine, file, *a)
    )
    return runs


def _lint(cluster: str, obj: dict, version: str = "1.32") -> list:
    from types import SimpleNamespace

    tree = build_tree(cluster, [("10-layer", [("component", [obj])])])
    spec = SimpleNamespace(spec={"kubernetesVersion": version}, facts=None)
    return checks.lint_rules(tree, spec, f"rendered/{cluster}")  # type: ignore[arg-type]


def test_the_rules_run_once_over_an_object_many_clusters_render_and_each_finding_is_at_its_file(rule_runs):
    first = _lint("a-cluster-with-a-long-name", _MISMATCHED)
    second = _lint("b", _MISMATCHED)
    assert rule_runs == ["rendered/a-cluster-with-a-long-name/10-layer/component/deployment_team_d.yaml"]
    assert [f.rule for f in first] == [f.rule for f in second] == ["K8S006"]
    assert second[0].file == "rendered/b/10-layer/component/deployment_team_d.yaml"
    assert (second[0].line, second[0].col) == (first[0].line, first[0].col)
    checks._SHARED_RESULTS.clear()
    assert _lint("b", _MISMATCHED) == second  # as if it were checked alone


def test_the_rules_run_again_over_another_object_or_with_other_settings(rule_runs):
    _lint("a", _MISMATCHED)
    fixed = {**_MISMATCHED, "spec": {**_MISMATCHED["spec"], "selector": {"matchLabels": {"app": "b"}}}}
    assert _lint("b", fixed) == []
    _lint("c", _MISMATCHED, version="1.31")
    assert len(rule_runs) == 3


def test_a_full_rule_memo_drops_its_least_recently_used_and_runs_the_rules_again_on_it(rule_runs, monkeypatch):
    monkeypatch.setattr(checks, "_MEMO_MAX", 1)
    fixed = {**_MISMATCHED, "spec": {**_MISMATCHED["spec"], "selector": {"matchLabels": {"app": "b"}}}}
    _lint("a", _MISMATCHED)
    _lint("a", fixed)  # full: the other dropped, then this one kept
    _lint("b", _MISMATCHED)
    assert len(rule_runs) == 3 and len(checks._SHARED_RESULTS) == 1


def test_the_checks_of_a_tree_digest_each_object_once_for_its_verdict_and_its_rules(monkeypatch, counted):
    from types import SimpleNamespace

    validator, _calls = counted
    monkeypatch.setattr(checks, "_SHARED_RESULTS", {})
    digested: list[int] = []
    real = checks.hashlib.blake2b
    counting = SimpleNamespace(blake2b=lambda data, **kw: digested.append(len(data)) or real(data, **kw))
    monkeypatch.setattr(checks, "hashlib", counting)  # this module's digests only
    objects = [_config_map({"k": "v"}), {**_config_map({"k": "w"}), "metadata": {"name": "y", "namespace": "default"}}]
    tree = build_tree("a", [("10-layer", [("component", objects)])])
    cluster = SimpleNamespace(spec={"kubernetesVersion": "1.32"}, facts=None, overrides=None)
    assert checks.check(tree, cluster, validator, False, "rendered/a") == []  # type: ignore[arg-type]
    assert len(digested) == len(objects)
