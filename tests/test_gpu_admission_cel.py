"""The rendered ValidatingAdmissionPolicy, evaluated with a CEL implementation against pods.

Each policy is evaluated as the API server does: the variables in order, then every validation;
a pod is admitted when all validations are true. The pods cover NVIDIA whole GPUs, MIG slices
and AMD GPUs, good and bad.
"""

from __future__ import annotations

import celpy
import pytest
from celpy import celtypes

from gpu_support import find, load_objects, rendered  # noqa: F401  (rendered is a fixture)


def evaluate(policy: dict, pod: dict) -> list[str]:
    """Messages of the validations that fail for ``pod`` (empty: admitted)."""
    env = celpy.Environment()
    obj = celpy.json_to_cel(pod)
    variables = celtypes.MapType({})
    for var in policy["spec"]["variables"]:
        value = env.program(env.compile(var["expression"])).evaluate({"object": obj, "variables": variables})
        variables = celtypes.MapType({**variables, celtypes.StringType(var["name"]): value})
    failed = []
    for rule in policy["spec"]["validations"]:
        result = env.program(env.compile(rule["expression"])).evaluate({"object": obj, "variables": variables})
        if not bool(result):
            failed.append(rule["message"])
    return failed


def pod(resources: dict | None = None, tolerations: list | None = None, init: dict | None = None) -> dict:
    container = {"name": "main", "image": "example/app:1"}
    if resources is not None:
        container["resources"] = resources
    spec: dict = {"containers": [container]}
    if tolerations is not None:
        spec["tolerations"] = tolerations
    if init is not None:
        spec["initContainers"] = [{"name": "init", "image": "example/init:1", "resources": init}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


NV_TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
AMD_TOL = [{"key": "amd.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
GPU1 = {"limits": {"nvidia.com/gpu": "1", "memory": "16Gi"}}


@pytest.fixture(scope="module")
def aks_policy(rendered):
    return find(load_objects(rendered / "aks-h100-training"), "ValidatingAdmissionPolicy")[0]


@pytest.fixture(scope="module")
def eks_policy(rendered):
    return find(load_objects(rendered / "eks-mi300x-inference"), "ValidatingAdmissionPolicy")[0]


# (pod, substring of the one expected failure message or None when admitted)
NVIDIA_CASES = {
    "limit-and-toleration": (pod(GPU1, NV_TOL), None),
    "cpu-only-pod-needs-nothing": (pod({"limits": {"cpu": "1"}}), None),
    "request-without-limit": (pod({"requests": {"nvidia.com/gpu": "1"}, "limits": {"memory": "1Gi"}}, NV_TOL),
                              "without a limit"),
    "request-differs-from-limit": (pod({"requests": {"nvidia.com/gpu": "1"},
                                        "limits": {"nvidia.com/gpu": "2", "memory": "1Gi"}}, NV_TOL),
                                   "differs from its limit"),
    "no-toleration": (pod(GPU1), "tolerate"),
    "no-memory-limit": (pod({"limits": {"nvidia.com/gpu": "1"}}, NV_TOL), "memory limit"),
    # h100 is tainted nvidia.com/gpu=present: an Equal toleration with that value is enough.
    "equal-toleration-matching-value": (pod(GPU1, [{"key": "nvidia.com/gpu", "operator": "Equal",
                                                    "value": "present", "effect": "NoSchedule"}]), None),
    # EKS-style nvidia.com/gpu=true matches neither the h100 (present) nor the l40s (no value) taint.
    "equal-toleration-wrong-value": (pod(GPU1, [{"key": "nvidia.com/gpu", "value": "true",
                                                 "effect": "NoSchedule"}]), "tolerate"),
    "toleration-for-other-effect": (pod(GPU1, [{"key": "nvidia.com/gpu", "operator": "Exists",
                                                "effect": "NoExecute"}]), "tolerate"),
    "wildcard-toleration": (pod(GPU1, [{"operator": "Exists"}]), None),
    "shared-gpu-needs-toleration": (pod({"limits": {"nvidia.com/gpu.shared": "1", "memory": "1Gi"}}), "tolerate"),
    "init-container-without-memory-limit": (pod({"limits": {"cpu": "1"}}, NV_TOL,
                                                init={"limits": {"nvidia.com/gpu": "1"}}), "memory limit"),
}

EKS_CASES = {
    "mig-slice-good": (pod({"limits": {"nvidia.com/mig-1g.5gb": "1", "memory": "8Gi"}}, NV_TOL), None),
    "mig-slice-no-toleration": (pod({"limits": {"nvidia.com/mig-2g.10gb": "1", "memory": "8Gi"}}), "nvidia"),
    "mig-request-not-equal": (pod({"requests": {"nvidia.com/mig-1g.5gb": "2"},
                                   "limits": {"nvidia.com/mig-1g.5gb": "1", "memory": "8Gi"}}, NV_TOL),
                              "differs from its limit"),
    "amd-good": (pod({"limits": {"amd.com/gpu": "8", "memory": "512Gi"}}, AMD_TOL), None),
    "amd-with-only-nvidia-toleration": (pod({"limits": {"amd.com/gpu": "1", "memory": "8Gi"}}, NV_TOL), "amd"),
    "amd-partition-no-memory-limit": (pod({"limits": {"amd.com/cpx_nps4": "1"}}, AMD_TOL), "memory limit"),
}


@pytest.mark.parametrize("case", sorted(NVIDIA_CASES))
def test_nvidia_pods(aks_policy, case):
    body, expected = NVIDIA_CASES[case]
    failed = evaluate(aks_policy, body)
    if expected is None:
        assert failed == []
    else:
        assert len(failed) == 1 and expected in failed[0], failed


@pytest.mark.parametrize("case", sorted(EKS_CASES))
def test_mig_and_amd_pods(eks_policy, case):
    body, expected = EKS_CASES[case]
    failed = evaluate(eks_policy, body)
    if expected is None:
        assert failed == []
    else:
        assert len(failed) == 1 and expected in failed[0], failed


def test_messages_name_the_taint_to_tolerate(aks_policy, eks_policy):
    texts = [v["message"] for p in (aks_policy, eks_policy) for v in p["spec"]["validations"]]
    assert any("{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}" in t for t in texts)
    assert any("{key: amd.com/gpu, operator: Exists, effect: NoSchedule}" in t for t in texts)


def test_binding_covers_exactly_the_workload_namespaces(rendered):
    objects = load_objects(rendered / "eks-mi300x-inference")
    binding = find(objects, "ValidatingAdmissionPolicyBinding")[0]
    (expr,) = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    namespaces = {o["metadata"]["name"] for o in find(objects, "Namespace")
                  if o["metadata"].get("labels", {}).get("gpu-gitops.io/workload-type")}
    assert set(expr["values"]) == namespaces
    assert binding["spec"]["validationActions"] == ["Deny"]


def test_pools_with_different_taints(project, run):
    """A GPU pod may go to any pool of its vendor: tolerating one pool's taints is enough."""
    from gpu_support import load_objects as load

    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(path.read_text().replace("{key: nvidia.com/gpu, value: present, effect: NoSchedule}",
                                             "{key: sku, value: gpu, effect: NoSchedule}"))
    assert run(project, "render", "aks-h100-training").exit_code == 0
    (policy,) = find(load(project / "rendered" / "aks-h100-training"), "ValidatingAdmissionPolicy")
    sku = [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    assert evaluate(policy, pod(GPU1, sku)) == []
    assert evaluate(policy, pod(GPU1, NV_TOL)) == []
    (message,) = evaluate(policy, pod(GPU1, [{"key": "sku", "operator": "Equal", "value": "cpu"}]))
    assert "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}" in message
    assert "(or, for another pool: {key: sku, operator: Exists, effect: NoSchedule})" in message
