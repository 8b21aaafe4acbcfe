"""``routing.autoDirectNodeRoutes`` with ``routing.mode: tunnel``.

Rationale: direct node routes install a route to each node's pod CIDR via that node, which is native
routing on a shared L2 segment; with a tunnel the packets go through the tunnel, and the agent
refuses the combination at start-up.

Fix: use ``routing.mode: native`` (all nodes on one L2 segment), or drop ``autoDirectNodeRoutes``.

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
        routing: {mode: native, ipv4NativeRoutingCIDR: 10.244.0.0/16, autoDirectNodeRoutes: true}
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
        routing: {mode: tunnel, autoDirectNodeRoutes: true}
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
    "IN342", "cilium-direct-routes-with-tunnel", "error", "autoDirectNodeRoutes with tunnel routing", __doc__
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    routing = c["routing"]
    if routing["mode"] == "tunnel" and routing["autoDirectNodeRoutes"]:
        yield doc.error(
            "autoDirectNodeRoutes cannot be used with tunnel routing",
            BASE + ("routing", "autoDirectNodeRoutes"),
            "use routing.mode: native (all nodes on one L2 segment), or drop autoDirectNodeRoutes",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
