"""A workload's ``quota.sharedGpus`` larger than what the renamed time-sliced pools advertise.

Rationale: NVIDIA's device plugin advertises a time-sliced GPU under ``nvidia.com/gpu.shared``
when its sharing config sets ``renameByDefault: true`` (k8s-device-plugin, "Shared Access to
GPUs"), ``replicas`` units per GPU. ``quota.sharedGpus`` quotas that resource; a quota above
what the pools advertise admits pods that stay Pending, and one without any such pool quotas a
resource no node has.

Fix: lower ``quota.sharedGpus``, or raise the time-sliced pools' ``nodes``, ``perNode`` or
``replicas``; quota other GPUs with ``quota.gpus``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: l4
        nodeSelector: {agentpool: l4}
        gpu:
          vendor: nvidia
          model: L4
          perNode: 2
          nodes: 2
          timeSlicing: {replicas: 4, renameByDefault: true}
    workloads:
      - {namespace: notebooks, type: training, quota: {sharedGpus: 16}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: l4
        nodeSelector: {agentpool: l4}
        gpu:
          vendor: nvidia
          model: L4
          perNode: 2
          nodes: 2
          timeSlicing: {replicas: 4, renameByDefault: true}
    workloads:
      - {namespace: notebooks, type: training, quota: {sharedGpus: 32}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import SHARED_GPU, gpu_capacity
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN203",
    "shared-gpu-quota-exceeds-pools",
    "error",
    "A workload's quota.sharedGpus is more than the time-sliced pools advertise",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        shared = workload["quota"].get("sharedGpus")
        if shared is None:
            continue
        capacity = gpu_capacity(spec, SHARED_GPU)
        if shared > capacity:
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) quota asks for {shared} {SHARED_GPU}; "
                f"the node pools advertise {capacity}",
                ("workloads", i, "quota", "sharedGpus"),
                "lower quota.sharedGpus, or raise the time-sliced pools' nodes / perNode / replicas"
                if capacity
                else f"only NVIDIA pools with timeSlicing.renameByDefault: true advertise {SHARED_GPU}; "
                "quota other GPUs with quota.gpus",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
