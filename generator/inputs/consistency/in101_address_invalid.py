"""A CIDR, IP address, host or DNS name of the input that the API server (or Cilium) refuses.

Rationale: the schema's patterns only say what a value looks like: ``10.0.0.300/33`` matches
them, renders, and lands in a NetworkPolicy the API server refuses, which stalls its layer and
every layer after it. Values are judged as the API server judges them (``generator.addresses``,
after k8s.io/apimachinery ``pkg/util/validation/ip.go``). What the API server would only warn
about (leading zeros, an IPv4-mapped IPv6 address, bits beyond the prefix length) is an error
here too: it is refused under strict IP validation (the ``StrictIPCIDRValidation`` gate), and it
is ambiguous (``10.0.0.1/8``: the network or the address?). The Cilium values (native routing
CIDR, pod CIDRs, the API server host) are read by the agent with Go's parser, which refuses the
same values. Checked: ``network.apiServerCIDRs``, ``network.serviceCidr``, ``network.nodeLocalDNS.address``, Cilium's
``routing.ipv4NativeRoutingCIDR``, ``ipam.podCIDRs`` and ``k8sServiceHost``, and each
workload's ``allowEgressTo`` and ``allowEgressToFQDNs``.

Fix: write the value the hint gives (the network of a CIDR, the address without leading
zeros), or correct it.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - namespace: training
        type: training
        allowEgressTo: [10.20.0.0/16]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
    workloads:
      - namespace: training
        type: training
        allowEgressTo: [10.20.0.1/16]
"""

from __future__ import annotations

from collections.abc import Callable, Iterator

from generator import addresses, jsonpath
from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN101",
    "address-invalid",
    "error",
    "A CIDR, IP address, host or DNS name the API server (or Cilium) refuses",
    __doc__,
)


def _fields(spec: dict) -> Iterator[tuple[tuple, object, Callable[[object], list[addresses.Problem]], str]]:
    """(input path, value, check, what it is) of every address-like value of the input."""
    network = spec["network"]
    for i, cidr in enumerate(network.get("apiServerCIDRs", [])):
        yield ("network", "apiServerCIDRs", i), cidr, addresses.cidr_problems, "CIDR"
    if "serviceCidr" in network:
        yield ("network", "serviceCidr"), network["serviceCidr"], addresses.cidr_problems, "CIDR"
    dns = network.get("nodeLocalDNS", {})
    if "address" in dns:
        yield ("network", "nodeLocalDNS", "address"), dns["address"], _ipv4, "IPv4 address"
    cilium = network.get("cilium", {})
    routing = cilium.get("routing", {})
    if "ipv4NativeRoutingCIDR" in routing:
        yield (
            ("network", "cilium", "routing", "ipv4NativeRoutingCIDR"),
            routing["ipv4NativeRoutingCIDR"],
            _ipv4_cidr,
            "IPv4 CIDR",
        )
    for i, cidr in enumerate(cilium.get("ipam", {}).get("podCIDRs", [])):
        yield ("network", "cilium", "ipam", "podCIDRs", i), cidr, _ipv4_cidr, "IPv4 CIDR"
    if "k8sServiceHost" in cilium:
        yield ("network", "cilium", "k8sServiceHost"), cilium["k8sServiceHost"], addresses.host_problems, "host"
    for i, workload in enumerate(spec.get("workloads", [])):
        for j, cidr in enumerate(workload.get("allowEgressTo", [])):
            yield ("workloads", i, "allowEgressTo", j), cidr, addresses.cidr_problems, "CIDR"
        for j, name in enumerate(workload.get("allowEgressToFQDNs", [])):
            yield ("workloads", i, "allowEgressToFQDNs", j), name, _fqdn, "DNS name"


def _ipv4(value: object) -> list[addresses.Problem]:
    return addresses.ip_problems(value, ipv4_only=True)


def _ipv4_cidr(value: object) -> list[addresses.Problem]:
    return addresses.cidr_problems(value, ipv4_only=True)


def _fqdn(value: object) -> list[addresses.Problem]:
    return addresses.dns_name_problems(value, wildcard=True)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for path, value, judge, what in _fields(spec):
        for problem in judge(value):
            if problem.kind == addresses.AMBIGUOUS:
                message = (
                    f"{what} {value!r} {problem.message}: the API server accepts it only with a warning "
                    "and refuses it under strict IP validation"
                )
            else:
                message = f"{what} {value!r} {problem.message}: the API server (or Cilium) refuses it"
            hint = f"write {problem.canonical}" if problem.canonical else f"correct {jsonpath.dotted(path)}"
            yield doc.error(message, path, hint, at_value=True)


CHECK = InputCheck(meta=META, check=check)
