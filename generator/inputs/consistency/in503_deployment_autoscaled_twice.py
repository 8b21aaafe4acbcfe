"""Two autoscaling entries of one namespace name the same Deployment.

Rationale: each entry renders a KEDA ScaledObject on its Deployment; KEDA refuses a second
ScaledObject for a workload another one already scales (its admission webhook: "the workload
... is already managed by the ScaledObject"), and both would drive one HPA.

Fix: keep one entry per Deployment.

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
          - {deployment: embed, minReplicas: 1, maxReplicas: 2}

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
          - {deployment: llm, minReplicas: 1, maxReplicas: 4}
          - {deployment: llm, minReplicas: 2, maxReplicas: 8}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in502_autoscaling_without_gpus import autoscaled
from generator.inputs.protocol import InputCheck
from generator.inputs.repeats import repeats
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN503", "deployment-autoscaled-twice", "error", "One Deployment with two autoscaling entries", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in autoscaled(spec):
        entries = workload["autoscaling"]
        for j, _first, deployment in repeats((j, e["deployment"]) for j, e in enumerate(entries)):
            yield doc.error(
                f"Deployment {deployment!r} is autoscaled twice in {workload['namespace']}",
                ("workloads", i, "autoscaling", j, "deployment"),
                "keep one entry per Deployment",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
