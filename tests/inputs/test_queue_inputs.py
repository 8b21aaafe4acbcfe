"""Bad queue inputs (docs/queues.md) stop the render with exit 2, the input line and a hint; the
flavors a queue leaves to the pools are completed from the one pool that supplies its quota."""

from __future__ import annotations

import pytest
from test_gpu_consistency import edit, line_of, render_fails

from generator.inputs import queues

AKS, DRA = "aks-h100-training", "onprem-gb200-dra"
TRAINING_FLAVOR = (
    "- pool: h100\n          quota:\n            gpus: 24\n          borrowingLimit:\n            gpus: 8\n"
)
INFERENCE_L40S = "- {pool: l40s, quota: {gpus: 12}}"

CASES = {
    # id: (cluster, old, new, needle for the line, message, hint)
    "quota-no-pool-supplies": (
        AKS,
        INFERENCE_L40S,
        "- {pool: l40s, quota: {gpus: 40}}",
        "quota: {gpus: 40}",
        "quota.gpus is 40; pool l40s supplies 32 nvidia.com/gpu",
        "lower the nominal quota",
    ),
    "unknown-pool": (
        AKS,
        INFERENCE_L40S,
        "- {pool: a100, quota: {gpus: 16}}",
        "pool: a100",
        "names no node pool 'a100'",
        "name one of the GPU pools: h100, l40s",
    ),
    "pool-twice": (
        AKS,
        INFERENCE_L40S,
        "- {pool: h100, quota: {gpus: 1}}",
        "pool: h100, quota: {gpus: 1}",
        "names pool 'h100' again (first at flavors[0])",
        "give each pool once",
    ),
    "overlapping-flavors": (
        AKS,
        "nodeSelector: {agentpool: l40s}",
        "nodeSelector: {gpu: any}",
        "- {pool: l40s",
        "the flavors of pools h100 and l40s overlap: a node can match both pools' nodeSelectors",
        "tell their nodes apart",
    ),
    "borrowing-beyond-the-cohort": (
        AKS,
        TRAINING_FLAVOR,
        "- {pool: h100, quota: {gpus: 24}, borrowingLimit: {gpus: 9}}\n",
        "borrowingLimit: {gpus: 9}",
        "may borrow 9 nvidia.com/gpu on h100; the other queues of cohort gpu lend 8 there",
        "lower borrowingLimit to 8",
    ),
    "borrowing-without-cohort": (
        AKS,
        "    queue:\n      cohort: gpu\n      flavors:\n        " + TRAINING_FLAVOR,
        "    queue:\n      flavors:\n        " + TRAINING_FLAVOR,
        "          borrowingLimit:\n",
        "has a borrowingLimit but the queue is in no cohort",
        "set workloads[].queue.cohort",
    ),
    "lending-above-quota": (
        AKS,
        "- {pool: h100, quota: {gpus: 8}}",
        "- {pool: h100, quota: {gpus: 8}, lendingLimit: {gpus: 9}}",
        "lendingLimit: {gpus: 9}",
        "lends 9 nvidia.com/gpu, more than its quota of 8",
        "lower lendingLimit",
    ),
    "resourcequota-below-the-queue": (
        AKS,
        "quota: {gpus: 32, hugepages-2Mi: 8Gi, memory: 6Ti}",
        "quota: {gpus: 30, hugepages-2Mi: 8Gi, memory: 6Ti}",
        "      flavors:\n        - pool: h100",
        "queue can admit 32 nvidia.com/gpu (nominal quota plus borrowing limit); the namespace's ResourceQuota allows 30",
        "raise workloads[].quota",
    ),
    "ambiguous-default-flavors": (
        AKS,
        "      weight: 2\n      flavors:\n        - {pool: h100, quota: {gpus: 8}}\n        " + INFERENCE_L40S,
        "      weight: 2",
        "    queue:\n      cohort: gpu\n      weight: 2",
        "quota.gpus is supplied by several pools (h100, l40s)",
        "list workloads[].queue.flavors",
    ),
    "queue-without-accelerator-quota": (
        DRA,
        "    quota: {devices: {gpu.nvidia.com: 72}}\n",
        "    quota: {}\n",
        "    queue: {}",
        "has a queue but its quota names no GPUs, MIG slices or devices",
        "give workloads[].quota the GPUs",
    ),
    "webhook-unreachable-from-the-control-plane": (
        "eks-mi300x-inference",
        "    quota: {gpus: 8, pods: 64}\n",
        "    quota: {gpus: 8, pods: 64}\n    queue: {}\n",
        "    queue: {}",
        "Kueue's webhooks run in a pod the managed control plane cannot reach with Cilium's cluster-pool IPAM",
        "use Cilium's ENI IPAM",
    ),
    "topology-level-of-another-provider": (
        "eks-mi300x-inference",
        "    nodeSelector: {karpenter.sh/nodepool: h100}\n",
        "    nodeSelector: {karpenter.sh/nodepool: h100}\n    topologyLevels: [cloud.google.com/gce-topology-block]\n",
        "topologyLevels: [cloud",
        "cloud.google.com/gce-topology-block is unknown to provider eks, whose nodes carry "
        "topology.k8s.aws/network-node-layer-1",
        "or write [] for no topology",
    ),
    "clique-without-nvlink": (
        DRA,
        "    nodeSelector: {node.example.com/pool: b200}\n",
        "    nodeSelector: {node.example.com/pool: b200}\n    topologyLevels: [nvidia.com/gpu.clique]\n",
        "topologyLevels: [nvidia",
        "nvidia.com/gpu.clique is only set on multi-node NVLink nodes, and pool b200 has no gpu.multiNodeNVLink",
        "remove the level",
    ),
    "hostname-not-last": (
        DRA,
        "    nodeSelector: {node.example.com/pool: gb200}\n",
        "    nodeSelector: {node.example.com/pool: gb200}\n"
        "    topologyLevels: [kubernetes.io/hostname, nvidia.com/gpu.clique]\n",
        "topologyLevels: [kubernetes",
        "kubernetes.io/hostname must be the last level",
        "move kubernetes.io/hostname to the end",
    ),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_queue_input_is_a_located_error(project, run, case):
    cluster, old, new, needle, message, hint = CASES[case]
    text = edit(project, cluster, old, new)
    line = line_of(text, needle)
    render_fails(run, project, cluster, line, message, hint)


def test_flavors_of_two_queues_that_overlap_are_one_error(project, run):
    """Each queue on its own pool, but one node can match both pools: counted twice."""
    edit(project, AKS, "nodeSelector: {agentpool: l40s}", "nodeSelector: {gpu: any}")
    text = edit(project, AKS, "- {pool: h100, quota: {gpus: 8}}\n        " + INFERENCE_L40S, INFERENCE_L40S)
    text = edit(project, AKS, "borrowingLimit:\n            gpus: 8", "borrowingLimit:\n            gpus: 0")
    render_fails(
        run, project, AKS, line_of(text, "- {pool: l40s"), "the flavors of pools h100 and l40s overlap", "apart"
    )
    result = run(project, "render", AKS)
    assert result.stderr.count("overlap") == 1, result.stderr


def test_a_queue_without_flavors_takes_its_quota_on_the_one_pool_that_supplies_it():
    spec = {
        "nodePools": [
            {"name": "cpu"},
            {"name": "gb200", "gpu": {"vendor": "nvidia", "perNode": 4, "nodes": 18, "allocation": "dra", "mig": {}}},
        ],
    }
    workload = {"namespace": "t", "quota": {"devices": {"gpu.nvidia.com": 72}}, "queue": {}}
    assert queues.default_flavors(spec, workload) == [{"pool": "gb200", "quota": {"devices": {"gpu.nvidia.com": 72}}}]
    workload["quota"] = {"devices": {"mig.nvidia.com": 1}}
    assert queues.default_flavors(spec, workload) is None


def test_a_pool_without_topology_renders_a_flavor_without_one(project, run):
    edit(
        project,
        DRA,
        "    nodeSelector: {node.example.com/pool: gb200}\n",
        "    nodeSelector: {node.example.com/pool: gb200}\n    topologyLevels: []\n",
    )
    result = run(project, "render", DRA)
    assert result.exit_code == 0, result.output
    queues_dir = project / "rendered" / DRA / "20-workloads" / "queues"
    assert not (queues_dir / "topology_gb200.yaml").exists()
    assert "topologyName" not in (queues_dir / "resourceflavor_gb200.yaml").read_text(encoding="utf-8")


def test_topology_levels_come_from_the_provider_and_the_nvlink_domain():
    nvl = {"gpu": {"multiNodeNVLink": True}}
    assert queues.topology_levels(nvl, {"topologyLevels": []}) == [queues.CLIQUE, queues.HOSTNAME]
    assert queues.topology_levels({"gpu": {}}, {"topologyLevels": []}) == []
    eks = ["topology.k8s.aws/network-node-layer-1"]
    assert queues.topology_levels({"gpu": {}}, {"topologyLevels": eks}) == [*eks, queues.HOSTNAME]
