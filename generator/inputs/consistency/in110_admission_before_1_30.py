"""``admission.enabled: true`` on a cluster older than Kubernetes 1.30.

Rationale: the admission policies are ValidatingAdmissionPolicies of
``admissionregistration.k8s.io/v1``, served from Kubernetes 1.30 (GA in 1.30, KEP-3488);
before it the API server refuses them and their layer stalls. Admission defaults to off before
1.30, so only an explicit ``enabled: true`` gets here.

Fix: remove ``admission.enabled`` (it defaults to off before 1.30), or upgrade the cluster.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.30"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    admission: {enabled: true}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - {namespace: training, type: training}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.29"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    admission: {enabled: true}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - {namespace: training, type: training}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN110", "admission-before-1-30", "error", "admission.enabled on a Kubernetes version before 1.30", __doc__
)


# ValidatingAdmissionPolicy admissionregistration.k8s.io/v1 is GA (served) from Kubernetes 1.30.
VAP_MIN_MINOR = 30


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    minor = int(spec["kubernetesVersion"].split(".")[1])
    if spec["admission"]["enabled"] and spec["workloads"] and minor < VAP_MIN_MINOR:
        yield doc.error(
            f"admission.enabled is true, but admission policies need Kubernetes 1.{VAP_MIN_MINOR} or newer "
            f"(ValidatingAdmissionPolicy v1); this cluster is {spec['kubernetesVersion']}",
            ("admission", "enabled"),
            f"remove admission.enabled (it defaults to off before 1.{VAP_MIN_MINOR}), or upgrade the cluster",
        )


CHECK = InputCheck(meta=META, check=check)
