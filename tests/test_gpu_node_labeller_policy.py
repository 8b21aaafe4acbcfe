"""The gpu-node-config ServiceAccount may patch Nodes: its ValidatingAdmissionPolicy, evaluated
with a CEL implementation, admits only changes to the two labels the labeller sets."""

from __future__ import annotations

import copy

import celpy
import pytest
from celpy import celtypes
from gpu_support import find, load_objects
from test_gpu_admission_cel import _run

LABELLER = "system:serviceaccount:gpu-operator:gpu-node-config"
NODE = {
    "apiVersion": "v1",
    "kind": "Node",
    "metadata": {
        "name": "aks-h100-0",
        "labels": {"agentpool": "h100", "kubernetes.io/os": "linux"},
        "annotations": {"node.alpha.kubernetes.io/ttl": "0"},
    },
    "spec": {
        "providerID": "azure:///x",
        "taints": [{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}],
    },
}


def evaluate(policy: dict, new: dict, old: dict, username: str = LABELLER) -> list[str]:
    """Messages of the failed validations (empty: admitted, or not judged by the match conditions)."""
    env = celpy.Environment()
    request = {
        "operation": "UPDATE",
        "kind": {"group": "", "version": "v1", "kind": "Node"},
        "userInfo": {"username": username, "groups": ["system:serviceaccounts"]},
    }
    activation = {
        "object": celpy.json_to_cel(new),
        "oldObject": celpy.json_to_cel(old),
        "request": celpy.json_to_cel(request),
    }
    if not all(bool(_run(env, c["expression"], activation)) for c in policy["spec"]["matchConditions"]):
        return []
    variables = celtypes.MapType({})
    for var in policy["spec"]["variables"]:
        value = _run(env, var["expression"], {**activation, "variables": variables})
        variables = celtypes.MapType({**variables, celtypes.StringType(var["name"]): value})
    activation["variables"] = variables
    return [v["message"] for v in policy["spec"]["validations"] if not bool(_run(env, v["expression"], activation))]


@pytest.fixture(scope="module")
def policy(rendered):
    (found,) = find(load_objects(rendered / "aks-h100-training"), "ValidatingAdmissionPolicy", "gpu-node-config")
    return found


def changed(edit) -> dict:
    node = copy.deepcopy(NODE)
    edit(node)
    return node


ADMITTED = {
    "sets-device-plugin-config": lambda n: n["metadata"]["labels"].update({"nvidia.com/device-plugin.config": "h100"}),
    "sets-both": lambda n: n["metadata"]["labels"].update(
        {"nvidia.com/device-plugin.config": "l40s", "nvidia.com/mig.config": "all-disabled"}
    ),
    "no-change": lambda n: None,
}
DENIED = {
    "removes-taint": (lambda n: n["spec"].pop("taints"), "spec"),
    "adds-taint": (lambda n: n["spec"]["taints"].append({"key": "x", "effect": "NoExecute"}), "spec"),
    "cordons": (lambda n: n["spec"].update({"unschedulable": True}), "spec"),
    "changes-other-label": (lambda n: n["metadata"]["labels"].update({"agentpool": "cpu"}), "labels"),
    "adds-other-label": (lambda n: n["metadata"]["labels"].update({"node-role.kubernetes.io/gpu": ""}), "labels"),
    "removes-other-label": (lambda n: n["metadata"]["labels"].pop("agentpool"), "labels"),
    "removes-every-label": (lambda n: n["metadata"].pop("labels"), "labels"),
    "changes-annotation": (lambda n: n["metadata"]["annotations"].update({"a": "b"}), "annotations"),
    "removes-annotations": (lambda n: n["metadata"].pop("annotations"), "annotations"),
}


@pytest.mark.parametrize("case", sorted(ADMITTED))
def test_the_two_labels_are_admitted(policy, case):
    assert evaluate(policy, changed(ADMITTED[case]), NODE) == []


@pytest.mark.parametrize("case", sorted(DENIED))
def test_any_other_change_is_denied(policy, case):
    edit, what = DENIED[case]
    (message,) = evaluate(policy, changed(edit), NODE)
    assert what in message and "gpu-node-config ServiceAccount" in message, message


def test_a_label_set_before_is_changed_or_removed(policy):
    old = changed(ADMITTED["sets-both"])
    assert (
        evaluate(policy, changed(lambda n: n["metadata"]["labels"].update({"nvidia.com/mig.config": "h100"})), old)
        == []
    )
    assert evaluate(policy, NODE, old) == []


def test_other_callers_are_not_judged(policy):
    assert evaluate(policy, changed(DENIED["removes-taint"][0]), NODE, "system:node:aks-h100-0") == []
    assert (
        evaluate(policy, changed(DENIED["removes-taint"][0]), NODE, "system:serviceaccount:gpu-operator:gpu-operator")
        == []
    )


def test_bound_cluster_wide_and_only_where_admission_is_served(rendered, project, run):
    objects = load_objects(rendered / "aks-h100-training")
    (binding,) = find(objects, "ValidatingAdmissionPolicyBinding", "gpu-node-config")
    assert binding["spec"] == {"policyName": "gpu-node-config", "validationActions": ["Deny"]}
    # the ServiceAccount the policy names is the one the DaemonSets run as
    (sa,) = find(objects, "ServiceAccount", "gpu-node-config")
    assert LABELLER == f"system:serviceaccount:{sa['metadata']['namespace']}:{sa['metadata']['name']}"
    path = project / "clusters" / "aks-h100-training" / "cluster.yaml"
    text = path.read_text(encoding="utf-8")
    assert "admission: {enforceGpuTolerations" in text
    path.write_text(
        text.replace("admission: {enforceGpuTolerations", "admission: {enabled: false, enforceGpuTolerations"),
        encoding="utf-8",
    )
    assert run(project, "render", "aks-h100-training").exit_code == 0
    objects = load_objects(project / "rendered" / "aks-h100-training")
    assert find(objects, "DaemonSet", "gpu-node-config-h100")
    assert not find(objects, "ValidatingAdmissionPolicy", "gpu-node-config")
