"""A workload's ``quota.devices`` larger than the devices the DRA pools publish.

Rationale: the quota becomes a ResourceQuota on ``<deviceclass>.deviceclass.resource.k8s.io/devices``
(Kubernetes docs, "Resource quotas", DRA). The NVIDIA DRA driver's kubelet plugin publishes a
GPU whole when MIG is off and only its MIG devices when MIG is on (k8s-dra-driver-gpu,
cmd/gpu-kubelet-plugin/nvlib.go, static MIG): ``gpu.nvidia.com`` counts the GPUs of pools
without MIG, ``mig.nvidia.com`` the MIG devices of the others, at the pools' largest size. A
quota above that admits claims that are never allocated.

Fix: lower the quota, or raise the DRA pools' ``nodes`` / ``perNode``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - {namespace: training, type: training, quota: {devices: {gpu.nvidia.com: 16}}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - {namespace: training, type: training, quota: {devices: {gpu.nvidia.com: 32}}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import device_capacity
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN225",
    "device-quota-exceeds-pools",
    "error",
    "A workload's DRA device quota is more than the DRA pools publish",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    capacity = device_capacity(spec)
    for i, workload in enumerate(spec["workloads"]):
        for cls, count in workload["quota"].get("devices", {}).items():
            if count > capacity[cls]:
                yield doc.error(
                    f"workloads[{i}] ({workload['namespace']}) quota asks for {count} {cls} devices; "
                    f"the dra pools publish {capacity[cls]}",
                    ("workloads", i, "quota", "devices", cls),
                    "lower the quota, or raise the dra pools' nodes / perNode (gpu.nvidia.com counts the GPUs of "
                    "pools without MIG, mig.nvidia.com the MIG devices of the others)",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
