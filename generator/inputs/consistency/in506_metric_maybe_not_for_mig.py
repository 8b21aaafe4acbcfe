"""Autoscaling on a whole-GPU DCGM metric in a namespace that may get MIG slices.

Rationale: DCGM reports ``DCGM_FI_DEV_GPU_UTIL`` and ``DCGM_FI_DEV_MEM_COPY_UTIL`` for whole
GPUs only (NVIDIA/dcgm-exporter issues 216 and 430). Where some pools use MIG and the
namespace may be given slices (a MIG quota, or no quota that rules them out), replicas on
slices count as idle and the Deployment does not scale up for them. It renders: replicas on
whole GPUs still scale.

Fix: use ``metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE`` (reported for MIG slices and whole GPUs), or
remove ``metric`` to get it by default.

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
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu: {vendor: nvidia, model: A100-80GB, perNode: 8, nodes: 1, mig: {strategy: mixed, profiles: {1g.10gb: 7}}}
    workloads:
      - namespace: serving
        type: inference
        quota: {gpus: 8, mig: {1g.10gb: 4}}
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
      - name: a100
        nodeSelector: {agentpool: a100}
        gpu: {vendor: nvidia, model: A100-80GB, perNode: 8, nodes: 1, mig: {strategy: mixed, profiles: {1g.10gb: 7}}}
    workloads:
      - namespace: serving
        type: inference
        quota: {gpus: 8, mig: {1g.10gb: 4}}
        allowEgressTo: []
        autoscaling:
          - {deployment: llm, minReplicas: 1, maxReplicas: 4, metric: DCGM_FI_DEV_GPU_UTIL}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in502_autoscaling_without_gpus import autoscaled
from generator.inputs.consistency.in505_metric_not_for_mig import WHOLE_GPU_ONLY, all_mig
from generator.inputs.conventions import may_get_mig_slices
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN506",
    "metric-maybe-not-for-mig",
    "warning",
    "A whole-GPU DCGM metric in a namespace that may get MIG slices",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if all_mig(spec):
        return  # IN505's
    for i, workload in autoscaled(spec):
        for j, entry in enumerate(workload["autoscaling"]):
            metric = entry["metric"]
            if metric in WHOLE_GPU_ONLY and may_get_mig_slices(spec, workload):
                yield doc.warning(
                    f"{metric} is not reported for MIG slices, and {workload['namespace']} may get MIG slices: "
                    "replicas on slices count as idle, so the Deployment does not scale up for them",
                    ("workloads", i, "autoscaling", j, "metric"),
                    "use metric: DCGM_FI_PROF_GR_ENGINE_ACTIVE (reported for MIG slices and whole GPUs), or remove "
                    "metric to get it by default",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
