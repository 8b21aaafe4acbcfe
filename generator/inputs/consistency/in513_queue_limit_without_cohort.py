"""A ``borrowingLimit`` or ``lendingLimit`` on a flavor of a queue without ``cohort``.

Rationale: queues borrow and lend only inside a cohort. The ClusterQueue CRD refuses a
``borrowingLimit`` without a cohort ("borrowingLimit must be nil when cohort is empty"), and
Kueue's ClusterQueue webhook (``pkg/webhooks/clusterqueue_webhook.go``) a ``lendingLimit``
without one: the ClusterQueue would not apply.

Fix: set ``workloads[].queue.cohort``, or remove the limit.

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
          flavors:
            - {pool: h100, quota: {gpus: 16}, lendingLimit: {gpus: 8}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.consistency.in511_queue_flavor_pool_repeated import flavors
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN513",
    "queue-limit-without-cohort",
    "error",
    "A queue flavor borrows or lends, but the queue is in no cohort",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in queued(spec):
        if "cohort" in workload["queue"]:
            continue
        for j, flavor, _ in flavors(spec, workload):
            for limit in ("borrowingLimit", "lendingLimit"):
                if limit in flavor:
                    yield doc.error(
                        f"workloads[{i}].queue.flavors[{j}] has a {limit} but the queue is in no cohort",
                        ("workloads", i, "queue", "flavors", j, limit),
                        "set workloads[].queue.cohort, or remove the limit",
                    )


CHECK = InputCheck(meta=META, check=check)
