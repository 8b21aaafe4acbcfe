"""``routing.mode: native`` without ``routing.ipv4NativeRoutingCIDR``.

Rationale: in native routing the agent must know which destinations the network routes without
masquerading; it refuses to start in native routing mode without an IPv4 native-routing CIDR
(Cilium docs, "Native-Routing": ``ipv4-native-routing-cidr`` is required).

Fix: set ``network.cilium.routing.ipv4NativeRoutingCIDR`` to a CIDR covering the pod CIDR, or use
tunnel routing.

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
        routing: {mode: native}
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
    "IN332", "cilium-native-routing-cidr-missing", "error", "Native routing without ipv4NativeRoutingCIDR", __doc__
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    routing = c["routing"]
    if routing["mode"] == "native" and "ipv4NativeRoutingCIDR" not in routing:
        yield doc.error(
            "native routing needs ipv4NativeRoutingCIDR: the CIDR the network routes without masquerading",
            BASE + ("routing", "mode"),
            "set network.cilium.routing.ipv4NativeRoutingCIDR to a CIDR covering the pod CIDR (e.g. 10.244.0.0/16)",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
