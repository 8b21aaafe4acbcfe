"""A fabric network's ``range`` that overlaps the pod network, the Service CIDR, the API server's
CIDRs or another pool's fabric range.

Rationale: the range is the fabric interface's subnet in every pod that joins the network, so
the pod routes the whole range through that interface. A pod whose fabric subnet holds addresses
of the pod network (``network.cilium.ipam.podCIDRs``, the native routing CIDR), of Services
(``network.serviceCidr``, else the provider's default: ``serviceCidrs`` in docs/providers.md) or
of the API server (``network.apiServerCIDRs``) sends that traffic onto the fabric, where no such
address answers. nv-ipam keeps each IPPool's allocations apart (Mellanox/nvidia-k8s-ipam
``pkg/ipam-controller/allocator``: one allocator per pool), so two pools' overlapping ranges hand
out the same address twice.

Fix: choose a range outside the pod network, the Service CIDR, the API server's addresses and the
other pools' ranges; where the cluster's Service CIDR is not the provider's default, set
``network.serviceCidr``.

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
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 10.0.128.0/18}}
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
    "A fabric range overlaps the pod network, the Service CIDR, the API server or another pool's range",
    __doc__,
)

HINT = (
    "choose a range outside the pod network, the Service CIDR, the API server's addresses and the other pools' ranges"
)


def _cluster_ranges(spec: dict, facts: dict) -> Iterator[tuple[str, str, str]]:
    """The CIDRs of the cluster's own networks a fabric range must stay out of: (CIDR, its name,
    the hint's advice)."""
    network = spec["network"]
    cilium = network.get("cilium", {})
    for i, cidr in enumerate(cilium.get("ipam", {}).get("podCIDRs", [])):
        yield cidr, jsonpath.dotted(("network", "cilium", "ipam", "podCIDRs", i)), HINT
    native = cilium.get("routing", {}).get("ipv4NativeRoutingCIDR")
    if native is not None:
        yield native, jsonpath.dotted(("network", "cilium", "routing", "ipv4NativeRoutingCIDR")), HINT
    if "serviceCidr" in network:
        yield network["serviceCidr"], "network.serviceCidr", HINT
    else:
        for cidr in facts["serviceCidrs"]:
            yield (
                cidr,
                f"the {spec['provider']} default Service CIDR",
                (f"{HINT}; set network.serviceCidr if the cluster was created with another Service CIDR"),
            )
    for i, cidr in enumerate(network.get("apiServerCIDRs", [])):
        yield cidr, jsonpath.dotted(("network", "apiServerCIDRs", i)), HINT


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    route = "pods would route that traffic onto the fabric interface"
    taken = [
        (net, name, route, hint)
        for cidr, name, hint in _cluster_ranges(spec, facts)
        if (net := addresses.parse_cidr(cidr))
    ]
    for _, pool, network, base, rng in valid_ranges(spec):
        for net, name, why, hint in taken:
            if net.version == rng.version and net.overlaps(rng):
                yield doc.error(
                    f"node pool {pool['name']}'s fabric range {network['range']} overlaps {name} ({net}): {why}",
                    (*base, "range"),
                    hint,
                    at_value=True,
                )
        # nv-ipam allocates each IPPool on its own: overlapping ranges hand out an address twice
        taken.append((rng, f"node pool {pool['name']}'s fabric range", "nv-ipam would hand out addresses twice", HINT))


CHECK = InputCheck(meta=META, check=check)
