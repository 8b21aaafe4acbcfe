"""Objects whose removal from Git would break the cluster or lose data are kept by the engine: the
CNI's and every CRD-bearing Helm release, the GPU operators' namespaces, the workload namespaces,
the Karpenter NodePools and their node classes. Nothing else is exempt from pruning."""

from __future__ import annotations

import pytest
from conftest import EXAMPLES, REPO
from gpu_support import load_objects

from generator.inputs.load import load_cluster
from generator.paths import Project

# kustomize-controller's garbage collection skips this annotation (fluxcd/kustomize-controller
# docs/spec/v1/kustomizations.md "Prune"); Argo CD's sync options (user-guide/sync-options.md).
KEEP = {
    "flux": {"kustomize.toolkit.fluxcd.io/prune": "disabled"},
    "argocd": {"argocd.argoproj.io/sync-options": "Prune=false,Delete=false"},
}


def spec_of(cluster: str) -> dict:
    """The complete input (its bases merged, defaults filled)."""
    return load_cluster(Project(REPO), cluster).spec


def is_helm_release(o: dict) -> bool:
    return o["kind"] == "HelmRelease" or (o["kind"] == "Application" and "chart" in o["spec"].get("source", {}))


def kept(o: dict, engine: str) -> bool:
    annotations = o["metadata"].get("annotations", {})
    return all(annotations.get(k) == v for k, v in KEEP[engine].items())


def prune_disabled(o: dict) -> bool:
    annotations = o["metadata"].get("annotations", {})
    return annotations.get("kustomize.toolkit.fluxcd.io/prune") == "disabled" or "Prune=false" in annotations.get(
        "argocd.argoproj.io/sync-options", ""
    )


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_releases_and_data_namespaces_are_kept_when_they_leave_git(rendered, cluster):
    spec = spec_of(cluster)
    engine = spec["gitops"]["engine"]
    objects = load_objects(rendered / cluster)
    releases = [o for o in objects if is_helm_release(o)]
    assert releases
    if spec.get("network", {}).get("cilium", {}).get("enabled", True):
        assert "cilium" in {o["metadata"]["name"] for o in releases}
    operator_namespaces = {"gpu-operator", "kube-amd-gpu"}
    workload_namespaces = {w["namespace"] for w in spec.get("workloads", [])}
    # deleting a NodePool terminates the nodes it launched
    provisioned = {p["name"] for p in spec["nodePools"] if "provisioning" in p}
    expected = (
        {(o["kind"], o["metadata"]["name"]) for o in releases}
        | {
            ("Namespace", o["metadata"]["name"])
            for o in objects
            if o["kind"] == "Namespace" and o["metadata"]["name"] in operator_namespaces | workload_namespaces
        }
        | {(kind, pool) for pool in provisioned for kind in ("NodePool", "EC2NodeClass", "AKSNodeClass")}
        & {(o["kind"], o["metadata"]["name"]) for o in objects}
        # a kept workload namespace keeps its isolation: default deny, quota, LimitRange
        | {
            (kind, name)
            for kind, name in (
                ("NetworkPolicy", "default-deny-all"),
                ("ResourceQuota", "gpu-quota"),
                ("LimitRange", "container-defaults"),
            )
        }
        & {(o["kind"], o["metadata"]["name"]) for o in objects}
    )
    assert {("Namespace", ns) for ns in workload_namespaces} <= expected
    assert {("NodePool", pool) for pool in provisioned} <= expected
    for o in objects:
        if (o["kind"], o["metadata"]["name"]) in expected:
            assert kept(o, engine), (o["kind"], o["metadata"]["name"])
    # nothing else escapes pruning: the rest of a removed component goes with it
    assert {(o["kind"], o["metadata"]["name"]) for o in objects if prune_disabled(o)} == expected
