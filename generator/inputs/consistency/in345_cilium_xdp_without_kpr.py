"""``loadBalancer.acceleration`` with ``kubeProxyReplacement: false``.

Rationale: XDP acceleration accelerates Cilium's eBPF NodePort, which only kube-proxy replacement
runs; the agent refuses it otherwise (pkg/kpr/initializer/kube_proxy_replacement.go,
InitKubeProxyReplacementOptions, cilium/cilium v1.19).

Fix: set ``network.cilium.kubeProxyReplacement: true``, or ``loadBalancer.acceleration:
disabled``.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        kubeProxyReplacement: true
        loadBalancer: {acceleration: native}
        devices: [eth0]
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
        kubeProxyReplacement: false
        bpf: {masquerade: false}
        loadBalancer: {acceleration: native}
        devices: [eth0]
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

META = RuleMeta("IN345", "cilium-xdp-without-kpr", "error", "XDP acceleration without kube-proxy replacement", __doc__)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    if c["loadBalancer"]["acceleration"] != "disabled" and not c["kubeProxyReplacement"]:
        yield doc.error(
            "XDP acceleration needs kube-proxy replacement: it accelerates Cilium's eBPF NodePort",
            BASE + ("loadBalancer", "acceleration"),
            "set network.cilium.kubeProxyReplacement: true, or loadBalancer.acceleration: disabled",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
