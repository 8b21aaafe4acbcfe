"""With native routing, a pod CIDR is not inside ``routing.ipv4NativeRoutingCIDR``, or no pod
CIDR is given in cluster-pool IPAM (the chart's default pool, ``10.0.0.0/8``, rarely is inside).

Rationale: with native routing the network itself routes pod traffic, and Cilium masquerades only
what leaves ``ipv4NativeRoutingCIDR``: a pod outside it is neither routed by the network nor
masqueraded, so its traffic is lost. The chart's cluster pool defaults to ``10.0.0.0/8``
(``ipam.operator.clusterPoolIPv4PodCIDRList``).

Fix: use pod CIDRs inside the native-routing CIDR (``ipam.podCIDRs``), widen
``routing.ipv4NativeRoutingCIDR`` to cover them, or use ``ipam.mode: kubernetes`` when the
controller manager allocates node pod CIDRs.

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
        routing: {mode: native, ipv4NativeRoutingCIDR: 10.244.0.0/16}
        ipam: {podCIDRs: [10.96.0.0/16]}
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
    "IN335",
    "cilium-pod-cidr-not-routed",
    "error",
    "With native routing, pod addresses outside ipv4NativeRoutingCIDR",
    __doc__,
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    ipam, routing = c["ipam"], c["routing"]
    if routing["mode"] != "native" or "ipv4NativeRoutingCIDR" not in routing:
        return
    native = cilium.network(routing["ipv4NativeRoutingCIDR"])
    if native is None:
        return  # IN101's (address-invalid)
    if ipam["mode"] == "cluster-pool" and "podCIDRs" not in ipam:
        written = cilium.written_setting(doc, "ipam")
        yield doc.error(
            "native routing without a pod CIDR: the chart would hand out pod addresses from 10.0.0.0/8, "
            f"outside ipv4NativeRoutingCIDR {native}, which the network does not route",
            BASE + ("ipam",) if written else BASE + ("routing", "ipv4NativeRoutingCIDR"),
            f"set network.cilium.ipam.podCIDRs to the pod range inside {native} (e.g. [{native}]), "
            "or ipam.mode: kubernetes when the controller manager allocates node pod CIDRs",
            at_value=not written,
        )
    for i, text in enumerate(ipam.get("podCIDRs", [])):
        net = cilium.network(text)
        if net is not None and not net.subnet_of(native):
            yield doc.error(
                f"pod CIDR {net} is not inside ipv4NativeRoutingCIDR {native}: with native routing those "
                "pods' traffic is neither routed by the network nor masqueraded",
                BASE + ("ipam", "podCIDRs", i),
                f"use a pod CIDR inside {native}, or widen routing.ipv4NativeRoutingCIDR to cover {net}",
            )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
