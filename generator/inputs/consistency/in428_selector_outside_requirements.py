"""A provisioned pool whose ``nodeSelector`` asks ``karpenter.sh/capacity-type`` or
``node.kubernetes.io/instance-type`` for a value outside ``provisioning.capacityTypes`` or
``provisioning.instanceTypes``.

Rationale: the NodePool launches only the capacity and instance types it lists, and
Karpenter labels each node with the ones it got: a selector for another value matches none
of the pool's nodes.

Fix: add the value to ``capacityTypes`` (or ``instanceTypes``), or drop the selector and select
the pool by a label of its own.

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
        nodeSelector: {karpenter.sh/nodepool: h100, karpenter.sh/capacity-type: on-demand}
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
        nodeSelector: {karpenter.sh/nodepool: h100, karpenter.sh/capacity-type: spot}
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
    "IN428",
    "selector-outside-requirements",
    "error",
    "A provisioned pool selects a capacity or instance type its NodePool does not launch",
    __doc__,
)

CAPACITY_TYPE_LABEL = "karpenter.sh/capacity-type"
INSTANCE_TYPE_LABEL = "node.kubernetes.io/instance-type"


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool, _, _ in provisioned(spec, facts):
        prov = pool["provisioning"]
        for key, value in pool["nodeSelector"].items():
            where = ("nodePools", i, "nodeSelector", key)
            if key == CAPACITY_TYPE_LABEL and value not in prov["capacityTypes"]:
                yield doc.error(
                    f"{key}={value} is not among provisioning.capacityTypes {prov['capacityTypes']}",
                    where,
                    "add it to capacityTypes, or drop the selector",
                    at_value=True,
                )
            elif key == INSTANCE_TYPE_LABEL and value not in prov.get("instanceTypes", [value]):
                yield doc.error(
                    f"{key}={value} is not among provisioning.instanceTypes",
                    where,
                    "select the pool by a label of its own",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
