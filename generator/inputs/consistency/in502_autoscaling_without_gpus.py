"""A workload autoscales on DCGM GPU metrics, but no NVIDIA GPU of it reports any.

Rationale: the ScaledObjects query DCGM exporter series (``DCGM_FI_*``) for the namespace's
pods; DCGM exports NVIDIA GPUs only (NVIDIA/dcgm-exporter). Without the exporter, without an
NVIDIA ``gpuVendor``, without NVIDIA pools or with a quota of no GPUs there is no series to
read, and every ScaledObject stays on its fallback. The autoscaling checks that follow (IN503
to IN507) are not run for such a namespace.

Fix: enable ``monitoring.dcgmExporter``, set ``gpuVendor: nvidia``, add an NVIDIA GPU pool or a
GPU quota, or remove the autoscaling entries.

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
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4}

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
    monitoring: {dcgmExporter: false}
    workloads:
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN502",
    "autoscaling-without-gpus",
    "error",
    "A namespace autoscales on DCGM metrics but has no NVIDIA GPUs to read",
    __doc__,
)


def no_gpus(spec: dict, workload: dict) -> tuple[str, str] | None:
    """Why the namespace has no NVIDIA GPUs to read DCGM metrics from, with a hint; or None."""
    if not spec["monitoring"]["dcgmExporter"]:
        return "monitoring.dcgmExporter is false", "enable monitoring.dcgmExporter or remove the autoscaling entries"
    vendor = workload.get("gpuVendor")
    if vendor is None:
        return "it has no gpuVendor", "set gpuVendor: nvidia (DCGM exports NVIDIA GPUs only)"
    if vendor != "nvidia":
        return (
            f"its GPUs are {vendor}",
            "DCGM exports NVIDIA GPUs only: autoscale a namespace with gpuVendor: "
            "nvidia, or remove the autoscaling entries",
        )
    if not any(p.get("gpu", {}).get("vendor") == "nvidia" for p in spec["nodePools"]):
        return "the cluster has no NVIDIA node pools", "add an NVIDIA GPU pool or remove the autoscaling entries"
    quota = workload["quota"]
    if quota.get("gpus") == 0 and not any(quota.get("mig", {}).values()):
        return "its quota allows no GPUs", "raise quota.gpus (or quota.mig) above 0"
    return None


def autoscaled(spec: dict) -> Iterator[tuple[int, dict]]:
    """``(index, workload)`` of the workloads with autoscaling entries and GPUs to read metrics of."""
    for i, workload in enumerate(spec["workloads"]):
        if workload["autoscaling"] and no_gpus(spec, workload) is None:
            yield i, workload


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        problem = no_gpus(spec, workload) if workload["autoscaling"] else None
        if problem:
            yield doc.error(
                f"workloads[{i}] ({workload['namespace']}) autoscales on DCGM GPU metrics but {problem[0]}",
                ("workloads", i, "autoscaling"),
                problem[1],
            )


CHECK = InputCheck(meta=META, check=check)
