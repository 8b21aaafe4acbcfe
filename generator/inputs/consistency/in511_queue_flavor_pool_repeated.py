"""A ``workloads[].queue.flavors`` that names a pool twice.

Rationale: a ClusterQueue lists each ResourceFlavor once: its CRD keys a resource group's
``flavors`` by name (a list map), so the API server refuses a flavor named twice and the
ClusterQueue would not apply. The queue's whole quota on a pool belongs in one flavor.

Fix: give each pool once, with the queue's whole quota on it.

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
            - {pool: h100, quota: {gpus: 8}}
            - {pool: h100, quota: {gpus: 8}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN511", "queue-flavor-pool-repeated", "error", "A queue names one pool in two flavors", __doc__)


def flavors(spec: dict, workload: dict) -> Iterator[tuple[int, dict, dict]]:
    """(index, flavor, pool) per flavor on a GPU pool the queue has not named before."""
    pools = {p["name"]: p for p in spec["nodePools"] if "gpu" in p}
    seen: set[str] = set()
    for j, flavor in enumerate(workload["queue"].get("flavors") or []):
        name = flavor["pool"]
        if name in pools and name not in seen:
            seen.add(name)
            yield j, flavor, pools[name]


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    gpu_pools = {p["name"] for p in spec["nodePools"] if "gpu" in p}
    for i, workload in queued(spec):
        seen: dict[str, int] = {}
        for j, flavor in enumerate(workload["queue"].get("flavors") or []):
            name = flavor["pool"]
            if name not in gpu_pools:
                continue  # IN510
            if name in seen:
                yield doc.error(
                    f"workloads[{i}].queue.flavors[{j}] names pool {name!r} again (first at flavors[{seen[name]}])",
                    ("workloads", i, "queue", "flavors", j, "pool"),
                    "give each pool once, with the queue's whole quota on it",
                    at_value=True,
                )
            else:
                seen[name] = j


CHECK = InputCheck(meta=META, check=check)
