"""The gpu-node-config ServiceAccount may patch Nodes: its ValidatingAdmissionPolicy, evaluated
with a CEL implementation, admits only changes to the two labels the labeller sets, on the Node
its own pod runs on; and the labeller re-asserts those labels."""

from __future__ import annotations

import copy
import re
import subprocess
from pathlib import Path

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


# A pod-bound token's claims (kubernetes pkg/serviceaccount/claims.go, v1.32): the pod's node.
OWN_NODE = {"authentication.kubernetes.io/node-name": ["aks-h100-0"]}


def evaluate(policy: dict, new: dict, old: dict, username: str = LABELLER, extra: dict | None = OWN_NODE) -> list[str]:
    """Messages of the failed validations (empty: admitted, or not judged by the match conditions).
    ``extra`` None: a token without extra claims, which the request then leaves out."""
    user = {"username": username, "groups": ["system:serviceaccounts"]}
    if extra is not None:
        user["extra"] = extra
    request = {"operation": "UPDATE", "kind": {"group": "", "version": "v1", "kind": "Node"}, "userInfo": user}
    activation = {
        "object": celpy.json_to_cel(new),
        "oldObject": celpy.json_to_cel(old),
        "request": celpy.json_to_cel(request),
    }
    if not all(bool(_run(c["expression"], activation)) for c in policy["spec"]["matchConditions"]):
        return []
    variables = celtypes.MapType({})
    for var in policy["spec"]["variables"]:
        value = _run(var["expression"], {**activation, "variables": variables})
        variables = celtypes.MapType({**variables, celtypes.StringType(var["name"]): value})
    activation["variables"] = variables
    return [v["message"] for v in policy["spec"]["validations"] if not bool(_run(v["expression"], activation))]


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
    # an owner that does not exist: the garbage collector deletes the Node
    "adds-owner": (
        lambda n: n["metadata"].update(
            {"ownerReferences": [{"apiVersion": "v1", "kind": "ConfigMap", "name": "x", "uid": "0000"}]}
        ),
        "ownerReferences",
    ),
    # a finalizer nobody removes: the Node's deletion (scale-down) hangs
    "adds-finalizer": (lambda n: n["metadata"].update({"finalizers": ["example.com/hold"]}), "finalizers"),
}


@pytest.mark.parametrize("case", sorted(ADMITTED))
def test_the_two_labels_are_admitted(policy, case):
    assert evaluate(policy, changed(ADMITTED[case]), NODE) == []


@pytest.mark.parametrize("case", sorted(DENIED))
def test_any_other_change_is_denied(policy, case):
    edit, what = DENIED[case]
    (message,) = evaluate(policy, changed(edit), NODE)
    assert what in message and "gpu-node-config ServiceAccount" in message, message


def test_an_owner_or_finalizer_already_there_is_kept_not_removed(policy):
    held = changed(lambda n: n["metadata"].update({"finalizers": ["a/b"], "ownerReferences": [{"uid": "1"}]}))
    labelled = copy.deepcopy(held)
    ADMITTED["sets-both"](labelled)
    assert evaluate(policy, labelled, held) == []
    for field in ("finalizers", "ownerReferences"):
        stripped = copy.deepcopy(labelled)
        stripped["metadata"].pop(field)
        (message,) = evaluate(policy, stripped, held)
        assert field in message


@pytest.mark.parametrize(
    "extra",
    [
        {"authentication.kubernetes.io/node-name": ["aks-h100-1"]},  # another node's pod
        {"authentication.kubernetes.io/pod-name": ["gpu-node-config-h100-x"]},  # no node claim
        {},
        None,  # a legacy Secret token: no extra at all
    ],
)
def test_only_the_callers_own_node(policy, extra):
    """The account's token from a pod on one node cannot relabel another (mig-manager would
    repartition it and evict its GPU jobs)."""
    (message,) = evaluate(policy, changed(ADMITTED["sets-both"]), NODE, extra=extra)
    assert "the Node its own pod runs on" in message


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
    text = text.replace("admission: {enforceGpuTolerations", "admission: {enabled: false, enforceGpuTolerations")
    # the fabric's Pod Security (baseline-ipc-lock) and its NCCL test are enforced by admission too
    text = text.replace("podSecurity: baseline-ipc-lock", "podSecurity: baseline")
    text = re.sub(r"(?m)^fabric: \{ncclTestNamespace: .*\}\n", "", text)
    path.write_text(text, encoding="utf-8")
    assert run(project, "render", "aks-h100-training").exit_code == 0
    objects = load_objects(project / "rendered" / "aks-h100-training")
    assert find(objects, "DaemonSet", "gpu-node-config-h100")
    assert not find(objects, "ValidatingAdmissionPolicy", "gpu-node-config")


def test_the_labels_are_reasserted(rendered, tmp_path: Path):
    """The labeller's long-running container labels its Node again and again (a stripped label or a
    re-registered Node is repaired), and exits when labelling fails, so the pod shows it."""
    (ds,) = find(load_objects(rendered / "aks-h100-training"), "DaemonSet", "gpu-node-config-h100")
    pod = ds["spec"]["template"]["spec"]
    (init,) = pod["initContainers"]
    (main,) = pod["containers"]
    assert init["command"] == main["command"] and init["args"][1:] == main["args"][1:]
    assert (init["args"][0], main["args"][0]) == ("once", "loop")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    calls = tmp_path / "calls"
    # The Node never keeps its labels (each pass labels it again); the third label is denied;
    # sleep returns at once.
    (bin_dir / "kubectl").write_text(
        f"""#!/bin/sh
echo "$*" >> {calls}
case "$*" in
  *" get node "*) echo 1 ;;
  *" label node "*) [ "$(grep -c ' label node ' {calls})" -lt 3 ] || {{ echo denied >&2; exit 1; }} ;;
esac
""",
        encoding="utf-8",
    )
    (bin_dir / "sleep").write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    for tool in bin_dir.iterdir():
        tool.chmod(0o755)
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "NODE_NAME": "aks-h100-0", "TMPDIR": str(tmp_path)}
    done = subprocess.run([*main["command"], *main["args"]], env=env, capture_output=True)
    assert done.returncode != 0
    labels = [c for c in calls.read_text(encoding="utf-8").splitlines() if " label node " in c]
    assert len(labels) == 3 and all(c.endswith(" ".join(main["args"][1:])) for c in labels)


AMD_LABELLER = "system:serviceaccount:kube-system:amdgpu-node-labeller"


def test_the_amd_labeller_may_change_only_its_own_nodes_amd_labels(rendered):
    """The ROCm node labeller is privileged with the host's /dev and /sys, and `update` on nodes
    would let its token rewrite any Node: the same own-node policy holds it to the amd.com/gpu.*
    and beta.amd.com/gpu.* labels it writes and removes (cmd/k8s-node-labeller)."""
    objects = load_objects(rendered / "eks-mi300x-inference")
    (amd,) = find(objects, "ValidatingAdmissionPolicy", "amdgpu-node-labeller")
    (binding,) = find(objects, "ValidatingAdmissionPolicyBinding", "amdgpu-node-labeller")
    assert binding["spec"] == {"policyName": "amdgpu-node-labeller", "validationActions": ["Deny"]}
    # upstream's verbs: the labeller writes with Update, never Patch
    (role,) = find(objects, "ClusterRole", "amdgpu-node-labeller")
    assert role["rules"] == [{"apiGroups": [""], "resources": ["nodes"], "verbs": ["get", "list", "watch", "update"]}]

    old = copy.deepcopy(NODE)
    old["metadata"]["labels"]["beta.amd.com/gpu.vram.16G"] = "1"
    new = copy.deepcopy(old)
    new["metadata"]["labels"]["amd.com/gpu.vram"] = "192G"
    new["metadata"]["labels"]["beta.amd.com/gpu.vram.192G"] = "1"
    del new["metadata"]["labels"]["beta.amd.com/gpu.vram.16G"]
    assert evaluate(amd, new, old, AMD_LABELLER) == []
    # another Node
    other = {"authentication.kubernetes.io/node-name": ["aks-h100-1"]}
    assert any("Node its own pod runs on" in m for m in evaluate(amd, new, old, AMD_LABELLER, other))
    # a label it does not own, a taint, an annotation
    for change in (
        lambda n: n["metadata"]["labels"].update({"node-role.kubernetes.io/control-plane": ""}),
        lambda n: n["metadata"]["labels"].update({"amd.com/gpu": "1"}),
        lambda n: n["spec"]["taints"].clear(),
        lambda n: n["metadata"]["annotations"].update({"x": "y"}),
    ):
        bad = copy.deepcopy(old)
        change(bad)
        assert evaluate(amd, bad, old, AMD_LABELLER), change
    # gpu-node-config's account is not judged by this policy
    assert evaluate(amd, new, old, LABELLER) == []
