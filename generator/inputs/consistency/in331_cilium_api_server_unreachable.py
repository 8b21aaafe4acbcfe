"""Cilium replaces kube-proxy (``kubeProxyReplacement``, on by default) and ``k8sServiceHost`` is not set.

Rationale: once kube-proxy is gone nothing programs the API server's ClusterIP
(``kubernetes.default``) before the agent runs, so the agent cannot reach the API server
through it (cilium/cilium#35440); Cilium's kube-proxy-free installation guide sets
``k8sServiceHost`` and ``k8sServicePort`` to the API server's own address for that reason.

Fix: set ``network.cilium.k8sServiceHost`` (and ``k8sServicePort``) to the API server's real
address, e.g. the cloud endpoint host name; or keep kube-proxy (``kubeProxyReplacement: false``).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        kubeProxyReplacement: true
        k8sServiceHost: api.example.com
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        kubeProxyReplacement: true
        hubble: {enabled: true}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import cilium
from generator.inputs.cilium import BASE
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN331",
    "cilium-api-server-unreachable",
    "error",
    "Cilium replaces kube-proxy without the API server's real address",
    __doc__,
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    if not c["kubeProxyReplacement"] or "k8sServiceHost" in c:
        return
    written = cilium.written_setting(doc, "kubeProxyReplacement")
    yield doc.error(
        ("kubeProxyReplacement" if written else "Cilium replaces kube-proxy by default, and")
        + " without k8sServiceHost: with kube-proxy gone, the agent cannot reach the API server "
        "through its ClusterIP",
        BASE + ("kubeProxyReplacement",),
        "set network.cilium.k8sServiceHost (and k8sServicePort) to the API server's real address, "
        "e.g. the cloud endpoint host name"
        + (
            ""
            if written
            else "; or keep kube-proxy (kubeProxyReplacement: false) or another CNI (network.cilium.enabled: false)"
        ),
        at_value=True,
    )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
