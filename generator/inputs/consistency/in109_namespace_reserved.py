"""A workload namespace that is not a team's to isolate.

Rationale: a workload namespace gets default-deny NetworkPolicies, a quota and Pod Security
labels. On Kubernetes' own namespaces (``kube-*``) and OpenShift's (``openshift``,
``openshift-*``: each belongs to a cluster operator) they would land on the cluster's own
components. ``default`` holds the API server's ``kubernetes`` Service and every object without
a namespace; ``flux-system`` and ``argocd`` are the GitOps engines' own (docs/gitops.md);
``cert-manager`` and ``karpenter`` are the documented prerequisites' (README, "What the cluster
must already run"); ``monitoring.namespace`` is Prometheus's, which default-deny would cut off
from every target. The namespaces gpu-gitops's components render are refused after evaluation
(``generator/render/collisions.py``).

Fix: give the workload a namespace of its own (not ``default``, ``kube-*``, ``openshift-*``,
an engine's or a prerequisite's), or set ``monitoring.namespace`` to where Prometheus runs.

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
      - {namespace: ml-training, type: training}

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
      - {namespace: default, type: training}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN109",
    "namespace-reserved",
    "error",
    "A workload namespace is the platform's, a prerequisite's or Prometheus's",
    __doc__,
)

# Namespaces of the platform itself: Kubernetes' own (kube-system, kube-public, kube-node-lease)
# and OpenShift's (every openshift-* namespace belongs to a cluster operator).
_RESERVED_PREFIXES = ("kube-", "openshift-")
# Namespaces that are not a team's to isolate, each with the reason: ``default`` (where every
# object without a namespace lands, the ``kubernetes`` Service's EndpointSlices included), the
# GitOps engines' own whichever engine this cluster uses (Flux's ``flux-system``, Argo CD's
# ``argocd``: docs/gitops.md), and the documented prerequisites' (README "What the cluster must
# already run": cert-manager's chart installs into ``cert-manager``; Karpenter's getting-started
# guide installs into ``karpenter`` or ``kube-system``).
_RESERVED_NAMES = {
    "default": "is where every object without a namespace lands, the API server's own `kubernetes` Service "
    "included: default-deny there cuts off whatever else runs in it",
    "openshift": "holds OpenShift's shared templates and image streams",
    "flux-system": "is Flux's own: default-deny there cuts the GitOps engine off from the repository and the API",
    "argocd": "is Argo CD's own: default-deny there cuts the GitOps engine off from the repository and the API",
    "cert-manager": "is cert-manager's, a documented prerequisite (the AMD GPU Operator's webhooks take their "
    "certificates from it)",
    "karpenter": "is Karpenter's, a documented prerequisite of provisioned pools: default-deny there stops "
    "node provisioning",
}
_HINT = "give the workload a namespace of its own (not default, kube-*, openshift-*, an engine's or a prerequisite's)"


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        ns = workload["namespace"]
        at = ("workloads", i, "namespace")
        if ns.startswith(_RESERVED_PREFIXES):
            yield doc.error(
                f"workloads[{i}] namespace {ns!r} belongs to the platform: its default-deny policies, quota and "
                "Pod Security labels would land on the cluster's own components",
                at,
                _HINT,
                at_value=True,
            )
        elif ns in _RESERVED_NAMES:
            yield doc.error(
                f"workloads[{i}] namespace {ns!r} is not a team's to isolate: it {_RESERVED_NAMES[ns]}",
                at,
                _HINT,
                at_value=True,
            )
        elif ns == spec["monitoring"]["namespace"]:
            yield doc.error(
                f"workloads[{i}] namespace {ns!r} is monitoring.namespace: its default-deny policies would cut "
                "Prometheus off from every target",
                at,
                "give the workload a namespace of its own, or set monitoring.namespace to where Prometheus runs",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
