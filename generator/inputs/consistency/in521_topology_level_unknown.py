"""A pool's ``topologyLevels`` with a level that is not one of the provider's network topology
labels, the NVLink clique or the hostname.

Rationale: a provider that labels its network topology owns its nodes' labels
(``topologyLevels`` in docs/providers.md: EKS and GKE), so only its levels are known there: a
level no node carries leaves every job that asks for it unplaced.

Fix: use the provider's levels, ``kubernetes.io/hostname``, or write ``[]`` for no topology.

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
        topologyLevels: [cloud.google.com/gce-topology-block, kubernetes.io/hostname]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs import queues
from generator.inputs.consistency.in519_topology_hostname_not_last import levels
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN521", "topology-level-unknown", "error", "A topology level the provider's nodes do not carry", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    known = facts["topologyLevels"]
    if not known:
        return
    for i, pool, j, level in levels(spec):
        if level == queues.HOSTNAME and j != len(pool["topologyLevels"]) - 1:
            continue  # IN519
        if level == queues.CLIQUE and not pool.get("gpu", {}).get("multiNodeNVLink", False):
            continue  # IN520
        if level not in (*known, queues.CLIQUE, queues.HOSTNAME):
            yield doc.error(
                f"nodePools[{i}].topologyLevels: {level} is unknown to provider {spec['provider']}, whose "
                "nodes carry " + ", ".join(known),
                ("nodePools", i, "topologyLevels", j),
                f"use the provider's levels ({', '.join(known)}), {queues.HOSTNAME}, or write [] for no topology",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
