"""A provisioned pool whose ``nodeSelector`` asks ``karpenter.sh/nodepool`` for another name.

Rationale: Karpenter labels each node it launches ``karpenter.sh/nodepool`` with its
NodePool's name, and the NodePool is named after the pool: a selector for another value
matches none of the pool's nodes, so its GPU pods never schedule.

Fix: set ``karpenter.sh/nodepool`` to the pool's name.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {enabled: false}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [p5.48xlarge]
          capacityTypes: [on-demand]
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {enabled: false}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: gpu}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [p5.48xlarge]
          capacityTypes: [on-demand]
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN427",
    "nodepool-label-not-pool-name",
    "error",
    "A provisioned pool selects karpenter.sh/nodepool other than its own name",
    __doc__,
)

NODEPOOL_LABEL = "karpenter.sh/nodepool"


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool, _, _ in provisioned(spec, facts):
        value = pool["nodeSelector"].get(NODEPOOL_LABEL)
        if value is not None and value != pool["name"]:
            yield doc.error(
                f"{NODEPOOL_LABEL}={value} selects no node of this pool: Karpenter labels its nodes "
                f"{NODEPOOL_LABEL}={pool['name']}",
                ("nodePools", i, "nodeSelector", NODEPOOL_LABEL),
                f"set {NODEPOOL_LABEL}: {pool['name']} (the NodePool is named after the pool)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
