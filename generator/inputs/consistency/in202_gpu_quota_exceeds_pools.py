"""A workload's ``quota.gpus`` larger than the GPUs its vendor's pools advertise.

Rationale: the quota is a promise to the namespace's team; a quota above what the node pools
can ever advertise (``perNode`` × ``nodes`` × the units each GPU is advertised as, the account
of ``gpu.advertisedPerNode`` in ``libsonnet/lib/gpu.libsonnet``) admits pods that stay Pending,
and usually means the pools' size in the input is stale. Time-sliced GPUs advertised under
their own name (``timeSlicing.renameByDefault``: ``nvidia.com/gpu.shared``) are not counted:
they are quota'd with ``quota.sharedGpus`` (IN203). Pools with ``allocation: dra`` publish
devices in ResourceSlices, not the extended resource, and are quota'd with ``quota.devices``.

Fix: lower ``quota.gpus``, or raise ``nodePools[].gpu.nodes`` / ``perNode`` to the pools' real
size.

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
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 16}}

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
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 24}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.advertised import SHARED_GPU, gpu_capacity
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN202", "gpu-quota-exceeds-pools", "error", "A workload's GPU quota is more than the pools have", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        gpus, vendor = workload["quota"].get("gpus"), workload.get("gpuVendor")
        if gpus is None or vendor is None:
            continue  # IN201's when a quota has no vendor
        capacity = gpu_capacity(spec, f"{vendor}.com/gpu")
        if gpus > capacity:
            shared = gpu_capacity(spec, SHARED_GPU) if vendor == "nvidia" else 0
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) quota asks for {gpus} {vendor} GPUs; "
                f"the node pools have {capacity}",
                ("workloads", i, "quota", "gpus"),
                f"the time-sliced pools with renameByDefault advertise {shared} {SHARED_GPU}, which quota.gpus "
                "does not count: quota them with quota.sharedGpus"
                if shared
                else "lower quota.gpus, or raise nodePools[].gpu.nodes / perNode to the pools' real size",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
