"""A claim that names a pool which is not an NVIDIA pool with ``allocation: dra``.

Rationale: a claim's devices are selected from the ResourceSlices its pool's nodes publish;
only pools with ``allocation: dra`` run the NVIDIA DRA driver's kubelet plugin that publishes
them (k8s-dra-driver-gpu), so a claim on any other pool is never allocated and its pods stay
Pending. The claim checks IN230 and IN231 judge only claims on DRA pools.

Fix: name a DRA pool, or set ``allocation: dra`` on an NVIDIA pool.

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
        claims: [{name: gpus, pool: b200}]

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
        claims: [{name: gpus, pool: h100}]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import dra_pools
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN229", "claim-pool-not-dra", "error", "A claim names a pool that is not an NVIDIA DRA pool", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = dra_pools(spec)
    for i, workload in enumerate(spec["workloads"]):
        for j, claim in enumerate(workload["claims"]):
            if claim["pool"] not in pools:
                yield doc.error(
                    f"claim {claim['name']!r} names pool {claim['pool']!r}, which is not an NVIDIA pool with "
                    "allocation: dra",
                    ("workloads", i, "claims", j, "pool"),
                    f"dra pools: {', '.join(sorted(pools))}" if pools else "set allocation: dra on an NVIDIA pool",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
