"""An autoscaling entry whose ``minReplicas`` or ``fallbackReplicas`` is above ``maxReplicas``.

Rationale: KEDA's admission webhook refuses a ScaledObject whose ``minReplicaCount`` exceeds
its ``maxReplicaCount``, and its fallback replicas are a count the Deployment is scaled to when
the metric fails (KEDA docs, ScaledObject spec): above the maximum it would scale past the
bound the entry sets.

Fix: lower ``minReplicas`` or ``fallbackReplicas``, or raise ``maxReplicas``.

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
          - {deployment: llm, minReplicas: 1, maxReplicas: 4, fallbackReplicas: 4}

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
          - {deployment: llm, minReplicas: 6, maxReplicas: 4}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in502_autoscaling_without_gpus import autoscaled
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN504", "replicas-above-max", "error", "minReplicas or fallbackReplicas above maxReplicas", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in autoscaled(spec):
        for j, entry in enumerate(workload["autoscaling"]):
            here = ("workloads", i, "autoscaling", j)
            if entry["minReplicas"] > entry["maxReplicas"]:
                yield doc.error(
                    f"minReplicas {entry['minReplicas']} is above maxReplicas {entry['maxReplicas']}",
                    here + ("minReplicas",),
                    "lower minReplicas or raise maxReplicas",
                    at_value=True,
                )
            if entry.get("fallbackReplicas", 0) > entry["maxReplicas"]:
                yield doc.error(
                    f"fallbackReplicas {entry['fallbackReplicas']} is above maxReplicas {entry['maxReplicas']}",
                    here + ("fallbackReplicas",),
                    "the fallback must be a replica count the Deployment may have",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
