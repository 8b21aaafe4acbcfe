"""A ``nodePools[].provisioning`` on a pool that has no ``gpu``.

Rationale: the provisioning checks hold the NodePool's instance types against the pool's
GPU model and count (the provider table in docs/providers.md): without ``gpu`` there is
nothing to check them against, and gpu-gitops renders NodePools for GPU pools only.

Fix: add the pool's ``gpu``, or remove ``provisioning``.

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
    provider: eks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    network:
      cilium: {enabled: false}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        provisioning:
          instanceTypes: [p5.48xlarge]
          capacityTypes: [on-demand]
          image: {family: al2023, version: v20260724}
          disruption:
            window: {days: [sat], start: "02:00", duration: 6h}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN417", "provisioning-without-gpu", "error", "A pool's provisioning on a pool without GPUs", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    if facts["nodeProvisioning"] is None:
        return  # IN416
    for i, pool in enumerate(spec["nodePools"]):
        if "provisioning" in pool and "gpu" not in pool:
            yield doc.error(
                "provisioning is for GPU pools: its instance types are checked against the pool's gpu",
                ("nodePools", i, "provisioning"),
                "add the pool's gpu, or remove provisioning",
            )


CHECK = InputCheck(meta=META, check=check)
