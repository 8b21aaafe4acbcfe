"""A ``workloads[].queue`` without ``flavors`` whose quota names a resource that no GPU pool, or
more than one, supplies.

Rationale: a Kueue ClusterQueue's nominal quota belongs to a ResourceFlavor, one per pool. Without
``flavors`` the queue's quota goes to the one pool that supplies it (docs/queues.md): with two
such pools it cannot tell which flavor the quota is on, and with none the quota can never be
admitted.

Fix: list ``workloads[].queue.flavors``, each pool with the quota the queue has on it; or add a
pool that advertises the resource, or remove it from the quota.

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
      - name: l40s
        nodeSelector: {agentpool: l40s}
        gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}
    workloads:
      - namespace: training
        type: training
        quota: {gpus: 16}
        queue:
          flavors:
            - {pool: h100, quota: {gpus: 12}}
            - {pool: l40s, quota: {gpus: 4}}

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
      - name: l40s
        nodeSelector: {agentpool: l40s}
        gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 16}, queue: {}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN509",
    "queue-quota-supplier-ambiguous",
    "error",
    "A queue without flavors whose quota no pool or several pools supply",
    __doc__,
)


def amount_paths(amounts: dict) -> Iterator[tuple[tuple, str]]:
    """(path inside a quota-shaped mapping, the key as written) per amount."""
    for key, value in amounts.items():
        if isinstance(value, dict):
            for sub in value:
                yield (key, sub), f"{key}.{sub}"
        else:
            yield (key,), key


def resource(key_path: tuple, amounts: dict, vendor: str | None) -> str | None:
    """The resource name the amount at ``key_path`` counts, None when it counts none."""
    node: object = amounts
    for part in key_path:
        node = node[part]  # type: ignore[index]
    shaped: dict = {key_path[0]: {key_path[1]: node}} if len(key_path) == 2 else {key_path[0]: node}
    names = list(queues.resources(shaped, vendor))
    return names[0] if names else None


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in queued(spec):
        if workload["queue"].get("flavors"):
            continue
        vendor = workload.get("gpuVendor")
        asked = queues.accelerator_quota(workload)
        for key_path, key in amount_paths(asked):
            name = resource(key_path, asked, vendor)
            pools = queues.suppliers(spec, name) if name else []
            if len(pools) != 1:
                yield doc.error(
                    f"workloads[{i}] ({workload['namespace']}) quota.{key} is supplied by "
                    + (f"several pools ({', '.join(pools)})" if pools else "no GPU pool")
                    + ": the queue cannot tell which flavor its nominal quota belongs to",
                    ("workloads", i, "queue"),
                    "list workloads[].queue.flavors: each pool with the quota the queue has on it"
                    if pools
                    else "add a pool that advertises it, or remove it from quota",
                )


CHECK = InputCheck(meta=META, check=check)
