"""A claim asks for devices a node of its pool never publishes.

Rationale: the NVIDIA DRA driver's kubelet plugin publishes a GPU whole when MIG is off and
only its MIG devices when MIG is on (k8s-dra-driver-gpu, cmd/gpu-kubelet-plugin/nvlib.go,
static MIG), and a claim's devices are all allocated on the pod's node. A claim for whole GPUs
on a MIG pool, for a profile the pool's layout lacks, or for more devices than one node has can
never be allocated.

Fix: claim a profile of the pool's layout (``mig``), remove ``mig`` to claim whole GPUs, or
lower ``count`` to what one node has.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - namespace: training
        type: training
        claims: [{name: gpus, pool: b200, count: 8}]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - namespace: training
        type: training
        claims: [{name: gpus, pool: b200, count: 16}]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import dra_mig_layout, dra_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN230", "claim-devices-not-published", "error", "A claim asks for devices its pool's nodes do not publish", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = dra_pools(spec)
    for i, workload in enumerate(spec["workloads"]):
        for j, claim in enumerate(workload["claims"]):
            pool = pools.get(claim["pool"])
            if pool is not None:
                yield from _devices(claim, pool, ("workloads", i, "claims", j), doc)


def _devices(claim: dict, pool: dict, where: tuple, doc: Located) -> Iterator[InputError]:
    gpu = pool["gpu"]
    profile = claim.get("mig")
    layout = dra_mig_layout(gpu)
    if profile is None and layout:
        yield doc.error(
            f"claim {claim['name']!r} asks for whole GPUs, but pool {pool['name']!r} runs MIG: the driver "
            "publishes only its MIG devices",
            where,
            f"add mig: one of {', '.join(sorted(layout))}",
        )
        return
    if profile is not None and profile not in layout:
        yield doc.error(
            f"claim {claim['name']!r} asks for MIG profile {profile}, which pool {pool['name']!r} does not have"
            + (" (MIG is off there)" if not layout else ""),
            where + ("mig",),
            f"use one of {', '.join(sorted(layout))}" if layout else "remove mig to claim whole GPUs",
            at_value=True,
        )
        return
    per_node = (layout[profile] if profile else 1) * gpu["perNode"]
    if claim["count"] > per_node:
        yield doc.error(
            f"claim {claim['name']!r} asks for {claim['count']} devices, but a node of pool {pool['name']!r} has "
            f"{per_node}: a claim's devices are allocated on the pod's node, so no pod could start",
            where + ("count",),
            f"lower count to {per_node} or fewer",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
