"""The startup taint of pools whose kubelet restarts for runtime huge pages (lib/tuning.libsonnet):
Karpenter NodePools start their nodes with it, the tuning DaemonSet and NFD's worker tolerate it,
the tuning script is told to remove it, and the tuning account's admission policy, evaluated
with a CEL implementation, lets it remove that taint from its own Node and change nothing else.
The script's side (removed only once allocatable shows the pages) is tested in
platform/test_tune_node_script.py."""

from __future__ import annotations

import copy

from gpu_support import find, load_objects
from test_gpu_node_labeller_policy import evaluate

TAINT = "gpu-gitops.io/node-tuning"
TUNER = "system:serviceaccount:gpu-node-tuning:kubelet-restart"
EKS = "eks-mi300x-inference"
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {"name": "aks-h100-0", "labels": {"agentpool": "h100"}},
    "spec": {
        "providerID": "azure:///x",
        "taints": [
            {"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"},
            {"key": TAINT, "value": "pending", "effect": "NoSchedule"},
        ],
    },
}


def _edit(project, cluster: str, old: str, new: str) -> None:
    path = project / "clusters" / cluster / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_karpenter_pools_start_tainted_and_the_tuning_removes_the_taint(rendered):
    objects = load_objects(rendered / EKS)  # tuning.restartKubelet from its base
    startup = {
        p["metadata"]["name"]: p["spec"]["template"]["spec"].get("startupTaints", []) for p in find(objects, "NodePool")
    }
    assert {"key": TAINT, "value": "pending", "effect": "NoSchedule"} in startup["h100"]  # 2Mi pages: a restart
    assert all(t["key"] != TAINT for name, taints in startup.items() if name != "h100" for t in taints)
    (ds,) = find(objects, "DaemonSet", "tune-h100")
    spec = ds["spec"]["template"]["spec"]
    assert {"key": TAINT, "operator": "Exists", "effect": "NoSchedule"} in spec["tolerations"]
    (tune,) = [c for c in spec["initContainers"] if c["name"] == "tune"]
    assert {"name": "STARTUP_TAINT", "value": TAINT} in tune["env"]
    (nfd,) = find(objects, "Application", "node-feature-discovery")
    values = nfd["spec"]["source"]["helm"]["valuesObject"]
    assert {"key": TAINT, "operator": "Exists", "effect": "NoSchedule"} in values["worker"]["tolerations"]


def test_without_a_kubelet_restart_no_pool_starts_tainted(project, run):
    _edit(project, EKS, "\nworkloads:\n", "\ntuning: {restartKubelet: false}\nworkloads:\n")
    assert run(project, "render", EKS).exit_code == 0
    objects = load_objects(project / "rendered" / EKS)
    assert all(
        t["key"] != TAINT
        for p in find(objects, "NodePool")
        for t in p["spec"]["template"]["spec"].get("startupTaints", [])
    )
    assert not [o for o in objects if o["metadata"]["name"] == "kubelet-restart-nodes"]


def _policy(rendered) -> dict:
    (policy,) = find(load_objects(rendered / "aks-h100-training"), "ValidatingAdmissionPolicy", "kubelet-restart-nodes")
    return policy


def _changed(edit) -> dict:
    new = copy.deepcopy(NODE)
    edit(new)
    return new


def test_the_tuning_account_may_remove_the_startup_taint_of_its_own_node(rendered):
    policy = _policy(rendered)
    untainted = _changed(lambda n: n["spec"]["taints"].pop())
    assert evaluate(policy, untainted, NODE, TUNER) == []
    assert evaluate(policy, NODE, NODE, TUNER) == []  # a no-op patch


def test_the_tuning_account_may_change_nothing_else(rendered):
    policy = _policy(rendered)
    denied = {
        "another taint removed": _changed(lambda n: n["spec"]["taints"].pop(0)),
        "a taint added": _changed(lambda n: n["spec"]["taints"].append({"key": "x", "effect": "NoExecute"})),
        "a label set": _changed(
            lambda n: n["metadata"]["labels"].update({"node-role.kubernetes.io/control-plane": ""})
        ),
        "cordoned": _changed(lambda n: n["spec"].update({"unschedulable": True})),
        "its provider id": _changed(lambda n: n["spec"].update({"providerID": "azure:///y"})),
    }
    for what, new in denied.items():
        assert evaluate(policy, new, NODE, TUNER), what
    other = {"authentication.kubernetes.io/node-name": ["aks-h100-1"]}
    untainted = _changed(lambda n: n["spec"]["taints"].pop())
    assert evaluate(policy, untainted, NODE, TUNER, extra=other)
    assert evaluate(policy, untainted, NODE, TUNER, extra=None)  # a token not bound to a pod
    assert evaluate(policy, untainted, NODE, "system:serviceaccount:x:y") == []  # not the tuning account
