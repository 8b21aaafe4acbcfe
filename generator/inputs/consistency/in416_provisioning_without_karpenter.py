"""A ``nodePools[].provisioning`` on a provider whose Karpenter gpu-gitops does not render.

Rationale: ``provisioning`` renders a Karpenter NodePool and node class
(``components/node-provisioning.libsonnet``) from ``nodeProvisioning`` in docs/providers.md:
EKS (Karpenter's AWS provider) and AKS (node auto-provisioning). Elsewhere there is no
controller to read them, and the pool's nodes come from outside the cluster. The other
provisioning checks judge only pools this one and IN417 pass.

Fix: remove ``provisioning``: the pool's nodes are provisioned outside the cluster.

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
          disruption:
            window: {days: [sat], start: "02:00", duration: 6h}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: gke
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {enabled: false}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [a3-highgpu-8g]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN416",
    "provisioning-without-karpenter",
    "error",
    "A pool's provisioning on a provider without Karpenter node provisioning",
    __doc__,
)


def provisioned(spec: dict, facts: dict) -> Iterator[tuple[int, dict, dict, tuple]]:
    """(index, pool, the provider's Karpenter facts, path of provisioning) per GPU pool whose
    provisioning the provider's Karpenter renders: the pools the other provisioning checks judge."""
    karpenter = facts["nodeProvisioning"]
    if karpenter is None:
        return
    for i, pool in enumerate(spec["nodePools"]):
        if "provisioning" in pool and "gpu" in pool:
            yield i, pool, karpenter, ("nodePools", i, "provisioning")


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if facts["nodeProvisioning"] is not None:
        return
    for i, pool in enumerate(spec["nodePools"]):
        if "provisioning" in pool:
            yield doc.error(
                f"provider {spec['provider']} has no Karpenter node provisioning that gpu-gitops renders",
                ("nodePools", i, "provisioning"),
                "remove provisioning: its nodes are provisioned outside the cluster (eks and aks render a NodePool)",
            )


CHECK = InputCheck(meta=META, check=check)
