"""``bpf.datapathMode`` ``netkit`` or ``netkit-l2`` with ``bpf.hostLegacyRouting: true``.

Rationale: netkit devices hand packets to the host through eBPF host routing; the agent refuses netkit
with legacy (iptables) host routing (Cilium docs, operations/performance/tuning, "netkit device
mode").

Fix: set ``network.cilium.bpf.hostLegacyRouting: false`` (kernel >= 6.8 for netkit), or
``bpf.datapathMode: veth``.

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
        bpf: {datapathMode: netkit, hostLegacyRouting: false}
        nodeKernel: "6.8"
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
        bpf: {datapathMode: netkit, hostLegacyRouting: true}
        nodeKernel: "6.8"
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
    "IN346", "cilium-netkit-legacy-host-routing", "error", "The netkit datapath with legacy host routing", __doc__
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    if c["bpf"]["datapathMode"] != "veth" and c["bpf"]["hostLegacyRouting"]:
        yield doc.error(
            f"datapathMode {c['bpf']['datapathMode']} needs eBPF host routing",
            BASE + ("bpf", "datapathMode"),
            "set network.cilium.bpf.hostLegacyRouting: false (kernel >= 6.8 for netkit), or datapathMode: veth",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
