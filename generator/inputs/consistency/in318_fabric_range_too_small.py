"""A fabric network's ``range`` that cannot give each of the pool's nodes its block of addresses.

Rationale: nv-ipam's controller hands every node the IPPool selects a block of
``perNodeBlockSize`` consecutive addresses of the range, one after the other from the first
address after the network's, never the IPv4 broadcast address, and skips a block that lies wholly
inside the excluded addresses (Mellanox/nvidia-k8s-ipam network-operator-v26.4.1
``pkg/ipam-controller/allocator/allocator.go``, ``AllocateFromPool``; ``api/v1alpha1/helpers.go``,
``GetPossibleIPCount``). A node past the last block gets none ("pool has no free ranges"), and
its pods that join the network stay ``ContainerCreating``; a block larger than the range is
refused by nv-ipam's own validation (``ippool_validate.go``), which its disabled webhook does not
run. The pool grows to ``gpu.nodes`` nodes (one, for a pool without GPUs).

Fix: a larger ``range``, a smaller ``perNodeBlockSize`` (the most pods one node has on the network
at once), or fewer excluded addresses.

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
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 16}
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 172.30.0.0/22, perNodeBlockSize: 63}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}

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
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 17}
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 172.30.0.0/22, perNodeBlockSize: 63}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import addresses
from generator.errors import InputError
from generator.inputs.consistency.in314_fabric_range_invalid import Network, valid_ranges
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN318",
    "fabric-range-too-small",
    "error",
    "A fabric range holds fewer per-node blocks than the pool has nodes",
    __doc__,
)


def _first_offset(rng: Network) -> int:
    """Offset of the first address a block may start at: the network's own address only in a
    point-to-point or single-address range (``getFirstStartIP``)."""
    return 0 if rng.num_addresses <= 2 else 1


def _usable(rng: Network) -> int:
    """``GetPossibleIPCount``: every address but the network's and, in IPv4, the broadcast's."""
    if rng.num_addresses <= 2:
        return rng.num_addresses
    return rng.num_addresses - (2 if rng.version == 4 else 1)


def _merged(excluded: list[Network], rng: Network) -> list[tuple[int, int]]:
    """The excluded addresses as merged (first, last) offsets into ``rng`` (``MergeExcludeRanges``:
    overlapping or adjacent ranges become one)."""
    spans = sorted((int(n.network_address) - int(rng.network_address), n.num_addresses) for n in excluded)
    merged: list[tuple[int, int]] = []
    for first, size in spans:
        last = first + size - 1
        if merged and first <= merged[-1][1] + 1:
            merged[-1] = (merged[-1][0], max(merged[-1][1], last))
        else:
            merged.append((first, last))
    return merged


def blocks(rng: Network, size: int, excluded: list[Network]) -> int:
    """How many nodes nv-ipam can give a block of ``size`` addresses of ``rng``: the blocks that
    fit, less those wholly inside an excluded span (``isEntireRangeExcluded``)."""
    start, count = _first_offset(rng), _usable(rng) // size
    skipped = 0
    for first, last in _merged(excluded, rng):
        lowest = max(0, -(-(first - start) // size))  # first block starting at or after `first`
        highest = min(count - 1, (last - start - size + 1) // size)  # last block ending by `last`
        skipped += max(0, highest - lowest + 1)
    return count - skipped


def _largest_block(rng: Network, nodes: int, excluded: list[Network]) -> int:
    """The largest block size whose blocks ``rng`` holds for ``nodes`` nodes (0: not even one
    address each). Fewer blocks fit as they grow, so a bisection finds it."""
    low, high = 0, _usable(rng) // nodes
    while low < high:
        middle = (low + high + 1) // 2
        if blocks(rng, middle, excluded) >= nodes:
            low = middle
        else:
            high = middle - 1
    return low


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, network, base, rng in valid_ranges(spec):
        excluded = []
        for cidr in network.get("exclude", []):
            net = addresses.parse_cidr(cidr)
            if net is None or addresses.cidr_problems(cidr) or net.version != rng.version:
                continue  # IN314, IN315
            if net.subnet_of(rng):  # type: ignore[arg-type]
                excluded.append(net)
        size = network["perNodeBlockSize"]
        nodes = pool.get("gpu", {}).get("nodes", 1)
        fit = blocks(rng, size, excluded)
        if fit >= nodes:
            continue
        most = _largest_block(rng, nodes, excluded)
        hint = (
            f"a larger range, or perNodeBlockSize: {most} (it fits {nodes} nodes)"
            if most
            else f"a range with at least {nodes * size} addresses besides the excluded ones"
        )
        yield doc.error(
            f"node pool {pool['name']}'s fabric range {rng} holds {fit} blocks of perNodeBlockSize {size} "
            f"addresses, but the pool has up to {nodes} nodes (gpu.nodes): nv-ipam gives each node a block",
            (*base, "range"),
            hint,
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
