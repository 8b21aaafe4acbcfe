"""A ``workloads[].queue.flavors[].pool`` that is not one of the cluster's GPU pools.

Rationale: each flavor renders a Kueue ResourceFlavor whose ``nodeLabels`` are the pool's
``nodeSelector``: a flavor of no pool has no nodes to select, and a CPU pool supplies no GPUs,
so the queue's quota on it is never admitted.

Fix: name one of the GPU pools (``nodePools[].name`` of a pool with ``gpu``).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
    workloads:
      - namespace: training
        type: training
        quota: {gpus: 16}
        queue:
          flavors:
            - {pool: h100, quota: {gpus: 16}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
    workloads:
      - namespace: training
        type: training
        quota: {gpus: 16}
        queue:
          flavors:
            - {pool: a100, quota: {gpus: 16}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN510", "queue-flavor-pool-unknown", "error", "A queue flavor names no GPU pool", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = {p["name"]: p for p in spec["nodePools"]}
    for i, workload in queued(spec):
        for j, flavor in enumerate(workload["queue"].get("flavors") or []):
            name = flavor["pool"]
            pool = pools.get(name)
            if pool is None or "gpu" not in pool:
                yield doc.error(
                    f"workloads[{i}].queue.flavors[{j}] names {'a CPU pool' if pool else 'no node pool'} {name!r}",
                    ("workloads", i, "queue", "flavors", j, "pool"),
                    "name one of the GPU pools: " + ", ".join(p for p in pools if "gpu" in pools[p]),
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
