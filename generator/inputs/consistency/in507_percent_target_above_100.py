"""``gpuUtilization`` or ``activationThreshold`` above 100 for a metric that is a percent.

Rationale: DCGM's ``*_UTIL`` fields are percent, and the ``DCGM_FI_PROF_*`` ratios are rendered
as percent (``libsonnet/components/autoscaling.libsonnet`` multiplies them by 100), averaged
over each replica's GPUs: a target above 100 is never reached, so the Deployment never scales
up (or, as an activation threshold, never activates).

Fix: give the target as the percent one replica's GPUs should average (at most 100).

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
          - {deployment: llm, minReplicas: 1, maxReplicas: 4, gpuUtilization: 80}

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
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4, gpuUtilization: 400}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in502_autoscaling_without_gpus import autoscaled
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN507", "percent-target-above-100", "error", "A GPU utilisation target above 100 percent", __doc__)


def _is_percent(metric: str) -> bool:
    """DCGM's *_UTIL fields are percent; the DCGM_FI_PROF_* ratios are rendered as percent
    (autoscaling.libsonnet multiplies them by 100)."""
    return metric.endswith("_UTIL") or metric.startswith("DCGM_FI_PROF_")


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in autoscaled(spec):
        for j, entry in enumerate(workload["autoscaling"]):
            if not _is_percent(entry["metric"]):
                continue
            for key in ("gpuUtilization", "activationThreshold"):
                if entry[key] > 100:
                    yield doc.error(
                        f"{key} {entry[key]} is above 100, but {entry['metric']} is a percent averaged over each "
                        "replica's GPUs",
                        ("workloads", i, "autoscaling", j, key),
                        f"give {key} as the percent one replica's GPUs should average (at most 100)",
                        at_value=True,
                    )


CHECK = InputCheck(meta=META, check=check)
