"""A Cilium feature the nodes' kernel cannot run (BBR, BIG TCP, the netkit datapath), or whose
kernel is not known: ``network.cilium.nodeKernel``, defaulted from the provider's node image.

Rationale: from the Cilium agent source (cilium/cilium v1.19): BBR needs kernel 5.18
(pkg/datapath/linux/bandwidth/bandwidth.go probe() fails start-up, "cannot enable
--enable-bbr, needs kernel 5.18 or newer"); BIG TCP needs 6.3 for IPv4 and 5.19 for IPv6
(pkg/datapath/linux/bigtcp/bigtcp.go: the agent then silently runs without it); the netkit
datapath needs 6.8 (docs.cilium.io operations/performance/tuning, "netkit device mode").

Fix: turn the feature off, or use a node image with a recent enough kernel and set
``network.cilium.nodeKernel`` to its version (``uname -r``, e.g. ``"6.8"``).

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        bandwidthManager: {enabled: true, bbr: true}
        bpf: {hostLegacyRouting: false}
        nodeKernel: "6.8"
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: generic
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium:
        k8sServiceHost: api.example.com
        bandwidthManager: {enabled: true, bbr: true}
        bpf: {hostLegacyRouting: false}
        nodeKernel: "5.15"
    nodePools:
      - name: system
        nodeSelector: {agentpool: system}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import cilium
from generator.inputs.cilium import BASE
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN337", "cilium-kernel-too-old", "error", "A Cilium feature the nodes' kernel cannot run", __doc__)


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


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    known = cilium.node_kernel(spec, facts)
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


CHECK = InputCheck(meta=META, check=cilium.configured(find))
