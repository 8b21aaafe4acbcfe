"""A pool's ``topologyLevels`` with ``kubernetes.io/hostname`` before another level.

Rationale: the levels of a Kueue Topology go from the outermost to the innermost, and the
Topology CRD accepts ``kubernetes.io/hostname`` only as the last level (its validation rule,
"the kubernetes.io/hostname label can only be used at the lowest level of
topology"): the Topology would not apply, and no queue of the pool could place a job by topology.

Fix: move ``kubernetes.io/hostname`` to the end.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        topologyLevels: [topology.k8s.aws/network-node-layer-1, kubernetes.io/hostname]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        topologyLevels: [kubernetes.io/hostname, topology.k8s.aws/network-node-layer-1]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN519", "topology-hostname-not-last", "error", "The hostname topology level is not the last", __doc__)


def levels(spec: dict) -> Iterator[tuple[int, dict, int, str]]:
    """(pool index, pool, level index, level) per topology level of a pool."""
    for i, pool in enumerate(spec["nodePools"]):
        for j, level in enumerate(pool.get("topologyLevels") or []):
            yield i, pool, j, level


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool, j, level in levels(spec):
        if level == queues.HOSTNAME and j != len(pool["topologyLevels"]) - 1:
            yield doc.error(
                f"nodePools[{i}].topologyLevels: {level} must be the last level (the Topology CRD refuses it "
                "elsewhere)",
                ("nodePools", i, "topologyLevels", j),
                f"move {level} to the end",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
