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
- the legacy ``kubeProxyReplacement`` strings (``strict``/``partial``/``probe``/``disabled``) in
  the free-form ``values``: they no longer mean what they did (cilium/cilium#32711).
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.yamlpos import Located

BASE = ("network", "cilium")
LEGACY_KPR = ("strict", "partial", "probe", "disabled")


def _big_tcp_prerequisites(c: dict) -> list[tuple[str, str]]:
    """(what is missing, hint) for every BIG TCP prerequisite that is not met."""
    missing = []
    if c["routing"]["mode"] != "native":
        missing.append(("native routing (BIG TCP does not work through a tunnel)",
                        "set network.cilium.routing.mode: native with its ipv4NativeRoutingCIDR"))
    if not c["kubeProxyReplacement"]:
        missing.append(("kube-proxy replacement",
                        "set network.cilium.kubeProxyReplacement: true"))
    if not c["bpf"]["masquerade"]:
        missing.append(("eBPF masquerading", "set network.cilium.bpf.masquerade: true"))
    if c["bpf"]["hostLegacyRouting"]:
        missing.append(("eBPF host routing",
                        "set network.cilium.bpf.hostLegacyRouting: false (kernel >= 5.10)"))
    return missing


def check(spec: dict, doc: Located) -> Iterator[InputError]:
    c = spec["network"].get("cilium")
    if not c or not c["enabled"]:
        return
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
            + ("" if written else "; or keep kube-proxy (kubeProxyReplacement: false) or another CNI "
               "(network.cilium.enabled: false)"),
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
    legacy = c["values"].get("kubeProxyReplacement")
    if isinstance(legacy, str) and legacy in LEGACY_KPR:
        yield doc.error(
            f"kubeProxyReplacement {legacy!r} is a legacy value the chart no longer understands as before",
            BASE + ("values", "kubeProxyReplacement"),
            "use the typed network.cilium.kubeProxyReplacement: true or false instead",
            at_value=True,
        )
