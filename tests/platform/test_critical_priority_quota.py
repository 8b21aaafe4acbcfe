"""Where the provider holds the system-node-critical and system-cluster-critical PriorityClasses to
kube-system (providers.json criticalPriorityQuota: GKE), every other namespace that runs pods of
those classes has a ResourceQuota scoped to them: the API server's ResourceQuota admission refuses
the pods otherwise ("insufficient quota to match these scopes",
kubernetes.io/docs/concepts/policy/resource-quotas/#limit-priority-class-consumption-by-default)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from conftest import EXAMPLES, REPO
from gpu_support import find, load_objects
from ruamel.yaml import YAML

CRITICAL = {"system-node-critical", "system-cluster-critical"}
# Charts rendered as releases whose pods run a critical class by default, by chart name: the GPU
# Operator (values.yaml operator and daemonsets.priorityClassName) and the DRA driver
# (values.yaml controller, kubeletPlugin and webhook priorityClassName, v25.12.0).
CRITICAL_CHARTS = {"gpu-operator", "nvidia-dra-driver-gpu"}


def facts(provider: str) -> dict:
    return json.loads((REPO / "libsonnet" / "providers.json").read_text(encoding="utf-8"))["providers"][provider][
        "facts"
    ]


def provider_of(cluster: str) -> str:
    return YAML(typ="safe").load((REPO / "clusters" / cluster / "cluster.yaml").read_text(encoding="utf-8"))["provider"]


def pod_spec(obj: dict) -> dict | None:
    spec = obj.get("spec", {})
    if obj["kind"] == "Pod":
        return spec
    if obj["kind"] == "CronJob":
        return spec["jobTemplate"]["spec"]["template"]["spec"]
    return spec.get("template", {}).get("spec") if "template" in spec else None


def release_chart(obj: dict) -> tuple[str, str] | None:
    """(chart, target namespace) of a HelmRelease or Application."""
    if obj["kind"] == "HelmRelease":
        return obj["spec"]["chart"]["spec"]["chart"], obj["spec"].get("targetNamespace", obj["metadata"]["namespace"])
    if obj["kind"] == "Application" and "chart" in obj["spec"].get("source", {}):
        return obj["spec"]["source"]["chart"], obj["spec"]["destination"]["namespace"]
    return None


def critical_namespaces(objects: list[dict]) -> set[str]:
    """Namespaces outside kube-system where the rendered objects run critical pods."""
    found = set()
    for obj in objects:
        spec = pod_spec(obj)
        if spec and spec.get("priorityClassName") in CRITICAL:
            found.add(obj["metadata"]["namespace"])
        release = release_chart(obj)
        if release and release[0] in CRITICAL_CHARTS:
            found.add(release[1])
    return found - {"kube-system"}


def admitted(objects: list[dict], namespace: str) -> set[str]:
    """The critical classes a quota in `namespace` is scoped to."""
    classes = set()
    for quota in find(objects, "ResourceQuota"):
        if quota["metadata"]["namespace"] != namespace:
            continue
        for expression in quota["spec"].get("scopeSelector", {}).get("matchExpressions", []):
            if expression["scopeName"] == "PriorityClass" and expression["operator"] == "In":
                classes |= set(expression["values"]) & CRITICAL
    return classes


@pytest.mark.parametrize("cluster", EXAMPLES)
def test_every_namespace_with_critical_pods_has_its_quota_where_the_provider_needs_it(cluster):
    objects = load_objects(REPO / "rendered" / cluster)
    namespaces = critical_namespaces(objects)
    if facts(provider_of(cluster))["criticalPriorityQuota"]:
        assert namespaces, "the example exercises no critical namespace"
        assert {ns: admitted(objects, ns) for ns in namespaces} == {ns: CRITICAL for ns in namespaces}
    else:
        assert not [q for q in find(objects, "ResourceQuota") if q["metadata"]["name"] == "critical-pods"]


def test_the_gke_example_exercises_tuning_and_disks():
    objects = load_objects(REPO / "rendered" / "gke-l4-inference")
    assert critical_namespaces(objects) == {"gpu-node-tuning", "local-storage"}
    (quota,) = find(objects, "ResourceQuota", "critical-pods")[:1]
    assert quota["spec"]["hard"] == {"pods": "1G"}  # admits, never limits


def test_the_gpu_operator_and_dra_driver_namespaces_get_the_quota_on_gke(project, run):
    """GKE with the GPU Operator (Google's driver installer off) and a DRA pool: the operator's
    operands, gpu-node-config and the DRA driver's plugin all run in namespaces of their own."""
    path: Path = project / "clusters" / "onprem-gb200-dra" / "cluster.yaml"
    text = path.read_text(encoding="utf-8").replace("provider: generic", "provider: gke", 1)
    text = re.sub(r"(?ms)^network:.*?^(?=nodePools:)", "", text)  # GKE's own dataplane
    text = re.sub(r"(?m)^    allowEgressToFQDNs: .*\n", "", text)  # a Cilium policy
    text = re.sub(r"(?m)^    fabric: .*\n", "", text)  # no training fabric gpu-gitops renders on GKE
    path.write_text(text, encoding="utf-8")
    result = run(project, "render", "onprem-gb200-dra")
    assert result.exit_code == 0, result.output
    objects = load_objects(project / "rendered" / "onprem-gb200-dra")
    namespaces = critical_namespaces(objects)
    assert {"gpu-operator", "nvidia-dra-driver-gpu"} <= namespaces
    assert {ns: admitted(objects, ns) for ns in namespaces} == {ns: CRITICAL for ns in namespaces}
