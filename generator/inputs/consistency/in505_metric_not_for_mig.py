"""Autoscaling on ``DCGM_FI_DEV_GPU_UTIL`` or ``DCGM_FI_DEV_MEM_COPY_UTIL`` where every NVIDIA pool uses MIG.

Rationale: DCGM reports device-level utilisation for whole GPUs only; MIG slices expose the
profiling metrics (``DCGM_FI_PROF_*``) instead (NVIDIA/dcgm-exporter issues 216 and 430). Where
every NVIDIA pool is partitioned, the metric has no series for any replica and the Deployment
never scales.

Fix: use ``metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE`` (graphics engine activity per slice).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu: {vendor: nvidia, model: A100-80GB, perNode: 8, nodes: 1, mig: {strategy: single, profiles: {1g.10gb: 7}}}
    workloads:
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4, metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu: {vendor: nvidia, model: A100-80GB, perNode: 8, nodes: 1, mig: {strategy: single, profiles: {1g.10gb: 7}}}
    workloads:
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4, metric: DCGM_FI_DEV_GPU_UTIL}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in502_autoscaling_without_gpus import autoscaled
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN505", "metric-not-for-mig", "error", "A whole-GPU DCGM metric where every NVIDIA pool uses MIG", __doc__
)


# DCGM reports device-level utilisation for whole GPUs only; MIG slices expose the profiling
# metrics (DCGM_FI_PROF_*) instead (NVIDIA/dcgm-exporter issues 216 and 430).
WHOLE_GPU_ONLY = {"DCGM_FI_DEV_GPU_UTIL", "DCGM_FI_DEV_MEM_COPY_UTIL"}


def all_mig(spec: dict) -> bool:
    """Whether there are NVIDIA pools and every one of them uses MIG."""
    pools = [p["gpu"] for p in spec["nodePools"] if p.get("gpu", {}).get("vendor") == "nvidia"]
    return bool(pools) and all(g["mig"]["strategy"] != "none" for g in pools)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if not all_mig(spec):
        return
    for i, workload in autoscaled(spec):
        for j, entry in enumerate(workload["autoscaling"]):
            if entry["metric"] in WHOLE_GPU_ONLY:
                yield doc.error(
                    f"{entry['metric']} is not reported for MIG slices, and every NVIDIA pool uses MIG",
                    ("workloads", i, "autoscaling", j, "metric"),
                    "use metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE (graphics engine activity per slice)",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
