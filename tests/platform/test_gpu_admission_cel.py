"""The rendered ValidatingAdmissionPolicy, evaluated with a CEL implementation against pods and
the pod templates of the workload kinds.

Each policy is evaluated as the API server does: the match conditions (a request that fails one
is not judged), the variables in order, then every validation; an object is admitted when all
validations are true, and a failed validation reports its messageExpression (its message when
that fails). The objects cover NVIDIA whole GPUs, MIG slices and AMD GPUs, good and bad, as Pods,
Deployments, StatefulSets, DaemonSets, ReplicaSets, ReplicationControllers, Jobs and CronJobs.
"""

from __future__ import annotations

import copy
import functools

import celpy
import pytest
from celpy import celtypes
from gpu_support import find, load_objects

# Group of each kind the policy must judge, and where its pod spec is.
KINDS = {
    "Pod": ("", ["spec"]),
    "ReplicationController": ("", ["spec", "template", "spec"]),
    "Deployment": ("apps", ["spec", "template", "spec"]),
    "StatefulSet": ("apps", ["spec", "template", "spec"]),
    "DaemonSet": ("apps", ["spec", "template", "spec"]),
    "ReplicaSet": ("apps", ["spec", "template", "spec"]),
    "Job": ("batch", ["spec", "template", "spec"]),
    "CronJob": ("batch", ["spec", "jobTemplate", "spec", "template", "spec"]),
}


def _index_of(items, item):
    """The Kubernetes CEL list library's ``indexOf`` (k8s.io/apiserver/pkg/cel/library/lists.go)."""
    return celtypes.IntType(next((i for i, x in enumerate(items) if x == item), -1))


_ENV = celpy.Environment()


@functools.cache
def _program(expression: str):
    """``expression`` compiled once per process: compiling is most of what an evaluation costs
    cel-python, and a program keeps nothing between evaluations (each gets a new activation)."""
    return _ENV.program(_ENV.compile(expression), functions={"indexOf": _index_of})


def _run(expression: str, activation: dict):
    return _program(expression).evaluate(activation)


def evaluate(policy: dict, obj: dict, operation: str = "CREATE", old: dict | None = None) -> list[str]:
    """Messages of the validations that fail for ``obj`` (empty: admitted or not judged)."""
    group, _path = KINDS[obj["kind"]]
    request = {"operation": operation, "kind": {"group": group, "version": "v1", "kind": obj["kind"]}}
    activation = {
        "object": celpy.json_to_cel(obj),
        "oldObject": celpy.json_to_cel(old),
        "request": celpy.json_to_cel(request),
    }
    if not all(bool(_run(c["expression"], activation)) for c in policy["spec"].get("matchConditions", [])):
        return []
    variables = celtypes.MapType({})
    for var in policy["spec"]["variables"]:
        value = _run(var["expression"], {**activation, "variables": variables})
        variables = celtypes.MapType({**variables, celtypes.StringType(var["name"]): value})
    activation["variables"] = variables
    failed = []
    for rule in policy["spec"]["validations"]:
        if not bool(_run(rule["expression"], activation)):
            message = str(_run(rule["messageExpression"], activation)) if "messageExpression" in rule else ""
            failed.append(message or rule["message"])
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


def workload(kind: str, body: dict) -> dict:
    """``body``'s pod spec as the pod template of a ``kind``."""
    group, path = KINDS[kind]
    obj = {"apiVersion": f"{group}/v1" if group else "v1", "kind": kind, "metadata": {"name": "w"}}
    node = obj
    for key in path[:-1]:
        node = node.setdefault(key, {})
    node[path[-1]] = copy.deepcopy(body["spec"])
    return obj


NV_TOL = [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
AMD_TOL = [{"key": "amd.com/gpu", "operator": "Exists", "effect": "NoSchedule"}]
GPU1 = {"limits": {"nvidia.com/gpu": "1", "memory": "16Gi"}}


@pytest.fixture(scope="module")
def aks_policy(rendered):
    return find(load_objects(rendered / "aks-h100-training"), "ValidatingAdmissionPolicy", "gpu-pod-guardrails")[0]


@pytest.fixture(scope="module")
def eks_policy(rendered):
    return find(load_objects(rendered / "eks-mi300x-inference"), "ValidatingAdmissionPolicy", "gpu-pod-guardrails")[0]


# (pod, substring of the one expected failure message or None when admitted)
NVIDIA_CASES = {
    "limit-and-toleration": (pod(GPU1, NV_TOL), None),
    "cpu-only-pod-needs-nothing": (pod({"limits": {"cpu": "1"}}), None),
    "no-toleration": (pod(GPU1), "tolerate"),
    "no-memory-limit": (pod({"limits": {"nvidia.com/gpu": "1"}}, NV_TOL), "memory limit"),
    # h100 is tainted nvidia.com/gpu=present: an Equal toleration with that value is enough.
    "equal-toleration-matching-value": (
        pod(GPU1, [{"key": "nvidia.com/gpu", "operator": "Equal", "value": "present", "effect": "NoSchedule"}]),
        None,
    ),
    # EKS-style nvidia.com/gpu=true matches neither the h100 (present) nor the l40s (no value) taint.
    "equal-toleration-wrong-value": (
        pod(GPU1, [{"key": "nvidia.com/gpu", "value": "true", "effect": "NoSchedule"}]),
        "tolerate",
    ),
    "toleration-for-other-effect": (
        pod(GPU1, [{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}]),
        "tolerate",
    ),
    "wildcard-toleration": (pod(GPU1, [{"operator": "Exists"}]), None),
    "shared-gpu-needs-toleration": (pod({"limits": {"nvidia.com/gpu.shared": "1", "memory": "1Gi"}}), "tolerate"),
    "init-container-without-memory-limit": (
        pod({"limits": {"cpu": "1"}}, NV_TOL, init={"limits": {"nvidia.com/gpu": "1"}}),
        "memory limit",
    ),
}

EKS_CASES = {
    "mig-slice-good": (pod({"limits": {"nvidia.com/mig-1g.5gb": "1", "memory": "8Gi"}}, NV_TOL), None),
    "mig-slice-no-toleration": (pod({"limits": {"nvidia.com/mig-2g.10gb": "1", "memory": "8Gi"}}), "nvidia"),
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
    (binding,) = find(objects, "ValidatingAdmissionPolicyBinding", "gpu-pod-guardrails")
    (expr,) = binding["spec"]["matchResources"]["namespaceSelector"]["matchExpressions"]
    namespaces = {
        o["metadata"]["name"]
        for o in find(objects, "Namespace")
        if o["metadata"].get("labels", {}).get("gpu-gitops.io/workload-type")
    }
    assert set(expr["values"]) == namespaces
    assert binding["spec"]["validationActions"] == ["Deny"]


def test_pools_with_different_taints(project, run):
    """A GPU pod may go to any pool of its vendor: tolerating one pool's taints is enough."""
    from gpu_support import load_objects as load

    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    path.write_text(
        path.read_text(encoding="utf-8").replace(
            "{key: nvidia.com/gpu, value: present, effect: NoSchedule}", "{key: sku, value: gpu, effect: NoSchedule}"
        ),
        encoding="utf-8",
    )
    assert run(project, "render", "aks-h100-training").exit_code == 0
    (policy,) = find(
        load(project / "rendered" / "aks-h100-training"), "ValidatingAdmissionPolicy", "gpu-pod-guardrails"
    )
    sku = [{"key": "sku", "operator": "Equal", "value": "gpu", "effect": "NoSchedule"}]
    assert evaluate(policy, pod(GPU1, sku)) == []
    assert evaluate(policy, pod(GPU1, NV_TOL)) == []
    (message,) = evaluate(policy, pod(GPU1, [{"key": "sku", "operator": "Equal", "value": "cpu"}]))
    assert "{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}" in message
    assert "(or, for another pool: {key: sku, operator: Exists, effect: NoSchedule})" in message


def test_policy_matches_every_kind_with_a_pod_template(aks_policy):
    """Pods on CREATE; the workload kinds on CREATE and UPDATE, so `kubectl apply`, Flux and Argo CD
    see the denial instead of a controller's events."""
    matched = {
        (g, r, tuple(rule["operations"]))
        for rule in aks_policy["spec"]["matchConstraints"]["resourceRules"]
        for g in rule["apiGroups"]
        for r in rule["resources"]
    }
    both = ("CREATE", "UPDATE")
    assert matched == {
        ("", "pods", ("CREATE",)),
        ("", "replicationcontrollers", both),
        ("apps", "daemonsets", both),
        ("apps", "deployments", both),
        ("apps", "replicasets", both),
        ("apps", "statefulsets", both),
        ("batch", "cronjobs", both),
        ("batch", "jobs", both),
    }


# (pod spec, field path after the template's pod spec, substring of the one expected message)
TEMPLATE_CASES = {
    "no-toleration": (pod(GPU1), "tolerations", "tolerate"),
    "no-memory-limit": (
        pod({"limits": {"nvidia.com/gpu": "1"}}, NV_TOL),
        "containers[0].resources.limits.memory",
        "memory limit",
    ),
    "init-container-without-memory-limit": (
        pod({"limits": {"cpu": "1"}}, NV_TOL, init={"limits": {"nvidia.com/gpu": "1"}}),
        "initContainers[0].resources.limits.memory",
        "memory limit",
    ),
}


@pytest.mark.parametrize("kind", sorted(KINDS))
@pytest.mark.parametrize("case", sorted(TEMPLATE_CASES))
def test_every_kind_is_judged_with_the_field_path(aks_policy, kind, case):
    body, field, expected = TEMPLATE_CASES[case]
    obj = body if kind == "Pod" else workload(kind, body)
    (message,) = evaluate(aks_policy, obj)
    prefix = ".".join(KINDS[kind][1])
    assert message.startswith(f"{prefix}.{field}: ") and expected in message, message


@pytest.mark.parametrize("kind", sorted(k for k in KINDS if k != "Pod"))
def test_good_templates_are_admitted(aks_policy, kind):
    assert evaluate(aks_policy, workload(kind, pod(GPU1, NV_TOL))) == []
    assert evaluate(aks_policy, workload(kind, pod({"limits": {"cpu": "1"}}))) == []


def test_second_container_is_named_by_its_index(aks_policy):
    body = pod(GPU1, NV_TOL)
    body["spec"]["containers"].append(
        {"name": "sidecar", "image": "example/s:1", "resources": {"limits": {"nvidia.com/gpu": "1"}}}
    )
    (message,) = evaluate(aks_policy, workload("Deployment", body))
    assert message.startswith("spec.template.spec.containers[1].resources.limits.memory: "), message


def test_update_is_judged_only_when_the_pod_template_changes(aks_policy):
    """Scaling or relabelling a workload created before the policy (or removing its finalizer on
    delete) is not blocked; changing its template is judged."""
    bad = workload("Deployment", pod(GPU1))
    scaled = copy.deepcopy(bad)
    scaled["spec"]["replicas"] = 3
    scaled["metadata"]["finalizers"] = []
    assert evaluate(aks_policy, scaled, "UPDATE", old=bad) == []
    retagged = copy.deepcopy(bad)
    retagged["spec"]["template"]["spec"]["containers"][0]["image"] = "example/app:2"
    (message,) = evaluate(aks_policy, retagged, "UPDATE", old=bad)
    assert message.startswith("spec.template.spec.tolerations: "), message
    cron = workload("CronJob", pod(GPU1))
    suspended = copy.deepcopy(cron)
    suspended["spec"]["suspend"] = True
    assert evaluate(aks_policy, suspended, "UPDATE", old=cron) == []


def test_eks_amd_deployment_without_toleration(eks_policy):
    (message,) = evaluate(eks_policy, workload("StatefulSet", pod({"limits": {"amd.com/gpu": "1", "memory": "8Gi"}})))
    assert message.startswith("spec.template.spec.tolerations: ") and "amd" in message, message


def core_validation_accepts(spec: dict) -> bool:
    """The API server's own check of a pod spec's resources, before any admission webhook or
    policy (Pods and pod templates alike): an extended resource (a name with a domain outside
    kubernetes.io, e.g. nvidia.com/gpu) or huge pages may not be overcommitted, so a request
    needs a limit and must equal it (kubernetes/kubernetes pkg/apis/core/validation/validation.go
    ValidateResourceRequirements: "Limit must be set for non overcommitable resources", "must be
    equal to ... limit", v1.33)."""
    for c in spec["containers"] + spec.get("initContainers", []):
        requests = c.get("resources", {}).get("requests", {})
        limits = c.get("resources", {}).get("limits", {})
        for name, value in requests.items():
            fixed = ("/" in name and not name.split("/")[0].endswith("kubernetes.io")) or name.startswith("hugepages-")
            if fixed and limits.get(name) != value:
                return False
    return True


# Pods the policy might be asked to judge: good, bad for the policy, bad for the API server.
CANDIDATES = [body for body, _ in NVIDIA_CASES.values()] + [
    pod({"requests": {"nvidia.com/gpu": "1"}, "limits": {"memory": "1Gi"}}, NV_TOL),
    pod({"requests": {"nvidia.com/gpu": "1"}, "limits": {"nvidia.com/gpu": "2", "memory": "1Gi"}}, NV_TOL),
]


def test_every_validation_catches_what_the_api_server_lets_through(aks_policy):
    """A rule that only fails for pods the API server already refuses can never fire: the policy
    keeps only rules with a pod that passes core validation and fails the rule."""
    assert not core_validation_accepts(CANDIDATES[-1]["spec"]) and not core_validation_accepts(CANDIDATES[-2]["spec"])
    for rule in aks_policy["spec"]["validations"]:
        alone = copy.deepcopy(aks_policy)
        alone["spec"]["validations"] = [rule]
        witnesses = [p for p in CANDIDATES if core_validation_accepts(p["spec"]) and evaluate(alone, p)]
        assert witnesses, rule["message"]


def test_a_bare_gpu_pod_and_its_deployment_are_judged_alike(rendered, aks_policy):
    """The LimitRanger (mutating) runs before the policy (validating): a default memory limit
    would pass a bare Pod without one, while the same spec in a Deployment (not defaulted) is
    denied. The workload namespaces' LimitRange gives a memory request, but no memory limit."""
    objects = load_objects(rendered / "aks-h100-training")
    for limit_range in find(objects, "LimitRange"):
        (defaults,) = limit_range["spec"]["limits"]
        assert "memory" not in defaults.get("default", {}) and defaults["defaultRequest"]["memory"]
        bare = pod({"limits": {"nvidia.com/gpu": "1"}}, NV_TOL)
        for c in bare["spec"]["containers"]:  # what the LimitRanger fills in
            c["resources"]["limits"] = {**defaults.get("default", {}), **c["resources"]["limits"]}
            c["resources"]["requests"] = {**defaults["defaultRequest"], **c["resources"].get("requests", {})}
        (pod_message,) = evaluate(aks_policy, bare)
        (deployment_message,) = evaluate(
            aks_policy, workload("Deployment", pod({"limits": {"nvidia.com/gpu": "1"}}, NV_TOL))
        )
        assert "memory limit" in pod_message and "memory limit" in deployment_message


# Pods on DRA pools: a claim instead of an extended resource (onprem-gb200-dra, its b200 and
# gb200 pools tainted nvidia.com/gpu NoSchedule by the generic provider's convention).
def claim_pod(container_claims: list | None, limits: dict | None = None, tolerations: list | None = None) -> dict:
    container: dict = {"name": "main", "image": "example/app:1"}
    resources: dict = {}
    if container_claims is not None:
        resources["claims"] = [{"name": c} for c in container_claims]
    if limits is not None:
        resources["limits"] = limits
    if resources:
        container["resources"] = resources
    spec: dict = {
        "containers": [container],
        "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "b200-3g"}],
    }
    if tolerations is not None:
        spec["tolerations"] = tolerations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"}, "spec": spec}


def plain_pod() -> dict:
    return pod({"limits": {"cpu": "1", "memory": "1Gi"}})


DRA_CASES = {
    "claim-with-toleration-and-memory": (claim_pod(["gpu"], {"memory": "16Gi"}, NV_TOL), []),
    "claim-without-toleration": (claim_pod(["gpu"], {"memory": "16Gi"}), ["resourceClaims must tolerate"]),
    "claim-container-without-memory-limit": (claim_pod(["gpu"], None, NV_TOL), ["memory limit"]),
    # pod-level claims that no container names still land the pod on a DRA node
    "pod-claim-only-needs-toleration": (claim_pod(None, {"memory": "1Gi"}), ["resourceClaims must tolerate"]),
    "mixed-claim-and-extended-resource-without-toleration": (
        claim_pod(["gpu"], {"memory": "16Gi", "nvidia.com/gpu": "1"}),
        ["nvidia GPUs must tolerate", "resourceClaims must tolerate"],
    ),
    "mixed-with-toleration": (claim_pod(["gpu"], {"memory": "16Gi", "nvidia.com/gpu": "1"}, NV_TOL), []),
    "plain-pod": (plain_pod(), []),
}


@pytest.fixture(scope="module")
def dra_policy(rendered):
    return find(load_objects(rendered / "onprem-gb200-dra"), "ValidatingAdmissionPolicy", "gpu-pod-guardrails")[0]


@pytest.mark.parametrize("kind", ["Pod", "Deployment", "Job", "CronJob"])
@pytest.mark.parametrize("case", sorted(DRA_CASES))
def test_pods_with_resource_claims_are_gpu_pods(dra_policy, case, kind):
    body, expected = DRA_CASES[case]
    obj = body if kind == "Pod" else workload(kind, body)
    failed = evaluate(dra_policy, obj)
    assert len(failed) == len(expected), failed
    for needle in expected:
        assert any(needle in message for message in failed), failed


def test_claim_messages_name_the_field(dra_policy):
    failed = evaluate(dra_policy, workload("Deployment", claim_pod(["gpu"], None)))
    assert any(m.startswith("spec.template.spec.tolerations: ") for m in failed), failed
    assert any(m.startswith("spec.template.spec.containers[0].resources.limits.memory: ") for m in failed), failed


def test_claims_are_not_gpu_pods_without_dra_pools(aks_policy):
    """A cluster without DRA pools has no GPU claim to guard: a claim may be any other device."""
    assert evaluate(aks_policy, claim_pod(["gpu"], None)) == []
