"""A fabric network's ``range`` or ``exclude`` that is not a CIDR the API server's parser accepts.

Rationale: nv-ipam parses the IPPool's ``subnet`` with Go's ``net.ParseCIDR`` (Mellanox/nvidia-k8s-ipam
``api/v1alpha1/ippool_validate.go``): a prefix past the address's length is refused, and an
address with bits past the prefix names a different network than it seems to (the API server's
CIDR validation refuses those too); each exclude becomes the IPPool exclusion of its first to its
last address. The other fabric network checks (IN315 to IN318) judge only a range that parses.

Fix: write the network's address with its prefix length, host bits zero (``172.30.0.0/16``).

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
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 172.30.0.0/16, exclude: [172.30.0.0/24]}}
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
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
        fabric: {type: infiniband, nics: 8, network: {master: ib0, range: 172.30.0.1/16}}
    workloads:
      - {namespace: training, type: training, podSecurity: baseline-ipc-lock}
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator

from generator import addresses
from generator.errors import InputError
from generator.inputs.consistency.in313_fabric_network_without_netdev import NETDEV_FABRICS
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN314", "fabric-range-invalid", "error", "A fabric network's range or exclude is not a valid CIDR", __doc__
)


Network = ipaddress.IPv4Network | ipaddress.IPv6Network


def _cidr_errors(value: object, where: tuple, doc: Located) -> Iterator[InputError]:
    for problem in addresses.cidr_problems(value):
        hint = f"write {problem.canonical}" if problem.canonical else "write a CIDR such as 172.30.0.0/16"
        yield doc.error(f"CIDR {value!r} {problem.message}", where, hint, at_value=True)


def networks(spec: dict) -> Iterator[tuple[int, dict, dict, tuple]]:
    """(index, pool, network, path) per pool with a fabric network on a fabric that can carry one."""
    for i, pool in enumerate(spec["nodePools"]):
        network = pool["fabric"].get("network")
        if network is not None and pool["fabric"]["type"] in NETDEV_FABRICS:
            yield i, pool, network, ("nodePools", i, "fabric", "network")


def valid_ranges(spec: dict) -> Iterator[tuple[int, dict, dict, tuple, Network]]:
    """As ``networks``, for the ranges that parse, with the parsed range."""
    for i, pool, network, base in networks(spec):
        rng = addresses.parse_cidr(network["range"])
        if rng is not None and not addresses.cidr_problems(network["range"]):
            yield i, pool, network, base, rng


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, _, network, base in networks(spec):
        problems = list(_cidr_errors(network["range"], (*base, "range"), doc))
        yield from problems
        if problems or addresses.parse_cidr(network["range"]) is None:
            continue
        for j, cidr in enumerate(network.get("exclude", [])):
            yield from _cidr_errors(cidr, (*base, "exclude", j), doc)


CHECK = InputCheck(meta=META, check=check)
