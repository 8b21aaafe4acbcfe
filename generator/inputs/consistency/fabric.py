"""The pools' fabric networks (``nodePools[].fabric.network``), which have no check ID yet (the
other fabric checks are IN304-IN312).

A pool's secondary network only on InfiniBand or RoCE (an EFA device has no netdev to attach),
with a ``range`` and ``exclude`` the API server's parser accepts, each ``exclude`` inside the
range, and the range overlapping no pod CIDR, the native routing CIDR, the API server's CIDRs or
another pool's range: whereabouts hands out every address of the range to pods, and a pod whose
fabric interface holds an address of the pod network (or the API server's) routes that traffic
onto the fabric; a warning when no workload namespace uses the fabric (``podSecurity:
baseline-ipc-lock``), where the network renders nowhere.
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import addresses, jsonpath
from generator.errors import InputError
from generator.yamlio.positions import Located


def _cidr_errors(value: object, where: tuple, doc: Located) -> Iterator[InputError]:
    for problem in addresses.cidr_problems(value):
        hint = f"write {problem.canonical}" if problem.canonical else "write a CIDR such as 172.30.0.0/16"
        yield doc.error(f"CIDR {value!r} {problem.message}", where, hint, at_value=True)


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


def _check_networks(spec: dict, doc: Located) -> Iterator[InputError]:
    route = "pods would route that traffic onto the fabric interface"
    taken = [
        (net, jsonpath.dotted(path), route)
        for cidr, path in _cluster_ranges(spec)
        if (net := addresses.parse_cidr(cidr))
    ]
    used = any(w["podSecurity"] == "baseline-ipc-lock" for w in spec["workloads"])
    for i, pool in enumerate(spec["nodePools"]):
        network = pool["fabric"].get("network")
        if network is None:
            continue
        base = ("nodePools", i, "fabric", "network")
        if pool["fabric"]["type"] not in ("infiniband", "roce"):
            yield doc.error(
                f"node pool {pool['name']} has a fabric.network on a {pool['fabric']['type']} fabric: only InfiniBand "
                "(IPoIB) and RoCE (Macvlan) NICs have a netdev a pod's interface is made from",
                base,
                "remove fabric.network (NCCL reaches EFA through libfabric, without an interface in the pod)",
            )
            continue
        problems = list(_cidr_errors(network["range"], base + ("range",), doc))
        yield from problems
        rng = addresses.parse_cidr(network["range"])
        if problems or rng is None:
            continue
        for j, cidr in enumerate(network.get("exclude", [])):
            where = base + ("exclude", j)
            bad = list(_cidr_errors(cidr, where, doc))
            yield from bad
            excluded = addresses.parse_cidr(cidr)
            if not bad and excluded is not None and (excluded.version != rng.version or not excluded.subnet_of(rng)):  # type: ignore[arg-type]
                yield doc.error(
                    f"exclude {cidr!r} is not inside the range {network['range']}",
                    where,
                    f"exclude only addresses of {network['range']}",
                    at_value=True,
                )
        for net, name, why in taken:
            if net.version == rng.version and net.overlaps(rng):
                yield doc.error(
                    f"node pool {pool['name']}'s fabric range {network['range']} overlaps {name} ({net}): {why}",
                    base + ("range",),
                    "choose a range outside the pod network, the API server's addresses and the other pools' ranges",
                    at_value=True,
                )
        # whereabouts keeps one allocation record per range: overlapping ranges hand out an address twice
        taken.append((rng, f"node pool {pool['name']}'s fabric range", "whereabouts would hand out addresses twice"))
        if not used:
            yield doc.warning(
                f"node pool {pool['name']} has a fabric.network, but no workload namespace uses the fabric: its "
                "NetworkAttachmentDefinition renders in each namespace with podSecurity baseline-ipc-lock",
                base,
                "set podSecurity: baseline-ipc-lock on the training namespaces, or remove fabric.network",
            )


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    yield from _check_networks(spec, doc)
