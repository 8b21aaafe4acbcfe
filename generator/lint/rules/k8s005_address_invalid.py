"""An address, CIDR, port or DNS name the API server refuses in a NetworkPolicy, CiliumNetworkPolicy or Service.

Rationale: the OpenAPI schemas type these fields as plain strings and integers, so
``10.0.0.300/33`` in an ``ipBlock`` or port 70000 passes every schema check and is refused
by the API server at apply time, which stalls the GitOps layer that holds it and every layer
after it. The API server's own validation is applied here with the code the input checks use
(``generator.addresses``, after apimachinery's ``pkg/util/validation/ip.go`` and
``pkg/apis/networking/validation``): CIDRs and IPs that do not parse, prefix lengths beyond
32 or 128, ``except`` entries that are not a strict subset of their ``cidr``, port numbers
outside 1-65535, port names that are not IANA service names, an ``endPort`` without a numeric
``port`` or below it, a Service's ``externalName`` that is not a DNS name. In the legacy
fields (``ipBlock``, a Service's IPs and source ranges) leading zeros, IPv4-mapped IPv6
addresses and bits beyond the prefix length are accepted with a warning unless the
``StrictIPCIDRValidation`` feature gate is on (alpha since 1.33): a warning here, with the
canonical value. A CiliumNetworkPolicy's CIDRs have the CRD's ``format: cidr`` (Go's
``net.ParseCIDR``, which refuses leading zeros and masks host bits itself), its ports are
strings of 0-65535 or names, its ``toFQDNs`` names follow the CRD's patterns (at most 255
characters).

Fix: write the network address and prefix (``10.0.0.0/16``), a port in 1-65535 or a named
container port, ``except`` ranges inside ``cidr``.

PASS:

    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata:
      name: egress-object-store
      namespace: gpu-training
    spec:
      podSelector: {}
      policyTypes: [Egress]
      egress:
        - to:
            - ipBlock: {cidr: 10.20.0.0/16, except: [10.20.1.0/24]}
          ports:
            - {protocol: TCP, port: 443}

FAIL:

    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata:
      name: egress-object-store
      namespace: gpu-training
    spec:
      podSelector: {}
      policyTypes: [Egress]
      egress:
        - to:
            - ipBlock: {cidr: 10.0.0.300/33}
          ports:
            - {protocol: TCP, port: 443}
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from generator import addresses, regex
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S005",
    "address-invalid",
    "error",
    "An address, CIDR, port or DNS name the API server refuses (NetworkPolicy, CiliumNetworkPolicy, Service)",
    __doc__,
)

_CILIUM = ("CiliumNetworkPolicy", "CiliumClusterwideNetworkPolicy")
# The CRD's patterns of toFQDNs (cilium.io_ciliumnetworkpolicies.yaml, v1.19).
_MATCH_NAME = regex.compile(r"([-a-zA-Z0-9_]+[.]?)+")
_MATCH_PATTERN = regex.compile(r"([-a-zA-Z0-9_*]+[.]?)+")


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    obj = res.obj
    spec = obj.get("spec")
    api = obj["apiVersion"]
    if res.kind == "NetworkPolicy" and api == "networking.k8s.io/v1" and isinstance(spec, dict):
        yield from _network_policy(spec)
    elif res.kind == "Service" and api == "v1" and isinstance(spec, dict):
        yield from _service(spec)
    elif res.kind in _CILIUM and api.startswith("cilium.io/"):
        rules: list[tuple] = [("spec",)] if isinstance(spec, dict) else []
        specs = obj.get("specs")
        rules += [("specs", i) for i in range(len(specs))] if isinstance(specs, list) else []
        for at in rules:
            rule = obj[at[0]] if len(at) == 1 else obj["specs"][at[1]]
            if isinstance(rule, dict):
                yield from _cilium_rule(rule, at)


def _shown(value: object) -> str:
    """The value for a message, shortened when long (a 5,000-digit port is the schema's to report)."""
    text = repr(value)
    return text if len(text) <= 60 else f"{text[:21]}…' ({len(str(value))} characters)"


def _integer(value: object) -> bool:
    """A value of a field the schema types ``integer``: anything else is the schema's finding."""
    return isinstance(value, int) and not isinstance(value, bool)


def _hits(problems: list[addresses.Problem], path: tuple, what: str, value: object) -> Iterable[Hit]:
    """The hits of ``problems`` (most values have none: no generator is made for them)."""
    return _problem_hits(problems, path, what, value) if problems else ()


def _problem_hits(problems: list[addresses.Problem], path: tuple, what: str, value: object) -> Iterator[Hit]:
    value = _shown(value)
    for p in problems:
        if p.kind == addresses.AMBIGUOUS:
            yield Hit(
                f"{what} {value} {p.message}: accepted with a warning, refused under strict IP validation",
                path,
                at_value=True,
                hint=f"write {p.canonical}" if p.canonical else "",
                severity="warning",
            )
        else:
            yield Hit(f"{what} {value} {p.message}", path, at_value=True)


def _items(value: object) -> list:
    return value if isinstance(value, list) else []


def _network_policy(spec: dict) -> Iterator[Hit]:
    for direction, peers_key in (("ingress", "from"), ("egress", "to")):
        for i, rule in enumerate(_items(spec.get(direction))):
            if not isinstance(rule, dict):
                continue
            base = ("spec", direction, i)
            for j, peer in enumerate(_items(rule.get(peers_key))):
                block = peer.get("ipBlock") if isinstance(peer, dict) else None
                if isinstance(block, dict) and "cidr" in block:
                    at = (*base, peers_key, j, "ipBlock")
                    yield from _hits(addresses.cidr_problems(block["cidr"]), (*at, "cidr"), "CIDR", block["cidr"])
                    for k, excepted in enumerate(_items(block.get("except"))):
                        found = addresses.except_problems(block["cidr"], excepted)
                        yield from _hits(found, (*at, "except", k), "except", excepted)
            for j, port in enumerate(_items(rule.get("ports"))):
                if isinstance(port, dict):
                    yield from _policy_port(port, (*base, "ports", j))


def _policy_port(port: dict, at: tuple) -> Iterator[Hit]:
    """``ValidateNetworkPolicyPort``: a number or a name; ``endPort`` only after a numeric port."""
    if "port" in port:
        yield from _hits(addresses.port_problems(port["port"]), (*at, "port"), "port", port["port"])
    if "endPort" not in port:
        return
    end = port["endPort"]
    if not isinstance(port.get("port"), int) or isinstance(port.get("port"), bool):
        yield Hit("endPort may only be given with a numeric port", (*at, "endPort"), at_value=True)
    elif isinstance(end, int) and end < port["port"]:
        yield Hit(
            f"endPort {end} must be greater than or equal to port {port['port']}", (*at, "endPort"), at_value=True
        )
    else:
        yield from _hits(addresses.port_number_problems(end), (*at, "endPort"), "endPort", end)


def _service(spec: dict) -> Iterator[Hit]:
    for i, port in enumerate(_items(spec.get("ports"))):
        if not isinstance(port, dict):
            continue
        at = ("spec", "ports", i)
        if _integer(port.get("port")):
            yield from _hits(addresses.port_number_problems(port["port"]), (*at, "port"), "port", port["port"])
        if "targetPort" in port and port["targetPort"] != 0:  # 0 (or absent): the API server sets it to port
            yield from _hits(
                addresses.port_problems(port["targetPort"]), (*at, "targetPort"), "targetPort", port["targetPort"]
            )
        if _integer(port.get("nodePort")) and port["nodePort"]:  # 0: allocated by the API server
            yield from _hits(
                addresses.port_number_problems(port["nodePort"]), (*at, "nodePort"), "nodePort", port["nodePort"]
            )
    ips: list[tuple] = [("clusterIP", spec.get("clusterIP"))] if "clusterIP" in spec else []
    ips += [(("clusterIPs", i), ip) for i, ip in enumerate(_items(spec.get("clusterIPs")))]
    for key, ip in ips:
        if ip not in ("", "None"):  # unset, or a headless Service
            path = ("spec", *key) if isinstance(key, tuple) else ("spec", key)
            yield from _hits(addresses.ip_problems(ip), path, "IP", ip)
    for i, ip in enumerate(_items(spec.get("externalIPs"))):
        yield from _hits(addresses.ip_problems(ip), ("spec", "externalIPs", i), "IP", ip)
    if spec.get("loadBalancerIP"):
        yield from _hits(
            addresses.ip_problems(spec["loadBalancerIP"]), ("spec", "loadBalancerIP"), "IP", spec["loadBalancerIP"]
        )
    for i, cidr in enumerate(_items(spec.get("loadBalancerSourceRanges"))):
        value = cidr.strip() if isinstance(cidr, str) else cidr  # the API server trims the ranges
        yield from _hits(addresses.cidr_problems(value), ("spec", "loadBalancerSourceRanges", i), "CIDR", cidr)
    if spec.get("type") == "ExternalName" and isinstance(spec.get("externalName"), str):
        name = spec["externalName"].removesuffix(".")  # a trailing dot is allowed (ValidateService)
        yield from _hits(
            addresses.dns_name_problems(name), ("spec", "externalName"), "externalName", spec["externalName"]
        )


def _cilium_rule(rule: dict, base: tuple) -> Iterator[Hit]:
    for direction in ("ingress", "ingressDeny", "egress", "egressDeny"):
        source = "from" if direction.startswith("ingress") else "to"
        for i, entry in enumerate(_items(rule.get(direction))):
            if not isinstance(entry, dict):
                continue
            at = (*base, direction, i)
            for j, cidr in enumerate(_items(entry.get(f"{source}CIDR"))):
                yield from _cilium_cidr(cidr, (*at, f"{source}CIDR", j))
            for j, cidr_rule in enumerate(_items(entry.get(f"{source}CIDRSet"))):
                if isinstance(cidr_rule, dict) and "cidr" in cidr_rule:
                    yield from _cilium_cidr(cidr_rule["cidr"], (*at, f"{source}CIDRSet", j, "cidr"))
                    for k, excepted in enumerate(_items(cidr_rule.get("except"))):
                        yield from _cilium_cidr(excepted, (*at, f"{source}CIDRSet", j, "except", k))
            for j, fqdn in enumerate(_items(entry.get("toFQDNs"))):
                if isinstance(fqdn, dict):
                    yield from _cilium_fqdn(fqdn, (*at, "toFQDNs", j))
            for j, ports in enumerate(_items(entry.get("toPorts"))):
                for k, port in enumerate(_items(ports.get("ports") if isinstance(ports, dict) else None)):
                    if isinstance(port, dict) and isinstance(port.get("port"), str):
                        yield from _cilium_port(port["port"], (*at, "toPorts", j, "ports", k, "port"))


def _cilium_cidr(value: object, path: tuple) -> Iterator[Hit]:
    """``format: cidr`` (Go's ``net.ParseCIDR``): what does not parse, and leading zeros."""
    problems = [
        p
        for p in addresses.cidr_problems(value)
        if p.kind == addresses.REFUSED or p.message.startswith("must not have leading 0s")
    ]
    for p in problems:
        hint = f"write {p.canonical}" if p.canonical else ""
        yield Hit(f"CIDR {value!r} {p.message}", path, at_value=True, hint=hint)


def _cilium_port(value: str, path: tuple) -> Iterator[Hit]:
    if value.isdigit() and int(value) > 65535:
        yield Hit(f"port {value!r} must be between 0 and 65535, inclusive", path, at_value=True)


def _cilium_fqdn(fqdn: dict, at: tuple) -> Iterator[Hit]:
    for key, pattern in (("matchName", _MATCH_NAME), ("matchPattern", _MATCH_PATTERN)):
        value = fqdn.get(key)
        if not isinstance(value, str):
            continue
        if len(value) > 255:
            yield Hit(f"{key} must be no more than 255 characters", (*at, key), at_value=True)
        elif not pattern.fullmatch(value):
            yield Hit(
                f"{key} {value!r} is not a DNS name{' pattern' if key == 'matchPattern' else ''}",
                (*at, key),
                at_value=True,
            )


RULE = ObjectRule(meta=META, check=check, kinds=frozenset({"NetworkPolicy", "Service", *_CILIUM}))
