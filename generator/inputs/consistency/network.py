"""Cilium: settings that only work together (each one a known way to break a cluster's network).

- kube-proxy replacement without ``k8sServiceHost``: once kube-proxy is gone nothing programs
  the API server's ClusterIP before the agent runs, so the agent cannot reach it
  (cilium/cilium#35440).
- native routing without ``ipv4NativeRoutingCIDR``: the agent refuses to start.
- ``autoDirectNodeRoutes`` with tunnelling: the agent refuses it (packets go through the tunnel).
- eBPF masquerading needs the eBPF NodePort that kube-proxy replacement brings.
- BBR needs the bandwidth manager and eBPF host routing.
- BIG TCP needs native routing, eBPF masquerading, kube-proxy replacement and eBPF host routing.
- XDP acceleration of services needs kube-proxy replacement (it accelerates eBPF NodePort).
- netkit devices need eBPF host routing.
- pod addresses the network does not route: with native routing every pod CIDR must lie inside
  ``ipv4NativeRoutingCIDR`` (the chart's own cluster-pool default, 10.0.0.0/8, rarely does), and a
  node's range (``maskSize``) must fit in the pool.
- the managed-cloud integrations the chart enforces: AKS "bring your own CNI" needs tunnel routing
  over VXLAN, GKE needs native routing on the nodes' own pod CIDRs (cilium/cilium#29674, #36226).
- features the nodes' kernel cannot run (``nodeKernel``, defaulted from the provider's node
  image): the agent refuses BBR below 5.18, runs without BIG TCP below its minimum, and netkit
  needs 6.8.
- service load balancing the agent refuses: DSR over a VXLAN tunnel, DSR through a tunnel
  without Geneve dispatch, Geneve dispatch without a Geneve tunnel; BIG TCP with netkit.
- XDP acceleration without pinned ``devices``: the program would attach to every detected
  device, the RDMA NICs of GPU nodes included.
- the legacy ``kubeProxyReplacement`` strings (``strict``/``partial``/``probe``/``disabled``) in
  the free-form ``values``: they no longer mean what they did (cilium/cilium#32711).
"""

from __future__ import annotations

import ipaddress
from collections.abc import Iterator
from typing import Any

from generator.errors import InputError, InputWarning
from generator.yamlio.positions import Located

BASE = ("network", "cilium")
LEGACY_KPR = ("strict", "partial", "probe", "disabled")


# (what, kernel minimum, the agent's own words) for each kernel-bound feature in use, from the
# Cilium agent source (cilium/cilium v1.19):
# - BBR: pkg/datapath/linux/bandwidth/bandwidth.go probe() fails start-up, "cannot enable
#   --enable-bbr, needs kernel 5.18 or newer" (bpf_skb_set_tstamp).
# - BIG TCP: pkg/datapath/linux/bigtcp/bigtcp.go startBIGTCP(), "needs kernel 6.3 or newer"
#   (IPv4) / "5.19 or newer" (IPv6); the agent then silently runs without it.
# - netkit: docs.cilium.io operations/performance/tuning "netkit device mode" (6.8).
def _kernel_features(c: dict) -> list[tuple[tuple[str, ...], str, tuple[int, int]]]:
    """(input path, feature, minimum kernel) of each kernel-bound feature the input turns on."""
    wanted: list[tuple[tuple[str, ...], str, tuple[int, int]]] = []
    if c["bandwidthManager"]["bbr"]:
        wanted.append((("bandwidthManager", "bbr"), "BBR", (5, 18)))
    if c["bigTCP"]["ipv4"]:
        wanted.append((("bigTCP", "ipv4"), "IPv4 BIG TCP", (6, 3)))
    if c["bigTCP"]["ipv6"]:
        wanted.append((("bigTCP", "ipv6"), "IPv6 BIG TCP", (5, 19)))
    if c["bpf"]["datapathMode"] != "veth":
        wanted.append((("bpf", "datapathMode"), f"the {c['bpf']['datapathMode']} datapath", (6, 8)))
    return wanted


def _major_minor(version: str) -> tuple[int, int]:
    major, minor = version.split(".")[:2]
    return int(major), int(minor)


def node_kernel(spec: dict, facts: dict) -> tuple[tuple[int, int], str] | None:
    """(kernel, where it comes from) of the nodes: the input's, else the provider default."""
    c = spec["network"]["cilium"]
    if "nodeKernel" in c:
        major, minor = (int(x) for x in c["nodeKernel"].split("."))
        return (major, minor), "network.cilium.nodeKernel" + (f" ({c['nodeImage']})" if "nodeImage" in c else "")
    version = _major_minor(spec["kubernetesVersion"])
    for entry in facts["nodeKernels"]:
        if version >= _major_minor(entry["since"]):
            return _major_minor(entry["kernel"]), f"the {spec['provider']} default node image ({entry['image']})"
    return None


def _kernel_errors(spec: dict, facts: dict, c: dict, doc: Located) -> Iterator[InputError]:
    known = node_kernel(spec, facts)
    for at, feature, minimum in _kernel_features(c):
        need = f"{minimum[0]}.{minimum[1]}"
        if known is None:
            yield doc.error(
                f"{feature} needs kernel >= {need}, and the nodes' kernel is not known for provider {spec['provider']}",
                BASE + at,
                f'set network.cilium.nodeKernel to the oldest node kernel (`uname -r`, e.g. "6.8"), '
                f"or turn {feature} off",
                at_value=True,
            )
        elif known[0] < minimum:
            kernel, source = known
            yield doc.error(
                f"{feature} needs kernel >= {need}; the nodes run {kernel[0]}.{kernel[1]} ({source})",
                BASE + at,
                f"turn {feature} off, or use a node image with kernel >= {need} and set "
                "network.cilium.nodeKernel to its version",
                at_value=True,
            )


def _load_balancer_errors(c: dict, doc: Located) -> Iterator[InputError]:
    """What pkg/kpr/initializer/kube_proxy_replacement.go (cilium/cilium v1.19,
    InitKubeProxyReplacementOptions) and pkg/datapath/linux/bigtcp validateConfig refuse."""
    lb, routing = c["loadBalancer"], c["routing"]
    tunnel = routing["mode"] == "tunnel"
    dsr = lb["mode"] in ("dsr", "hybrid")  # LoadBalancerUsesDSR(): both
    dispatch = lb.get("dsrDispatch", "opt")
    if dsr and tunnel and routing["tunnelProtocol"] == "vxlan":
        yield doc.error(
            f"loadBalancer.mode {lb['mode']} cannot be used with VXLAN tunnelling: the agent refuses to start",
            BASE + ("loadBalancer", "mode"),
            "use loadBalancer.mode: snat, or routing.tunnelProtocol: geneve with loadBalancer.dsrDispatch: geneve, "
            "or native routing",
            at_value=True,
        )
    elif dsr and tunnel and dispatch != "geneve":
        yield doc.error(
            f"tunnel routing with loadBalancer.mode {lb['mode']} requires Geneve dispatch",
            BASE + ("loadBalancer", "dsrDispatch") if "dsrDispatch" in lb else BASE + ("loadBalancer", "mode"),
            "set network.cilium.loadBalancer.dsrDispatch: geneve",
            at_value=True,
        )
    if dsr and dispatch == "geneve" and not (tunnel and routing["tunnelProtocol"] == "geneve"):
        yield doc.error(
            "loadBalancer.dsrDispatch geneve requires the Geneve tunnel protocol",
            BASE + ("loadBalancer", "dsrDispatch"),
            "set routing.mode: tunnel with tunnelProtocol: geneve, or dsrDispatch: opt (native routing)",
            at_value=True,
        )
    if "dsrDispatch" in lb and not dsr:
        yield doc.error(
            f"loadBalancer.dsrDispatch only applies to DSR, not to mode {lb['mode']}",
            BASE + ("loadBalancer", "dsrDispatch"),
            "drop dsrDispatch, or set loadBalancer.mode: dsr",
            at_value=True,
        )
    if (c["bigTCP"]["ipv4"] or c["bigTCP"]["ipv6"]) and c["bpf"]["datapathMode"] != "veth":
        yield doc.error(
            f"BIG TCP is supported only with the veth datapath, not {c['bpf']['datapathMode']}",
            BASE + ("bpf", "datapathMode"),
            "use bpf.datapathMode: veth, or turn BIG TCP off",
            at_value=True,
        )
    if lb["acceleration"] != "disabled" and "devices" not in c:
        yield doc.error(
            "XDP acceleration without network.cilium.devices attaches the XDP program to every detected "
            "device, the GPU nodes' RDMA NICs included",
            BASE + ("loadBalancer", "acceleration"),
            "set network.cilium.devices to the nodes' service-facing interfaces, e.g. [eth0] or [bond0]",
            at_value=True,
        )


def _big_tcp_prerequisites(c: dict) -> list[tuple[str, str]]:
    """(what is missing, hint) for every BIG TCP prerequisite that is not met."""
    missing = []
    if c["routing"]["mode"] != "native":
        missing.append(
            (
                "native routing (BIG TCP does not work through a tunnel)",
                "set network.cilium.routing.mode: native with its ipv4NativeRoutingCIDR",
            )
        )
    if not c["kubeProxyReplacement"]:
        missing.append(("kube-proxy replacement", "set network.cilium.kubeProxyReplacement: true"))
    if not c["bpf"]["masquerade"]:
        missing.append(("eBPF masquerading", "set network.cilium.bpf.masquerade: true"))
    if c["bpf"]["hostLegacyRouting"]:
        missing.append(("eBPF host routing", "set network.cilium.bpf.hostLegacyRouting: false (kernel >= 5.10)"))
    return missing


def _network(text: str) -> ipaddress.IPv4Network | None:
    """The CIDR as a network (host bits ignored), or None when it is not an IPv4 CIDR."""
    try:
        return ipaddress.IPv4Network(text, strict=False)
    except ValueError:
        return None


def _ipam_errors(c: dict, doc: Located) -> Iterator[InputError]:
    ipam, routing = c["ipam"], c["routing"]
    written = doc.data.get("network", {}).get("cilium", {}).get("ipam", {})
    pools = []
    for i, text in enumerate(ipam.get("podCIDRs", [])):
        net = _network(text)
        if net is None:
            yield doc.error(
                f"{text!r} is not an IPv4 CIDR",
                BASE + ("ipam", "podCIDRs", i),
                "write a network address and prefix length, e.g. 10.244.0.0/16",
            )
        else:
            pools.append((i, net))
    if ipam["mode"] == "kubernetes" and "maskSize" in written:
        yield doc.error(
            "maskSize only applies to cluster-pool IPAM: in kubernetes mode the controller "
            "manager sizes each node's range (--node-cidr-mask-size)",
            BASE + ("ipam", "maskSize"),
            "drop network.cilium.ipam.maskSize, or use mode: cluster-pool",
            at_value=True,
        )
    if ipam["mode"] == "cluster-pool":
        for i, net in pools:
            if ipam["maskSize"] < net.prefixlen:
                yield doc.error(
                    f"node ranges of /{ipam['maskSize']} do not fit in the pod CIDR {net}",
                    BASE + ("ipam", "maskSize"),
                    f"set network.cilium.ipam.maskSize to {net.prefixlen} or more (or widen podCIDRs[{i}])",
                    at_value=True,
                )
    if routing["mode"] != "native" or "ipv4NativeRoutingCIDR" not in routing:
        return
    native = _network(routing["ipv4NativeRoutingCIDR"])
    if native is None:
        yield doc.error(
            f"{routing['ipv4NativeRoutingCIDR']!r} is not an IPv4 CIDR",
            BASE + ("routing", "ipv4NativeRoutingCIDR"),
            "write a network address and prefix length, e.g. 10.244.0.0/16",
            at_value=True,
        )
        return
    if ipam["mode"] == "cluster-pool" and "podCIDRs" not in ipam:
        yield doc.error(
            "native routing without a pod CIDR: the chart would hand out pod addresses from 10.0.0.0/8, "
            f"outside ipv4NativeRoutingCIDR {native}, which the network does not route",
            BASE + ("ipam",) if written else BASE + ("routing", "ipv4NativeRoutingCIDR"),
            f"set network.cilium.ipam.podCIDRs to the pod range inside {native} (e.g. [{native}]), "
            "or ipam.mode: kubernetes when the controller manager allocates node pod CIDRs",
            at_value=not written,
        )
    for i, net in pools:
        if not net.subnet_of(native):
            yield doc.error(
                f"pod CIDR {net} is not inside ipv4NativeRoutingCIDR {native}: with native routing those "
                "pods' traffic is neither routed by the network nor masqueraded",
                BASE + ("ipam", "podCIDRs", i),
                f"use a pod CIDR inside {native}, or widen routing.ipv4NativeRoutingCIDR to cover {net}",
            )


def _provider_errors(facts: dict, c: dict, doc: Located) -> Iterator[InputError]:
    """The routing and IPAM the provider's Cilium integration needs (``ciliumConstraints`` in
    ``libsonnet/providers.json``, each with its source)."""
    for rule in facts["ciliumConstraints"]:
        when = rule.get("when")
        if when is not None and _at(c, when["path"]) != when["equals"]:
            continue
        value = _at(c, rule["path"])
        if value not in rule["allowed"]:
            yield doc.error(
                rule["message"].format(value=value), BASE + tuple(rule["path"]), rule["hint"], at_value=True
            )


def _at(c: dict, path: list[str]) -> Any:
    for key in path:
        c = c[key]
    return c


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    c = spec["network"]["cilium"]
    if not c["enabled"]:
        return
    found = list(_cilium_errors(spec, doc, facts, c))
    errors = [e for e in found if not isinstance(e, InputWarning)]
    if errors and "cilium" not in doc.data.get("network", {}):
        # Cilium is on only by the provider's default: one error, at the provider, whose first
        # hint is the smallest edit that renders (the cluster keeps the CNI it has).
        yield doc.error(
            f"Cilium is on by default for provider {spec['provider']} (ciliumByDefault in docs/providers.md), "
            "and its defaults need settings the input does not give: " + "; ".join(e.message for e in errors),
            ("provider",),
            "set network.cilium.enabled: false if the cluster already runs a CNI; to install Cilium, "
            + "; ".join(e.hint for e in errors),
            at_value=True,
        )
        yield from (e for e in found if isinstance(e, InputWarning))
        return
    yield from found


def _cilium_errors(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    yield from _ipam_errors(c, doc)
    yield from _provider_errors(facts, c, doc)
    yield from _kernel_errors(spec, facts, c, doc)
    yield from _load_balancer_errors(c, doc)
    kpr = c["kubeProxyReplacement"]
    if kpr and "k8sServiceHost" not in c:
        written = "kubeProxyReplacement" in doc.data.get("network", {}).get("cilium", {})
        yield doc.error(
            ("kubeProxyReplacement" if written else "Cilium replaces kube-proxy by default, and")
            + " without k8sServiceHost: with kube-proxy gone, the agent cannot reach the API server "
            "through its ClusterIP",
            BASE + ("kubeProxyReplacement",),
            "set network.cilium.k8sServiceHost (and k8sServicePort) to the API server's real address, "
            "e.g. the cloud endpoint host name"
            + (
                ""
                if written
                else "; or keep kube-proxy (kubeProxyReplacement: false) or another CNI (network.cilium.enabled: false)"
            ),
            at_value=True,
        )
    routing = c["routing"]
    if routing["mode"] == "native" and "ipv4NativeRoutingCIDR" not in routing:
        yield doc.error(
            "native routing needs ipv4NativeRoutingCIDR: the CIDR the network routes without masquerading",
            BASE + ("routing", "mode"),
            "set network.cilium.routing.ipv4NativeRoutingCIDR to a CIDR covering the pod CIDR (e.g. 10.244.0.0/16)",
            at_value=True,
        )
    if routing["mode"] == "tunnel" and routing["autoDirectNodeRoutes"]:
        yield doc.error(
            "autoDirectNodeRoutes cannot be used with tunnel routing",
            BASE + ("routing", "autoDirectNodeRoutes"),
            "use routing.mode: native (all nodes on one L2 segment), or drop autoDirectNodeRoutes",
            at_value=True,
        )
    if c["bpf"]["masquerade"] and not kpr:
        yield doc.error(
            "eBPF masquerading needs kube-proxy replacement (eBPF NodePort)",
            BASE + ("bpf", "masquerade"),
            "set network.cilium.kubeProxyReplacement: true, or bpf.masquerade: false for iptables masquerading",
            at_value=True,
        )
    bw = c["bandwidthManager"]
    if bw["bbr"] and not bw["enabled"]:
        yield doc.error(
            "BBR needs the bandwidth manager",
            BASE + ("bandwidthManager", "bbr"),
            "set network.cilium.bandwidthManager.enabled: true (kernel >= 5.18), or bbr: false",
            at_value=True,
        )
    if bw["bbr"] and c["bpf"]["hostLegacyRouting"]:
        yield doc.error(
            "BBR for pods needs eBPF host routing",
            BASE + ("bandwidthManager", "bbr"),
            "set network.cilium.bpf.hostLegacyRouting: false (kernel >= 5.10), or bbr: false",
            at_value=True,
        )
    if c["loadBalancer"]["acceleration"] != "disabled" and not kpr:
        yield doc.error(
            "XDP acceleration needs kube-proxy replacement: it accelerates Cilium's eBPF NodePort",
            BASE + ("loadBalancer", "acceleration"),
            "set network.cilium.kubeProxyReplacement: true, or loadBalancer.acceleration: disabled",
            at_value=True,
        )
    if c["bpf"]["datapathMode"] != "veth" and c["bpf"]["hostLegacyRouting"]:
        yield doc.error(
            f"datapathMode {c['bpf']['datapathMode']} needs eBPF host routing",
            BASE + ("bpf", "datapathMode"),
            "set network.cilium.bpf.hostLegacyRouting: false (kernel >= 6.8 for netkit), or datapathMode: veth",
            at_value=True,
        )
    for family in ("ipv4", "ipv6"):
        if not c["bigTCP"][family]:
            continue
        for what, hint in _big_tcp_prerequisites(c):
            yield doc.error(
                f"BIG TCP ({family}) needs {what}",
                BASE + ("bigTCP", family),
                hint,
                at_value=True,
            )
    if c["hubble"]["enabled"] and c["hubble"]["ui"] and not c["hubble"]["relay"]:
        yield doc.error(
            "Hubble UI needs Hubble Relay: the chart refuses to render without it",
            BASE + ("hubble", "ui"),
            "set network.cilium.hubble.relay: true, or ui: false",
            at_value=True,
        )
    legacy = c["values"].get("kubeProxyReplacement")
    if isinstance(legacy, str) and legacy in LEGACY_KPR:
        yield doc.error(
            f"kubeProxyReplacement {legacy!r} is a legacy value the chart no longer understands as before",
            BASE + ("values", "kubeProxyReplacement"),
            "use the typed network.cilium.kubeProxyReplacement: true or false instead",
            at_value=True,
        )
    yield from _shadowing_values_errors(c, doc)


# Chart values the typed input sets (cilium.libsonnet), by the typed field that owns them: set
# through `values` they would bypass every rule above. `ipam` stays open (ENI IPAM, read by
# keda.libsonnet, is only reachable through `values`).
TYPED_VALUES = {
    ("kubeProxyReplacement",): "kubeProxyReplacement",
    ("k8sServiceHost",): "k8sServiceHost",
    ("k8sServicePort",): "k8sServicePort",
    ("routingMode",): "routing.mode",
    ("tunnelProtocol",): "routing.tunnelProtocol",
    ("ipv4NativeRoutingCIDR",): "routing.ipv4NativeRoutingCIDR",
    ("autoDirectNodeRoutes",): "routing.autoDirectNodeRoutes",
    ("devices",): "devices",
    ("enableIPv4BIGTCP",): "bigTCP.ipv4",
    ("enableIPv6BIGTCP",): "bigTCP.ipv6",
    ("bandwidthManager", "enabled"): "bandwidthManager.enabled",
    ("bandwidthManager", "bbr"): "bandwidthManager.bbr",
    ("bpf", "masquerade"): "bpf.masquerade",
    ("bpf", "hostLegacyRouting"): "bpf.hostLegacyRouting",
    ("bpf", "datapathMode"): "bpf.datapathMode",
    ("loadBalancer", "acceleration"): "loadBalancer.acceleration",
    ("loadBalancer", "mode"): "loadBalancer.mode",
    ("loadBalancer", "dsrDispatch"): "loadBalancer.dsrDispatch",
    ("hubble", "enabled"): "hubble.enabled",
    ("hubble", "relay", "enabled"): "hubble.relay",
    ("hubble", "ui", "enabled"): "hubble.ui",
}


def _shadowing_values_errors(c: dict, doc: Located) -> Iterator[InputError]:
    """Free-form values that override a typed field, unchecked."""
    for path, typed in TYPED_VALUES.items():
        node = c["values"]
        for key in path:
            node = node.get(key, _ABSENT) if isinstance(node, dict) else _ABSENT
        if node is _ABSENT or (path == ("kubeProxyReplacement",) and node in LEGACY_KPR):
            continue
        yield doc.error(
            f"values.{'.'.join(path)} overrides the typed network.cilium.{typed}, past the checks that keep "
            "Cilium's settings coherent",
            BASE + ("values",) + path,
            f"set network.cilium.{typed} instead",
            at_value=True,
        )


_ABSENT = object()
