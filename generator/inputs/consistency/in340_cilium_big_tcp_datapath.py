"""BIG TCP (``bigTCP.ipv4`` or ``ipv6``) with ``bpf.datapathMode`` other than ``veth``.

Rationale: the agent refuses BIG TCP on the netkit datapaths: "BIG TCP is supported only in veth
datapath mode" (pkg/datapath/linux/bigtcp/bigtcp.go validateConfig, cilium/cilium v1.19).

Fix: use ``bpf.datapathMode: veth``, or turn BIG TCP off.

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
        nodeKernel: "6.8"
        bigTCP: {ipv4: true}
        bpf: {masquerade: true, hostLegacyRouting: false, datapathMode: netkit}
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

META = RuleMeta("IN340", "cilium-big-tcp-datapath", "error", "BIG TCP with a datapath other than veth", __doc__)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    if (c["bigTCP"]["ipv4"] or c["bigTCP"]["ipv6"]) and c["bpf"]["datapathMode"] != "veth":
        yield doc.error(
            f"BIG TCP is supported only with the veth datapath, not {c['bpf']['datapathMode']}",
            BASE + ("bpf", "datapathMode"),
            "use bpf.datapathMode: veth, or turn BIG TCP off",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
