"""A ``lendingLimit`` above the flavor's nominal quota.

Rationale: a queue can lend only what it has, and Kueue's ClusterQueue webhook
(``pkg/webhooks/clusterqueue_webhook.go``) refuses a ``lendingLimit`` above ``nominalQuota``
("must be less than or equal to the nominalQuota"): the ClusterQueue would not apply.

Fix: lower ``lendingLimit`` to at most the flavor's quota.

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
          cohort: gpu
          flavors:
            - {pool: h100, quota: {gpus: 16}, lendingLimit: {gpus: 8}}

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
          cohort: gpu
          flavors:
            - {pool: h100, quota: {gpus: 16}, lendingLimit: {gpus: 17}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.consistency.in511_queue_flavor_pool_repeated import flavors
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN514", "queue-lends-above-quota", "error", "A queue flavor lends more than its quota", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in queued(spec):
        vendor = workload.get("gpuVendor")
        for j, flavor, _ in flavors(spec, workload):
            mine = queues.resources(flavor["quota"], vendor)
            for name, count in queues.resources(flavor.get("lendingLimit") or {}, vendor).items():
                if count > mine.get(name, 0):
                    yield doc.error(
                        f"workloads[{i}].queue.flavors[{j}] lends {count} {name}, more than its quota of "
                        f"{mine.get(name, 0)} (Kueue refuses a lendingLimit above nominalQuota)",
                        ("workloads", i, "queue", "flavors", j, "lendingLimit"),
                        "lower lendingLimit to at most quota",
                    )


CHECK = InputCheck(meta=META, check=check)
