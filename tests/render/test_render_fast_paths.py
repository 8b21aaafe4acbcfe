"""Render skips work whose result it would not use, and the result stays the same."""

from __future__ import annotations

import pytest

from generator.diagnostic import format_text
from generator.errors import InputError
from generator.inputs.load import load_cluster
from generator.lint.rules import rule
from generator.paths import Project
from generator.render.checks import lint_rules
from generator.render.layout import build_tree
from generator.tree import fingerprint
from generator.tree.write import write_tree
from generator.validate import SchemaValidator

# a GPU job without a memory limit: GPU007, a warning by default
JOB = {
    "apiVersion": "batch/v1",
    "kind": "Job",
    "metadata": {"name": "train", "namespace": "gpu-training"},
    "spec": {
        "template": {
            "spec": {
                "restartPolicy": "Never",
                "tolerations": [
                    {"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"},
                    {"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"},
                ],
                "containers": [
                    {
                        "name": "main",
                        "image": "nvcr.io/nvidia/pytorch:24.05-py3",
                        "resources": {"limits": {"nvidia.com/gpu": 1}},
                    }
                ],
            }
        }
    },
}


def _tree(project):
    cluster = load_cluster(Project(project), "aks-h100-training")
    return cluster, build_tree(cluster.name, [("20-workloads", [("training", [JOB])])])


def test_render_does_not_run_rules_whose_findings_it_would_not_report(project, monkeypatch):
    cluster, tree = _tree(project)
    from generator.lint import engine

    warning_rule = rule("GPU007")
    assert warning_rule is not None and warning_rule.meta.severity == "warning"
    calls = []
    recording = warning_rule.replace(check=lambda *args: calls.append(args) or [])
    real = engine.registry
    monkeypatch.setattr(
        engine, "registry", lambda cluster=True: tuple(recording if r is warning_rule else r for r in real(cluster))
    )
    assert lint_rules(tree, cluster, "rendered/x") == []
    assert calls == []


def test_a_rule_the_config_raises_to_error_still_runs_and_reports(project):
    cluster, tree = _tree(project)
    problems = lint_rules(tree, cluster, "rendered/x", {"lint": {"rules": {"GPU007": "error"}}})
    assert [p.severity for p in problems] == ["error"]
    assert "[GPU007]" in format_text(problems[0]) and problems[0].file.startswith("rendered/x/20-workloads/")


def test_jsonschema_runs_only_to_explain_a_failure():
    validator = SchemaValidator("1.32")
    good = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "a"}, "data": {"k": "v"}}
    assert validator.check(good) == []
    compiled = validator._validator_for("v1", "ConfigMap")
    assert compiled.fast is not None and compiled._full is None
    bad = dict(good, data={"k": 1})
    problems = validator.check(bad)
    assert [(p.path, p.kind) for p in problems] == [(("data", "k"), "invalid")]
    assert compiled._full is not None


@pytest.mark.parametrize("rel", ["../escape.yaml", "a/../../escape.yaml", "/abs.yaml"])
def test_staging_refuses_paths_that_leave_the_cluster_folder(tmp_path, rel):
    tree = build_tree("c1", [])
    tree.files[rel] = b"x: 1\n"
    with pytest.raises(InputError, match="leaves the cluster's folder"):
        write_tree(tmp_path / "rendered", "c1", tree.files, "rendered/c1")
    assert not (tmp_path / "escape.yaml").exists()


def test_staging_writes_nested_folders(tmp_path):
    tree = build_tree("c1", [])
    tree.files["a/b/c/deep.yaml"] = b"x: 1\n"
    tree.files["a/top.yaml"] = b"y: 2\n"
    write_tree(tmp_path / "rendered", "c1", tree.files, "rendered/c1")
    assert (tmp_path / "rendered" / "c1" / "a" / "b" / "c" / "deep.yaml").read_bytes() == b"x: 1\n"
    assert (tmp_path / "rendered" / "c1" / "a" / "top.yaml").read_bytes() == b"y: 2\n"


@pytest.mark.parametrize("size", [0, 1, (1 << 20) - 1, 1 << 20, (2 << 20) + 3])
def test_files_are_hashed_whole_at_any_size(tmp_path, size):
    path = tmp_path / "f"
    data = bytes(i % 251 for i in range(size))
    path.write_bytes(data)
    assert fingerprint._read(str(path)) == data
