"""``ipam.maskSize`` is set while ``ipam.mode`` is ``kubernetes``.

Rationale: ``maskSize`` sizes each node's range in Cilium's cluster pool
(``clusterPoolIPv4MaskSize``); in ``kubernetes`` mode the controller manager allocates node
pod CIDRs (``--node-cidr-mask-size``) and the setting would do nothing.

Fix: drop ``network.cilium.ipam.maskSize``, or use ``ipam.mode: cluster-pool``.

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
        ipam: {mode: cluster-pool, podCIDRs: [10.244.0.0/16], maskSize: 24}
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
        ipam: {mode: kubernetes, maskSize: 24}
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

META = RuleMeta("IN333", "cilium-mask-size-of-kubernetes-ipam", "error", "ipam.maskSize with kubernetes IPAM", __doc__)


def find(spec: dict, doc: Located, facts: dict, c: dict) -> Iterator[InputError]:
    if c["ipam"]["mode"] == "kubernetes" and cilium.written_setting(doc, "ipam", "maskSize"):
        yield doc.error(
            "maskSize only applies to cluster-pool IPAM: in kubernetes mode the controller "
            "manager sizes each node's range (--node-cidr-mask-size)",
            BASE + ("ipam", "maskSize"),
            "drop network.cilium.ipam.maskSize, or use mode: cluster-pool",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=cilium.configured(find))
