"""A flavor's ``borrowingLimit`` above what the other queues of its cohort can lend on that pool.

Rationale: a queue borrows only the unused quota of the other queues of its cohort on the
same flavor (up to their ``lendingLimit``): a borrowing limit above that is never reached, and
the queue's ceiling (what IN517 compares with the namespace's ResourceQuota) is not what it
seems.

Fix: lower ``borrowingLimit`` to what the cohort lends, or give another queue of the cohort quota
on the pool.

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
            - {pool: h100, quota: {gpus: 8}, borrowingLimit: {gpus: 8}}
      - namespace: research
        type: training
        quota: {gpus: 8}
        queue:
          cohort: gpu
          flavors:
            - {pool: h100, quota: {gpus: 8}}

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
            - {pool: h100, quota: {gpus: 7}, borrowingLimit: {gpus: 9}}
      - namespace: research
        type: training
        quota: {gpus: 8}
        queue:
          cohort: gpu
          flavors:
            - {pool: h100, quota: {gpus: 8}}
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
    "IN516", "queue-borrows-beyond-cohort", "error", "A queue may borrow more than its cohort lends", __doc__
)


def _lendable(workload: dict, pool: str) -> dict[str, int]:
    vendor = workload.get("gpuVendor")
    out: dict[str, int] = {}
    for flavor in workload["queue"].get("flavors") or []:
        if flavor["pool"] != pool:
            continue
        out = queues.resources(flavor["quota"], vendor)
        out.update(queues.resources(flavor.get("lendingLimit") or {}, vendor))
    return out


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in queued(spec):
        queue = workload["queue"]
        cohort = queue.get("cohort")
        if cohort is None or not queue.get("flavors"):
            continue
        others = [
            w
            for k, w in enumerate(spec["workloads"])
            if k != i and (w.get("queue") or {}).get("cohort") == cohort and w["queue"].get("flavors")
        ]
        vendor = workload.get("gpuVendor")
        for j, flavor in enumerate(queue["flavors"]):
            for name, count in queues.resources(flavor.get("borrowingLimit") or {}, vendor).items():
                lendable = sum(_lendable(w, flavor["pool"]).get(name, 0) for w in others)
                if count > lendable:
                    yield doc.error(
                        f"workloads[{i}].queue.flavors[{j}] may borrow {count} {name} on {flavor['pool']}; the "
                        f"other queues of cohort {cohort} lend {lendable} there",
                        ("workloads", i, "queue", "flavors", j, "borrowingLimit"),
                        f"lower borrowingLimit to {lendable}, or give another queue of the cohort quota on "
                        f"{flavor['pool']}",
                    )


CHECK = InputCheck(meta=META, check=check)
