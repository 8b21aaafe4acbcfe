"""A queue whose nominal quota plus borrowing limit is above the namespace's ResourceQuota.

Rationale: the namespace's ResourceQuota (``workloads[].quota``) refuses the pods of a job
Kueue admitted beyond it: the Job controller retries, the job holds its quota and never starts
until ``waitForPodsReady`` evicts it.

Fix: raise ``workloads[].quota`` to the queue's nominal quota plus borrowing limit, or lower those.

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
        quota: {gpus: 12}
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
    "IN517",
    "queue-exceeds-resource-quota",
    "error",
    "A queue can admit more than the namespace's ResourceQuota allows",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in queued(spec):
        if not workload["queue"].get("flavors"):
            continue
        vendor = workload.get("gpuVendor")
        hard = queues.resources(queues.accelerator_quota(workload), vendor)
        for name, most in queues.ceiling(workload["queue"], vendor).items():
            if name in hard and most > hard[name]:
                yield doc.error(
                    f"workloads[{i}] ({workload['namespace']}) queue can admit {most} {name} (nominal quota plus "
                    f"borrowing limit); the namespace's ResourceQuota allows {hard[name]}: pods of admitted jobs "
                    "would be refused",
                    ("workloads", i, "queue", "flavors"),
                    "raise workloads[].quota to the queue's nominal quota plus borrowing limit, or lower those",
                )


CHECK = InputCheck(meta=META, check=check)
