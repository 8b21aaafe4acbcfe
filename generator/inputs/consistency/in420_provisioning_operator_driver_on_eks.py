"""A provisioned NVIDIA pool on EKS with the GPU Operator managing the driver.

Rationale: Karpenter's EC2NodeClass picks the EKS-optimized AMI's NVIDIA variant for NVIDIA
instance types, and that image ships the driver. The GPU Operator's driver container is for
nodes without one: where the driver is preinstalled its documentation has
``driver.enabled=false``, which ``driver.managed: false`` renders.

Fix: set ``gpu.nvidia.driver.managed: false`` (or use ``mode: device-plugin``).

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
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: operator, driver: {managed: false}}

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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [p5.48xlarge]
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: operator}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN420",
    "provisioning-operator-driver-on-eks",
    "error",
    "The GPU Operator installs a driver on nodes Karpenter launches with the EKS NVIDIA AMI",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    nvidia = spec["gpu"]["nvidia"]
    if nvidia["mode"] != "operator" or not nvidia["driver"]["managed"]:
        return
    for _, pool, karpenter, base in provisioned(spec, facts):
        if karpenter["nodeClass"]["kind"] == "EC2NodeClass" and pool["gpu"]["vendor"] == "nvidia":
            yield doc.error(
                "the EKS-optimized AMI Karpenter picks for NVIDIA instance types ships the driver, so the GPU "
                "Operator must not install one",
                (*base, "image"),
                "set gpu.nvidia.driver.managed: false",
            )


CHECK = InputCheck(meta=META, check=check)
