"""``bandwidthManager.bbr`` without ``bandwidthManager.enabled``, or with legacy host routing.

Rationale: BBR for pods is set up by the bandwidth manager, and needs eBPF host routing to keep the
packets' timestamps on their way to the pod (Cilium docs, "Bandwidth Manager", BBR congestion
control for pods: "requires eBPF host routing").

Fix: set ``network.cilium.bandwidthManager.enabled: true`` and ``bpf.hostLegacyRouting: false``
(kernel >= 5.10), or ``bbr: false``.

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
        bandwidthManager: {enabled: false, bbr: true}
        bpf: {hostLegacyRouting: false}
        nodeKernel: "6.8"
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

META = RuleMeta(
    "IN344", "cilium-bbr-prerequisites", "error", "BBR without the bandwidth manager or eBPF host routing", __doc__
)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    bw = c["bandwidthManager"]
    if not bw["bbr"]:
        return
    if not bw["enabled"]:
        yield doc.error(
            "BBR needs the bandwidth manager",
            BASE + ("bandwidthManager", "bbr"),
            "set network.cilium.bandwidthManager.enabled: true (kernel >= 5.18), or bbr: false",
            at_value=True,
        )
    if c["bpf"]["hostLegacyRouting"]:
        yield doc.error(
            "BBR for pods needs eBPF host routing",
            BASE + ("bandwidthManager", "bbr"),
            "set network.cilium.bpf.hostLegacyRouting: false (kernel >= 5.10), or bbr: false",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
