"""A ``workloads[].queue.flavors[].quota`` amount above what the flavor's pool supplies.

Rationale: Kueue accepts a nominal quota no node can supply, and then admits jobs whose pods
stay Pending: the quota it counts is not there. A pool supplies its nodes times what each
advertises (``gpu.perNode``, the MIG layout, the DRA devices).

Fix: lower the nominal quota to what the pool has, or move it to a pool that supplies it.

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
      - name: l40s
        nodeSelector: {agentpool: l40s}
        gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}
    workloads:
      - namespace: training
        type: training
        quota: {gpus: 24}
        queue:
          flavors:
            - {pool: h100, quota: {gpus: 24}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.consistency.in509_queue_quota_supplier_ambiguous import amount_paths, resource
from generator.inputs.consistency.in511_queue_flavor_pool_repeated import flavors
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN512",
    "queue-flavor-quota-exceeds-pool",
    "error",
    "A queue flavor's quota is more than its pool supplies",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in queued(spec):
        vendor = workload.get("gpuVendor")
        for j, flavor, pool in flavors(spec, workload):
            supplied = queues.supply(pool)
            nominal = flavor["quota"]
            for key_path, key in amount_paths(nominal):
                name = resource(key_path, nominal, vendor)
                count = queues.resources({key_path[0]: nominal[key_path[0]]}, vendor).get(name or "", 0)
                have = supplied.get(name or "", 0)
                if count > have:
                    yield doc.error(
                        f"workloads[{i}].queue.flavors[{j}] quota.{key} is {count}; pool {pool['name']} supplies {have}"
                        + (f" {name}" if name else ""),
                        ("workloads", i, "queue", "flavors", j, "quota", *key_path),
                        "lower the nominal quota to what the pool has, or move it to a pool that supplies it",
                        at_value=True,
                    )


CHECK = InputCheck(meta=META, check=check)
