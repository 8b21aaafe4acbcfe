"""A fabric network's ``range`` that overlaps the pod network, the API server's CIDRs or another
pool's fabric range.

Rationale: whereabouts hands out every address of the range to pods. A pod whose fabric
interface holds an address of the pod network (``network.cilium.ipam.podCIDRs``, the native
routing CIDR) or of the API server (``network.apiServerCIDRs``) routes that traffic onto the
fabric interface; and whereabouts keeps one allocation record per range, so two pools'
overlapping ranges hand out an address twice.

Fix: choose a range outside the pod network, the API server's addresses and the other pools'
ranges.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 192.168.64.0/18}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
    network:
      apiServerCIDRs: [10.0.0.0/24]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 10.0.0.0/16}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
    network:
      apiServerCIDRs: [10.0.0.0/24]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import addresses, jsonpath
from generator.errors import InputError
from generator.inputs.consistency.in314_fabric_range_invalid import valid_ranges
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN316",
    "fabric-range-overlaps",
    "error",
    "A fabric range overlaps the pod network, the API server or another pool's range",
    __doc__,
)


def _cluster_ranges(spec: dict) -> Iterator[tuple[str, tuple]]:
    """The CIDRs of the cluster's own networks a fabric range must stay out of, with their paths."""
    network = spec["network"]
    cilium = network.get("cilium", {})
    for i, cidr in enumerate(cilium.get("ipam", {}).get("podCIDRs", [])):
        yield cidr, ("network", "cilium", "ipam", "podCIDRs", i)
    native = cilium.get("routing", {}).get("ipv4NativeRoutingCIDR")
    if native is not None:
        yield native, ("network", "cilium", "routing", "ipv4NativeRoutingCIDR")
    for i, cidr in enumerate(network.get("apiServerCIDRs", [])):
        yield cidr, ("network", "apiServerCIDRs", i)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    route = "pods would route that traffic onto the fabric interface"
    taken = [
        (net, jsonpath.dotted(path), route)
        for cidr, path in _cluster_ranges(spec)
        if (net := addresses.parse_cidr(cidr))
    ]
    for _, pool, network, base, rng in valid_ranges(spec):
        for net, name, why in taken:
            if net.version == rng.version and net.overlaps(rng):
                yield doc.error(
                    f"node pool {pool['name']}'s fabric range {network['range']} overlaps {name} ({net}): {why}",
                    (*base, "range"),
                    "choose a range outside the pod network, the API server's addresses and the other pools' ranges",
                    at_value=True,
                )
        # whereabouts keeps one allocation record per range: overlapping ranges hand out an address twice
        taken.append((rng, f"node pool {pool['name']}'s fabric range", "whereabouts would hand out addresses twice"))


CHECK = InputCheck(meta=META, check=check)
