"""BIG TCP (``bigTCP.ipv4`` or ``ipv6``) without native routing, kube-proxy replacement, eBPF
masquerading or eBPF host routing: one error for each that is missing.

Rationale: Cilium's BIG TCP guide (operations/performance/tuning, "IPv4 BIG TCP") lists its
requirements: native routing (BIG TCP does not work through a tunnel), kube-proxy
replacement, eBPF masquerading and eBPF host routing.

Fix: turn each missing prerequisite on, as the hint says, or turn BIG TCP off.

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
        routing: {mode: native, ipv4NativeRoutingCIDR: 10.244.0.0/16}
        ipam: {podCIDRs: [10.244.0.0/16]}
        bpf: {masquerade: true, hostLegacyRouting: false}
        nodeKernel: "6.8"
        bigTCP: {ipv4: true}
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
        k8sServiceHost: api.example.com
        routing: {mode: native, ipv4NativeRoutingCIDR: 10.244.0.0/16}
        ipam: {podCIDRs: [10.244.0.0/16]}
        bpf: {masquerade: false, hostLegacyRouting: false}
        nodeKernel: "6.8"
        bigTCP: {ipv4: true}
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

META = RuleMeta("IN347", "cilium-big-tcp-prerequisites", "error", "BIG TCP without what it needs", __doc__)


def _missing(c: dict) -> list[tuple[str, str]]:
    """(what is missing, hint) for every BIG TCP prerequisite that is not met."""
    missing = []
    if c["routing"]["mode"] != "native":
        missing.append(
            (
                "native routing (BIG TCP does not work through a tunnel)",
                "set network.cilium.routing.mode: native with its ipv4NativeRoutingCIDR",
            )
        )
    if not c["kubeProxyReplacement"]:
        missing.append(("kube-proxy replacement", "set network.cilium.kubeProxyReplacement: true"))
    if not c["bpf"]["masquerade"]:
        missing.append(("eBPF masquerading", "set network.cilium.bpf.masquerade: true"))
    if c["bpf"]["hostLegacyRouting"]:
        missing.append(("eBPF host routing", "set network.cilium.bpf.hostLegacyRouting: false (kernel >= 5.10)"))
    return missing


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    for family in ("ipv4", "ipv6"):
        if not c["bigTCP"][family]:
            continue
        for what, hint in _missing(c):
            yield doc.error(f"BIG TCP ({family}) needs {what}", BASE + ("bigTCP", family), hint, at_value=True)


CHECK = InputCheck(meta=META, check=cilium.configured(find))
