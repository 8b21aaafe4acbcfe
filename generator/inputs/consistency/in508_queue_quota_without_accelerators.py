"""A ``workloads[].queue`` without ``flavors`` whose namespace quota names no GPUs, MIG slices or
DRA devices.

Rationale: a queue without flavors takes its nominal quota from the namespace's quota, on the one
pool that supplies it (docs/queues.md): with no accelerator in the quota the ClusterQueue has
nothing to admit, and every job sent to its LocalQueue waits for ever.

Fix: give ``workloads[].quota`` the GPUs the namespace may use, or list the queue's ``flavors``
with their quota.

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
      - {namespace: training, type: training, quota: {gpus: 16}, queue: {}}

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
      - {namespace: training, type: training, queue: {}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN508",
    "queue-quota-without-accelerators",
    "error",
    "A queue without flavors whose quota names no accelerator",
    __doc__,
)


def queued(spec: dict) -> Iterator[tuple[int, dict]]:
    """(index, workload) per workload with a queue."""
    return ((i, w) for i, w in enumerate(spec["workloads"]) if "queue" in w)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in queued(spec):
        if not workload["queue"].get("flavors") and not queues.accelerator_quota(workload):
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) has a queue but its quota names no GPUs, MIG slices or "
                "devices: the queue would admit nothing",
                ("workloads", i, "queue"),
                "give workloads[].quota the GPUs the namespace may use, or list the queue's flavors with their quota",
            )


CHECK = InputCheck(meta=META, check=check)
