"""In cluster-pool IPAM, ``ipam.maskSize`` is shorter than a pod CIDR's prefix.

Rationale: the operator carves each node's range of ``/maskSize`` out of the pool's CIDRs
(``clusterPoolIPv4MaskSize``); a node range larger than the CIDR cannot be carved, and no node
gets pod addresses.

Fix: set ``network.cilium.ipam.maskSize`` to the pod CIDR's prefix length or more, or widen
``ipam.podCIDRs``.

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
        ipam: {podCIDRs: [10.244.0.0/16], maskSize: 24}
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
        ipam: {podCIDRs: [10.244.0.0/24], maskSize: 16}
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
    "IN334", "cilium-node-range-exceeds-pod-cidr", "error", "Cilium's node ranges do not fit in a pod CIDR", __doc__
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    ipam = c["ipam"]
    if ipam["mode"] != "cluster-pool":
        return
    for i, text in enumerate(ipam.get("podCIDRs", [])):
        net = cilium.network(text)
        if net is not None and ipam["maskSize"] < net.prefixlen:
            yield doc.error(
                f"node ranges of /{ipam['maskSize']} do not fit in the pod CIDR {net}",
                BASE + ("ipam", "maskSize"),
                f"set network.cilium.ipam.maskSize to {net.prefixlen} or more (or widen podCIDRs[{i}])",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
