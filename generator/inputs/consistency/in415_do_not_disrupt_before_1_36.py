"""``workloads[].doNotDisrupt`` on a cluster before Kubernetes 1.36.

Rationale: ``doNotDisrupt`` renders a MutatingAdmissionPolicy that annotates the namespace's
pods ``karpenter.sh/do-not-disrupt: "true"``. ``admissionregistration.k8s.io/v1``
MutatingAdmissionPolicy is served from Kubernetes 1.36 (GA); on an older cluster the API
server has no such kind, the sync fails, and no pod is protected from Karpenter's
consolidation.

Fix: set the annotation ``karpenter.sh/do-not-disrupt: "true"`` in the jobs' pod templates
instead, or upgrade the cluster to 1.36.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.36"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, doNotDisrupt: true}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.35"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training, doNotDisrupt: true}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN415",
    "do-not-disrupt-before-1-36",
    "error",
    "doNotDisrupt on a cluster that serves no MutatingAdmissionPolicy v1",
    __doc__,
)

# MutatingAdmissionPolicy admissionregistration.k8s.io/v1 is served (GA) from Kubernetes 1.36.
MUTATING_POLICY_MINOR = 36


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    minor = int(spec["kubernetesVersion"].split(".")[1])
    if minor >= MUTATING_POLICY_MINOR:
        return
    for i, workload in enumerate(spec["workloads"]):
        if workload["doNotDisrupt"]:
            yield doc.error(
                f"doNotDisrupt needs MutatingAdmissionPolicy admissionregistration.k8s.io/v1, served from Kubernetes "
                f"1.36; the cluster runs {spec['kubernetesVersion']}",
                ("workloads", i, "doNotDisrupt"),
                'set the annotation karpenter.sh/do-not-disrupt: "true" in the jobs\' pod templates instead, or '
                "upgrade the cluster",
            )


CHECK = InputCheck(meta=META, check=check)
