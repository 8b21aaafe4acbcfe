"""``bpf.masquerade`` with ``kubeProxyReplacement: false``.

Rationale: eBPF masquerading is implemented in the eBPF NodePort code that kube-proxy replacement
brings; without it the agent refuses eBPF masquerading (Cilium docs, "Masquerading": "eBPF-based
masquerading ... requires the eBPF NodePort feature").

Fix: set ``network.cilium.kubeProxyReplacement: true``, or ``bpf.masquerade: false`` for iptables
masquerading.

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
        bpf: {masquerade: true}
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
        bpf: {masquerade: true}
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
    "IN343", "cilium-masquerade-without-kpr", "error", "eBPF masquerading without kube-proxy replacement", __doc__
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    if c["bpf"]["masquerade"] and not c["kubeProxyReplacement"]:
        yield doc.error(
            "eBPF masquerading needs kube-proxy replacement (eBPF NodePort)",
            BASE + ("bpf", "masquerade"),
            "set network.cilium.kubeProxyReplacement: true, or bpf.masquerade: false for iptables masquerading",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
