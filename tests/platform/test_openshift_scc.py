"""What OpenShift's SecurityContextConstraints and then the kubelet do with each container of the
per-node DaemonSets: every pod is admitted by an SCC its account may use, and no container is
refused by the kubelet.

The model follows the SCC admission plugin: the SCCs the pod's ServiceAccount may use are tried
from the most restrictive (restricted-v2, allowed to every authenticated user) to the least
(`privileged`, through a RoleBinding to system:openshift:scc:privileged); the first that admits
the pod is applied. restricted-v2 is runAsUser MustRunAsRange (assigns the namespace's first UID
to a container without one and refuses a fixed UID outside the range), no privileged containers,
no added capability but NET_BIND_SERVICE, no hostPath, no host network or PID; `privileged` is RunAsAny (assigns no UID)
and admits all (docs.openshift.com/container-platform/4.16 authentication/
managing-security-context-constraints). The kubelet then refuses a runAsNonRoot container whose
effective UID is 0 (kubernetes pkg/kubelet/kuberuntime/security_context_others.go, v1.30).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import REPO

from generator.inputs.load import load_cluster
from generator.paths import Project
from generator.render import evaluation

# The namespace range restricted-v2 assigns from (openshift.io/sa.scc.uid-range, e.g. 1000650000/10000).
RANGE = range(1000650000, 1000660000)
# The USER of each image the DaemonSets run (their Dockerfiles): kubectl and CUDA run as root;
# pause as 65535 (kubernetes/kubernetes build/pause/Dockerfile: USER 65535:65535).
IMAGE_USER = {"registry.k8s.io/kubectl": 0, "nvcr.io/nvidia/cuda": 0, "registry.k8s.io/pause": 65535}


def image_user(image: str) -> int:
    (uid,) = [u for prefix, u in IMAGE_USER.items() if image.startswith(prefix)]
    return uid


def restricted_v2_admits(pod: dict) -> bool:
    if any(v.get("hostPath") for v in pod.get("volumes", [])) or pod.get("hostNetwork") or pod.get("hostPID"):
        return False
    for c in pod.get("initContainers", []) + pod["containers"]:
        sc = c.get("securityContext", {})
        if sc.get("privileged") or set(sc.get("capabilities", {}).get("add", [])) - {"NET_BIND_SERVICE"}:
            return False
        uid = sc.get("runAsUser", pod.get("securityContext", {}).get("runAsUser"))
        if uid is not None and uid not in RANGE:
            return False
    return True


def admitting_scc(pod: dict, sccs: set[str]) -> str:
    if restricted_v2_admits(pod):
        return "restricted-v2"
    assert "privileged" in sccs, "no SCC the account may use admits the pod"
    return "privileged"


def kubelet_refusals(pod: dict, scc: str) -> list[str]:
    refused = []
    for c in pod.get("initContainers", []) + pod["containers"]:
        sc = {**pod.get("securityContext", {}), **c.get("securityContext", {})}
        if not sc.get("runAsNonRoot"):
            continue  # the kubelet checks the user only for runAsNonRoot containers
        uid = sc.get("runAsUser", RANGE.start if scc == "restricted-v2" else image_user(c["image"]))
        if uid == 0:
            refused.append(c["name"])
    return refused


def sccs_of(rendered: list[dict], namespace: str, account: str) -> set[str]:
    granted = {"restricted-v2"}
    for o in rendered:
        if o["kind"] == "RoleBinding" and o["metadata"]["namespace"] == namespace:
            if {"kind": "ServiceAccount", "name": account, "namespace": namespace} in o["subjects"]:
                granted.add(o["roleRef"]["name"].removeprefix("system:openshift:scc:"))
    return granted


def render_variant(root: Path, edits: list[tuple[str, str]]) -> list[dict]:
    """ocp-a100-tuned with ``edits`` applied, evaluated in process: every object."""
    text = (REPO / "clusters" / "ocp-a100-tuned" / "cluster.yaml").read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    (root / "clusters" / "ocp").mkdir(parents=True)
    (root / "clusters" / "ocp" / "cluster.yaml").write_text(
        text.replace("name: ocp-a100-tuned", "name: ocp", 1), encoding="utf-8"
    )
    for name in ("libsonnet", "schemas"):
        (root / name).symlink_to(REPO / name)
    project = Project(root)
    rendered = evaluation.evaluate(project, load_cluster(project, "ocp"))
    return [o for component in rendered.values() for o in component]


L40S = (
    "  - name: l40s\n"
    '    nodeSelector: {node-role.kubernetes.io/worker-l40s: ""}\n'
    "    gpu: {vendor: nvidia, model: L40S, perNode: 4}\n"
)
VARIANTS = {
    # a whole-GPU pool beside the MIG pool: the validation pods under each SCC
    "mig-and-whole-gpus": [("tuning:\n", L40S + "tuning:\n")],
    # local NVMe with disk preparation, and node tuning by DaemonSets (2Mi pages at runtime)
    "local-nvme-and-tuning-daemonsets": [
        (
            "    hugepages: {2Mi: 1024, 1Gi: 32}\n",
            "    hugepages: {2Mi: 1024}\n    localNvme: {diskIdPattern: nvme-X_*, mode: Filesystem,"
            " storageClass: local-nvme, prepare: {enabled: true}}\n",
        ),
        ("  backend: tuned\n", "  backend: daemonset\n"),
        ("  machineConfigPools: [worker-gpu]\n", ""),
        (", hugepages-1Gi: 32Gi", ""),
    ],
}


@pytest.fixture(scope="module", params=sorted(VARIANTS))
def variant(request, tmp_path_factory) -> tuple[str, list[dict]]:
    return request.param, render_variant(tmp_path_factory.mktemp("ocp"), VARIANTS[request.param])


def test_every_container_starts_under_the_scc_that_admits_its_pod(variant):
    name, objects = variant
    seen = {}
    for ds in [o for o in objects if o["kind"] == "DaemonSet"]:
        pod = ds["spec"]["template"]["spec"]
        account = pod.get("serviceAccountName", "default")
        scc = admitting_scc(pod, sccs_of(objects, ds["metadata"]["namespace"], account))
        seen[ds["metadata"]["name"]] = scc
        assert kubelet_refusals(pod, scc) == [], (ds["metadata"]["name"], scc)
    # both SCCs are exercised: the MIG check and the node agents (disk preparation, volume
    # provisioner, tuning: privileged with host paths) under privileged, the rest under restricted-v2
    assert set(seen.values()) == {"restricted-v2", "privileged"}
    if name == "local-nvme-and-tuning-daemonsets":
        assert {seen[d] for d in ("prepare-disks-a100", "local-provisioner-a100", "tune-a100")} == {"privileged"}


def test_the_mig_check_pod_names_a_non_root_uid_for_its_non_root_containers(tmp_path):
    objects = render_variant(tmp_path, VARIANTS["mig-and-whole-gpus"])
    (ds,) = [o for o in objects if o["kind"] == "DaemonSet" and o["metadata"]["name"] == "gpu-validation-a100"]
    pod = ds["spec"]["template"]["spec"]
    assert admitting_scc(pod, {"restricted-v2", "privileged"}) == "privileged"
    users = {c["name"]: c["securityContext"].get("runAsUser") for c in pod["initContainers"] + pod["containers"]}
    assert users == {"validate": None, "advertised": 65534, "validated": 65534}


def test_no_default_service_account_gets_the_privileged_scc(variant):
    """A namespace's `default` account is every pod's that names none: granting it the privileged
    SCC would admit any such pod there as privileged. The node agents run as accounts of their
    own (disk preparation, tuning, the provisioner, the kubelet restart)."""
    _name, objects = variant
    for binding in [o for o in objects if o["kind"] in ("RoleBinding", "ClusterRoleBinding")]:
        if binding["roleRef"]["name"] == "system:openshift:scc:privileged":
            assert "default" not in {s["name"] for s in binding["subjects"]}, binding["metadata"]
    for ds in [o for o in objects if o["kind"] == "DaemonSet"]:
        pod = ds["spec"]["template"]["spec"]
        if any(
            c.get("securityContext", {}).get("privileged") for c in pod.get("initContainers", []) + pod["containers"]
        ):
            assert pod.get("serviceAccountName", "default") != "default", ds["metadata"]["name"]
