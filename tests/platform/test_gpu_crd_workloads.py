"""GPU pods of custom-resource workloads: the admission policy judges the pods they create, and
`gpu-gitops lint` judges their templates before apply (docs/gpu.md, "Admission of GPU pods").
This checks the second half for every kind that decision names, and that the policy really
does not match them (so the doc stays true)."""

from __future__ import annotations

import copy

import pytest
import yaml
from gpu_support import find, load_objects

from generator.lint import lint_paths
from generator.lint.settings import Settings

# A GPU container without a memory limit or a toleration, as a pod template spec.
BAD = {
    "containers": [{"name": "trainer", "image": "example/train:1", "resources": {"limits": {"nvidia.com/gpu": "8"}}}]
}
GOOD = {
    "containers": [
        {
            "name": "trainer",
            "image": "example/train:1",
            "resources": {"limits": {"nvidia.com/gpu": "8", "memory": "64Gi"}},
        }
    ],
    "tolerations": [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}],
}


def _template(spec: dict) -> dict:
    return {"template": {"spec": copy.deepcopy(spec)}}


def objects(spec: dict) -> dict[str, dict]:
    """One object per kind, its pod template(s) at the CRD's path (generator/kube/pods.py)."""
    ray = {"headGroupSpec": _template(spec), "workerGroupSpecs": [{"groupName": "w"} | _template(spec)]}
    meta = {"name": "gpu", "namespace": "gpu-training"}
    return {
        "JobSet": {
            "apiVersion": "jobset.x-k8s.io/v1alpha2",
            "kind": "JobSet",
            "metadata": meta,
            "spec": {"replicatedJobs": [{"name": "w", "template": {"spec": _template(spec)}}]},
        },
        "LeaderWorkerSet": {
            "apiVersion": "leaderworkerset.x-k8s.io/v1",
            "kind": "LeaderWorkerSet",
            "metadata": meta,
            "spec": {"leaderWorkerTemplate": {"workerTemplate": {"spec": copy.deepcopy(spec)}}},
        },
        "PyTorchJob": {
            "apiVersion": "kubeflow.org/v1",
            "kind": "PyTorchJob",
            "metadata": meta,
            "spec": {"pytorchReplicaSpecs": {"Worker": {"replicas": 2} | _template(spec)}},
        },
        "RayCluster": {"apiVersion": "ray.io/v1", "kind": "RayCluster", "metadata": meta, "spec": ray},
        "RayJob": {
            "apiVersion": "ray.io/v1",
            "kind": "RayJob",
            "metadata": meta,
            "spec": {"entrypoint": "python t.py", "rayClusterSpec": copy.deepcopy(ray)},
        },
        "VolcanoJob": {
            "apiVersion": "batch.volcano.sh/v1alpha1",
            "kind": "Job",
            "metadata": meta,
            "spec": {"tasks": [{"name": "w", "replicas": 2} | _template(spec)]},
        },
    }


def _rules(tmp_path, obj: dict) -> set[str]:
    path = tmp_path / "workload.yaml"
    path.write_text(yaml.safe_dump(obj), encoding="utf-8")
    settings = Settings.from_config({"lint": {"provider": "aks", "taintKeys": ["nvidia.com/gpu"]}})
    return {f.rule for f in lint_paths([str(path)], settings).findings}


@pytest.mark.parametrize("kind", sorted(objects(BAD)))
def test_lint_judges_every_template_of_the_kind(tmp_path, kind):
    assert {"GPU004", "GPU007"} <= _rules(tmp_path, objects(BAD)[kind])
    assert not {"GPU001", "GPU002", "GPU004", "GPU007"} & _rules(tmp_path, objects(GOOD)[kind])


def test_the_policy_matches_only_core_groups(rendered):
    (policy,) = find(load_objects(rendered / "aks-h100-training"), "ValidatingAdmissionPolicy", "gpu-pod-guardrails")
    groups = {g for rule in policy["spec"]["matchConstraints"]["resourceRules"] for g in rule["apiGroups"]}
    assert groups == {"", "apps", "batch"}
