"""Inconsistent network, tuning and storage inputs: exit 2, the offending line, and a hint."""

from __future__ import annotations

import re

import pytest
from clusterinput import BASE, replace, write

# BASE with tunnel routing (and without BIG TCP, which needs native routing).
TUNNEL = replace(
    "      mode: native\n      ipv4NativeRoutingCIDR: 10.244.0.0/16\n",
    "      mode: tunnel\n",
    replace("    bigTCP: {ipv4: true}\n", ""),
)
IPAM = "    ipam: {podCIDRs: [10.244.0.0/16]}\n"

# (id, input text, fragment of the line the error must point at, message fragment, hint fragment)
CASES = [
    (
        "native-routing-pod-cidr-outside-native-cidr",
        replace(IPAM, "    ipam:\n      podCIDRs:\n        - 10.244.0.0/16\n        - 10.0.0.0/8\n"),
        "- 10.0.0.0/8",
        "pod CIDR 10.0.0.0/8 is not inside ipv4NativeRoutingCIDR 10.244.0.0/16",
        "widen routing.ipv4NativeRoutingCIDR",
    ),
    (
        "native-routing-on-the-chart-default-pool",
        replace(IPAM, ""),
        "ipv4NativeRoutingCIDR: 10.244.0.0/16",
        "native routing without a pod CIDR",
        "ipam.podCIDRs",
    ),
    (
        "native-routing-ipam-without-pod-cidr",
        replace(IPAM, "    ipam: {maskSize: 26}\n"),
        "ipam: {maskSize: 26}",
        "native routing without a pod CIDR",
        "ipam.mode: kubernetes",
    ),
    (
        "node-range-wider-than-the-pool",
        replace(IPAM, "    ipam: {podCIDRs: [10.244.0.0/16], maskSize: 12}\n"),
        "maskSize: 12",
        "node ranges of /12 do not fit in the pod CIDR 10.244.0.0/16",
        "maskSize to 16",
    ),
    (
        "mask-size-in-kubernetes-ipam",
        replace(IPAM, "    ipam: {mode: kubernetes, maskSize: 24}\n"),
        "maskSize: 24",
        "maskSize only applies to cluster-pool",
        "mode: cluster-pool",
    ),
    (
        "pod-cidr-not-a-cidr",
        replace(IPAM, "    ipam:\n      podCIDRs:\n        - 10.244.0.0/33\n"),
        "- 10.244.0.0/33",
        "IPv4 CIDR '10.244.0.0/33' must be a valid CIDR value",  # IN101's, and only IN101's
        "network.cilium.ipam.podCIDRs[0]",
    ),
    (
        "native-routing-on-aks",
        replace("provider: generic", "provider: aks"),
        "mode: native",
        "bring your own CNI",
        "routing.mode: tunnel",
    ),
    (
        "geneve-on-aks",
        replace(
            "provider: generic",
            "provider: aks",
            replace("      mode: tunnel\n", "      mode: tunnel\n      tunnelProtocol: geneve\n", TUNNEL),
        ),
        "tunnelProtocol: geneve",
        "only VXLAN",
        "tunnelProtocol: vxlan",
    ),
    (
        "tunnel-routing-on-gke",
        replace("provider: generic", "provider: gke", replace(IPAM, "    ipam: {mode: kubernetes}\n", TUNNEL)),
        "mode: tunnel",
        "GKE integration runs only with native routing",
        "routing.mode: native",
    ),
    (
        "cluster-pool-on-gke",
        replace(
            "provider: generic", "provider: gke", replace("ipam: {podCIDRs", "ipam: {mode: cluster-pool, podCIDRs")
        ),
        "ipam: {mode: cluster-pool",
        "node's own pod CIDR",
        "ipam.mode: kubernetes",
    ),
    (
        "kpr-without-service-host",
        replace("    k8sServiceHost: api.example.com\n", ""),
        "kubeProxyReplacement: true",
        "without k8sServiceHost",
        "k8sServiceHost",
    ),
    (
        "native-routing-without-cidr",
        replace("      ipv4NativeRoutingCIDR: 10.244.0.0/16\n", ""),
        "mode: native",
        "needs ipv4NativeRoutingCIDR",
        "ipv4NativeRoutingCIDR",
    ),
    (
        "bbr-without-bandwidth-manager",
        replace("{enabled: true, bbr: true}", "{enabled: false, bbr: true}"),
        "bandwidthManager:",
        "BBR needs the bandwidth manager",
        "bandwidthManager.enabled: true",
    ),
    (
        "big-tcp-in-tunnel",
        replace("      mode: native\n      ipv4NativeRoutingCIDR: 10.244.0.0/16\n", "      mode: tunnel\n"),
        "bigTCP:",
        "BIG TCP (ipv4) needs native routing",
        "routing.mode: native",
    ),
    (
        "big-tcp-without-bpf-masquerade",
        replace("    bigTCP: {ipv4: true}\n", "    bigTCP: {ipv4: true}\n    bpf: {masquerade: false}\n"),
        "bigTCP:",
        "needs eBPF masquerading",
        "bpf.masquerade: true",
    ),
    (
        "masquerade-without-kpr",
        replace(
            "    kubeProxyReplacement: true\n    k8sServiceHost: api.example.com\n",
            "    kubeProxyReplacement: false\n    bpf: {masquerade: true}\n",
            replace("    bigTCP: {ipv4: true}\n", ""),
        ),
        "bpf: {masquerade: true}",
        "eBPF masquerading needs kube-proxy replacement",
        "kubeProxyReplacement: true",
    ),
    (
        "auto-direct-routes-in-tunnel",
        replace(
            "      mode: native\n      ipv4NativeRoutingCIDR: 10.244.0.0/16\n",
            "      mode: tunnel\n      autoDirectNodeRoutes: true\n",
            replace("    bigTCP: {ipv4: true}\n", ""),
        ),
        "autoDirectNodeRoutes: true",
        "autoDirectNodeRoutes cannot be used with tunnel",
        "routing.mode: native",
    ),
    (
        "xdp-without-kpr",
        replace(
            "    kubeProxyReplacement: true\n    k8sServiceHost: api.example.com\n",
            "    kubeProxyReplacement: false\n    bpf: {masquerade: false}\n    loadBalancer: {acceleration: native}\n",
            replace("    bigTCP: {ipv4: true}\n", ""),
        ),
        "acceleration: native",
        "XDP acceleration needs kube-proxy replacement",
        "kubeProxyReplacement: true",
    ),
    (
        "netkit-with-legacy-host-routing",
        replace("    bigTCP: {ipv4: true}\n", "    bpf: {datapathMode: netkit, hostLegacyRouting: true}\n"),
        "datapathMode: netkit",
        "datapathMode netkit needs eBPF host routing",
        "hostLegacyRouting: false",
    ),
    (
        "bbr-on-the-aks-default-kernel",
        replace("provider: generic", "provider: aks", replace('    nodeKernel: "6.8"\n', "", TUNNEL)),
        "bandwidthManager: {enabled: true, bbr: true}",
        "BBR needs kernel >= 5.18; the nodes run 5.15 (the aks default node image (Ubuntu 22.04))",
        "nodeKernel",
    ),
    (
        "bbr-with-an-unknown-kernel",
        replace('    nodeKernel: "6.8"\n', ""),
        "bandwidthManager: {enabled: true, bbr: true}",
        "nodes' kernel is not known for provider generic",
        "set network.cilium.nodeKernel",
    ),
    (
        "ipv4-big-tcp-below-6.3",
        replace('nodeKernel: "6.8"', 'nodeKernel: "6.1"'),
        "bigTCP: {ipv4: true}",
        "IPv4 BIG TCP needs kernel >= 6.3; the nodes run 6.1",
        "turn IPv4 BIG TCP off",
    ),
    (
        "bbr-on-eks-before-al2023",
        replace(
            "provider: generic",
            "provider: eks",
            replace(
                'kubernetesVersion: "1.32"', 'kubernetesVersion: "1.29"', replace('    nodeKernel: "6.8"\n', "", TUNNEL)
            ),
        ),
        "bandwidthManager: {enabled: true, bbr: true}",
        "the nodes run 5.10 (the eks default node image (Amazon Linux 2))",
        "kernel >= 5.18",
    ),
    (
        "dsr-over-vxlan",
        replace("    bandwidthManager:", "    loadBalancer: {mode: dsr}\n    bandwidthManager:", TUNNEL),
        "loadBalancer: {mode: dsr}",
        "cannot be used with VXLAN tunnelling",
        "dsrDispatch: geneve",
    ),
    (
        "hybrid-over-geneve-without-geneve-dispatch",
        replace(
            "      mode: tunnel\n",
            "      mode: tunnel\n      tunnelProtocol: geneve\n",
            replace("    bandwidthManager:", "    loadBalancer: {mode: hybrid}\n    bandwidthManager:", TUNNEL),
        ),
        "loadBalancer: {mode: hybrid}",
        "requires Geneve dispatch",
        "dsrDispatch: geneve",
    ),
    (
        "geneve-dispatch-with-native-routing",
        replace("    bandwidthManager:", "    loadBalancer: {mode: dsr, dsrDispatch: geneve}\n    bandwidthManager:"),
        "dsrDispatch: geneve",
        "requires the Geneve tunnel protocol",
        "tunnelProtocol: geneve",
    ),
    (
        "dsr-dispatch-without-dsr",
        replace("    bandwidthManager:", "    loadBalancer: {dsrDispatch: ipip}\n    bandwidthManager:"),
        "dsrDispatch: ipip",
        "only applies to DSR",
        "loadBalancer.mode: dsr",
    ),
    (
        "big-tcp-with-netkit",
        replace("    bigTCP: {ipv4: true}\n", "    bigTCP: {ipv4: true}\n    bpf: {datapathMode: netkit}\n"),
        "datapathMode: netkit",
        "BIG TCP is supported only with the veth datapath",
        "datapathMode: veth",
    ),
    (
        "xdp-without-pinned-devices",
        replace("    bandwidthManager:", "    loadBalancer: {acceleration: native}\n    bandwidthManager:"),
        "acceleration: native",
        "attaches the XDP program to every detected device",
        "network.cilium.devices",
    ),
    (
        "hubble-ui-without-relay",
        replace("    bigTCP: {ipv4: true}\n", "    bigTCP: {ipv4: true}\n    hubble: {relay: false, ui: true}\n"),
        "hubble: {relay: false, ui: true}",
        "Hubble UI needs Hubble Relay",
        "hubble.relay: true",
    ),
    (
        "typed-value-overridden-in-values",
        replace("    bigTCP: {ipv4: true}\n", "    bigTCP: {ipv4: true}\n    values:\n      routingMode: tunnel\n"),
        "routingMode: tunnel",
        "values.routingMode overrides the typed network.cilium.routing.mode",
        "set network.cilium.routing.mode instead",
    ),
    (
        "nested-typed-value-overridden-in-values",
        replace(
            "    bigTCP: {ipv4: true}\n",
            "    bigTCP: {ipv4: true}\n    values:\n      loadBalancer:\n        mode: dsr\n",
        ),
        "mode: dsr",
        "values.loadBalancer.mode overrides",
        "network.cilium.loadBalancer.mode",
    ),
    (
        "legacy-kpr-in-values",
        replace("    bigTCP: {ipv4: true}\n", "    bigTCP: {ipv4: true}\n    values: {kubeProxyReplacement: strict}\n"),
        "values: {kubeProxyReplacement: strict}",
        "legacy value",
        "kubeProxyReplacement: true or false",
    ),
    (
        "runtime-1gi-hugepages",
        replace("{2Mi: 1024, 1Gi: 16, bootReserved: true}", "{2Mi: 1024, 1Gi: 16}"),
        "hugepages: {2Mi: 1024, 1Gi: 16}",
        "1Gi huge pages at runtime",
        "bootReserved: true",
    ),
    (
        "tuned-1gi-without-machine-config-pool-role",
        replace("{2Mi: 1024, 1Gi: 16, bootReserved: true}", "{2Mi: 1024, 1Gi: 16}") + "tuning: {backend: tuned}\n",
        "nodeSelector: {agentpool: gpu}",
        "MachineConfigPool",
        "node-role.kubernetes.io/worker-gpu",
    ),
    (
        "namespaced-sysctl-net-ipv4",
        replace(
            "      kernel.pid_max: 4194304\n",
            "      kernel.pid_max: 4194304\n      net.ipv4.tcp_rmem: 4096 87380 16777216\n",
        ),
        "net.ipv4.tcp_rmem",
        "namespaced sysctl",
        "securityContext.sysctls",
    ),
    (
        "namespaced-sysctl-kernel-shm",
        replace("      kernel.pid_max: 4194304\n", "      kernel.pid_max: 4194304\n      kernel.shmmax: 68719476736\n"),
        "kernel.shmmax",
        "namespaced sysctl",
        "securityContext.sysctls",
    ),
    (
        "namespaced-sysctl-somaxconn",
        replace("      kernel.pid_max: 4194304\n", "      kernel.pid_max: 4194304\n      net.core.somaxconn: 4096\n"),
        "net.core.somaxconn",
        "namespaced sysctl",
        "securityContext.sysctls",
    ),
    (
        "pid-max-out-of-range",
        replace("kernel.pid_max: 4194304", "kernel.pid_max: 4194305"),
        "kernel.pid_max: 4194305",
        "out of range",
        "between 301 and 4194304",
    ),
    (
        "rmem-max-not-a-number",
        replace("net.core.rmem_max: 268435456", "net.core.rmem_max: lots"),
        "net.core.rmem_max: lots",
        "must be an integer",
        "whole number",
    ),
    (
        "nr-hugepages-as-sysctl",
        replace("      kernel.pid_max: 4194304\n", "      kernel.pid_max: 4194304\n      vm.nr_hugepages: 512\n"),
        "vm.nr_hugepages",
        "default size only",
        "hugepages",
    ),
    (
        "storage-class-used-twice",
        BASE + "  - name: gpu2\n    nodeSelector: {agentpool: gpu2}\n    localNvme: {storageClass: local-nvme}\n",
        "storageClass: local-nvme}",
        "used twice",
        "own storageClass",
    ),
    (
        "fstype-in-block-mode",
        replace("      mode: Filesystem\n", "      mode: Block\n      fsType: ext4\n"),
        "fsType: ext4",
        "no effect in Block mode",
        "remove fsType",
    ),
    (
        "force-without-prepare",
        replace("prepare: {enabled: true}", "prepare: {force: true}"),
        "prepare: {force: true}",
        "not enabled",
        "prepare.enabled: true",
    ),
    (
        "host-dir-over-system-directory",
        replace(
            "      storageClass: local-nvme\n", "      storageClass: local-nvme\n      hostDir: /var/lib/kubelet\n"
        ),
        "hostDir: /var/lib/kubelet",
        "system directory",
        "/mnt/disks/local-nvme",
    ),
]


@pytest.mark.parametrize(
    "text",
    [
        BASE,
        replace("provider: generic", "provider: aks", TUNNEL),
        replace(
            "provider: generic",
            "provider: gke",
            replace(IPAM, "    ipam: {mode: kubernetes, podCIDRs: [10.244.0.0/17]}\n"),
        ),
        replace(
            "      mode: tunnel\n",
            "      mode: tunnel\n      tunnelProtocol: geneve\n",
            replace(
                "    bandwidthManager:",
                "    loadBalancer: {mode: dsr, dsrDispatch: geneve}\n    bandwidthManager:",
                TUNNEL,
            ),
        ),
        replace(
            "    bandwidthManager:",
            "    loadBalancer: {acceleration: native, mode: dsr}\n    devices: [bond0, ens+]\n    bandwidthManager:",
        ),
    ],
    ids=["base", "aks-tunnel", "gke-native-kubernetes-ipam", "dsr-over-geneve", "xdp-on-pinned-devices"],
)
def test_consistent_input_renders(project, run, text):
    write(project, text)
    result = run(project, "render", "t")
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize(
    ("text", "line_fragment", "message", "hint"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_inconsistent_input_is_located_with_a_hint(project, run, text, line_fragment, message, hint):
    path = write(project, text)
    expected_line = next(n for n, line in enumerate(text.splitlines(), 1) if line_fragment in line)
    result = run(project, "render", "t")
    assert result.exit_code == 2, result.output
    located = re.findall(r"clusters/t/cluster\.yaml:(\d+):\d+: error: (.*)\n  hint: (.*)", result.output)
    matching = [(int(line), msg, h) for line, msg, h in located if message in msg]
    assert matching, result.output
    line, _, hint_text = matching[0]
    assert line == expected_line, result.output
    assert hint in hint_text
    assert path.is_file()


def test_legacy_kube_proxy_replacement_string_is_refused_by_the_schema(project, run):
    write(project, replace("kubeProxyReplacement: true", "kubeProxyReplacement: strict"))
    result = run(project, "render", "t")
    assert result.exit_code == 2
    assert re.search(r"cluster\.yaml:7:\d+: error: .*", result.output), result.output


def test_minimal_input_is_told_that_cilium_replaces_kube_proxy_by_default(project, run):
    write(project, BASE[: BASE.index("network:")] + "nodePools:\n  - name: a\n    nodeSelector: {a: b}\n")
    result = run(project, "render", "t")
    assert result.exit_code == 2
    assert "Cilium replaces kube-proxy by default" in result.output
    assert "network.cilium.enabled: false" in result.output
