"""Every DaemonSet meant for a node pool tolerates exactly that pool's taints and selects its nodes.

A DaemonSet names its pool with the `gpu-gitops.io/node-pool` label. Its nodeSelector must
contain the pool's own labels (so it lands on no other pool) and may add only the NFD labels
that prove the hardware it needs; its tolerations are the pool's taints, with operator
Exists, and nothing else (an extra toleration would let it onto other pools' nodes, a missing
one leaves it at zero pods), but for the node tuning's own startup taint, which only nodes of a
pool whose tuning restarts the kubelet carry and only the tuning may run under.
"""

from __future__ import annotations

import pytest
from clusterinput import BASE, objects, replace, spec, write
from conftest import EXAMPLES, REPO

POOL_LABEL = "gpu-gitops.io/node-pool"
NFD_PREFIX = "feature.node.kubernetes.io/"
POOL_COMPONENTS = ("node-tuning", "local-storage")
STARTUP_TAINT = ("gpu-gitops.io/node-tuning", "NoSchedule")  # libsonnet/lib/tuning.libsonnet


def pool_daemonsets(rendered: dict[str, list[dict]]) -> list[dict]:
    return [
        o
        for objs in rendered.values()
        for o in objs
        if o["kind"] == "DaemonSet" and POOL_LABEL in o["metadata"].get("labels", {})
    ]


def assert_bound_to_pool(ds: dict, pool: dict) -> None:
    pod = ds["spec"]["template"]["spec"]
    name = ds["metadata"]["name"]
    tolerations = pod.get("tolerations", [])
    assert all(t["operator"] == "Exists" for t in tolerations), name
    tolerated = sorted((t["key"], t["effect"]) for t in tolerations)
    if name.startswith("tune-") and STARTUP_TAINT in tolerated:
        tolerated.remove(STARTUP_TAINT)
    assert tolerated == sorted((t["key"], t["effect"]) for t in pool["taints"]), name
    selector = pod["nodeSelector"]
    assert pool["nodeSelector"].items() <= selector.items(), name
    extra = set(selector) - set(pool["nodeSelector"])
    assert all(key.startswith(NFD_PREFIX) for key in extra), (name, extra)
    assert ds["spec"]["template"]["metadata"]["labels"][POOL_LABEL] == pool["name"]


def check_cluster(root, name) -> int:
    pools = {p["name"]: p for p in spec(root, name)["nodePools"]}
    rendered = objects(root, name)
    daemonsets = pool_daemonsets(rendered)
    for ds in daemonsets:
        assert_bound_to_pool(ds, pools[ds["metadata"]["labels"][POOL_LABEL]])
    # every DaemonSet of this area is pool-bound: none escapes the check by lacking the label
    for component in POOL_COMPONENTS:
        for o in rendered[component]:
            if o["kind"] == "DaemonSet":
                assert POOL_LABEL in o["metadata"]["labels"], o["metadata"]["name"]
    return len(daemonsets)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_pool_daemonsets_tolerate_and_select_exactly_their_pool(name):
    check_cluster(REPO, name)


def test_examples_have_pool_daemonsets_on_tainted_pools():
    tainted = 0
    for name in EXAMPLES:
        pools = {p["name"]: p for p in spec(REPO, name)["nodePools"]}
        tainted += sum(
            1 for ds in pool_daemonsets(objects(REPO, name)) if pools[ds["metadata"]["labels"][POOL_LABEL]]["taints"]
        )
    assert tainted >= 3


def test_custom_taints_with_values_are_tolerated_by_key_and_effect(project):
    text = replace(
        "    gpu: {vendor: nvidia, model: H100-80GB, perNode: 8}\n",
        "    gpu: {vendor: nvidia, model: H100-80GB, perNode: 8}\n"
        "    taints:\n"
        '      - {key: nvidia.com/gpu, value: "true", effect: NoSchedule}\n'
        "      - {key: dedicated, value: training, effect: NoExecute}\n",
        BASE + "  - name: cpu\n    nodeSelector: {agentpool: cpu}\n"
        "    taints: [{key: cpu-only, effect: NoSchedule}]\n    sysctls: {fs.file-max: 1048576}\n",
    )
    write(project, text)
    assert check_cluster(project, "t") == 4  # tune-gpu, tune-cpu, local-provisioner-gpu, prepare-disks-gpu


def test_without_nfd_daemonsets_select_on_pool_labels_only(project):
    write(project, BASE + "nodeFeatureDiscovery: {enabled: false}\n")
    pools = {p["name"]: p for p in spec(project, "t")["nodePools"]}
    for ds in pool_daemonsets(objects(project, "t")):
        pool = pools[ds["metadata"]["labels"][POOL_LABEL]]
        assert ds["spec"]["template"]["spec"]["nodeSelector"] == pool["nodeSelector"]
