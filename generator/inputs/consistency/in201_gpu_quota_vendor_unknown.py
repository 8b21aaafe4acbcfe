"""A workload with a GPU quota whose vendor cannot be told.

Rationale: ``quota.gpus`` becomes a ResourceQuota on ``requests.<vendor>.com/gpu``, the
extended resource the vendor's device plugin advertises (``nvidia.com/gpu``, ``amd.com/gpu``).
``gpuVendor`` defaults to the vendor of the cluster's GPU pools; without GPU pools there is no
vendor to quota, and with pools of both vendors the default would be a guess.

Fix: add a GPU node pool, or set ``workloads[].gpuVendor`` to ``nvidia`` or ``amd``.

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
      - {namespace: training, type: training, quota: {gpus: 8}}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - {namespace: training, type: training, quota: {gpus: 8}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.conventions import gpu_vendors
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN201",
    "gpu-quota-vendor-unknown",
    "error",
    "A workload's GPU quota names no vendor the pools have, or cannot tell which",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    vendors = gpu_vendors(spec)
    for i, workload in enumerate(spec["workloads"]):
        if workload["quota"].get("gpus") is None or workload.get("gpuVendor") is not None:
            continue
        yield doc.error(
            f"workloads[{i}] asks for a GPU quota but the cluster has "
            + ("no GPU node pools" if not vendors else f"GPUs of several vendors ({', '.join(vendors)})"),
            ("workloads", i, "quota", "gpus"),
            "add a GPU node pool" if not vendors else "set workloads[].gpuVendor to nvidia or amd",
        )


CHECK = InputCheck(meta=META, check=check)
