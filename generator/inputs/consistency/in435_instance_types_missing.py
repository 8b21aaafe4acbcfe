"""A provisioned pool without ``provisioning.instanceTypes`` or ``instanceFamilies``.

Rationale: without an instance type requirement the NodePool lets Karpenter launch any
instance type that fits a pending pod, GPU or not, and the pool's ``gpu`` (which the other
provisioning checks hold the instance types to) describes nodes it may never get.

Fix: list ``instanceTypes`` (or ``instanceFamilies`` on EKS) that carry the pool's GPUs; the
message's hint names the ones the provider table knows.

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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
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
    "IN435", "instance-types-missing", "error", "A provisioned pool names no instance types or families", __doc__
)


def known_for(karpenter: dict, gpu: dict) -> str:
    """The provider table's instance types with the pool's GPUs, as a hint."""
    names = [n for n, t in karpenter["instanceTypes"].items() if t["gpuModel"] == gpu.get("model")]
    fitting = [n for n in names if karpenter["instanceTypes"][n]["gpus"] == gpu["perNode"]]
    if fitting:
        return "the provider table knows these with " + f"{gpu['perNode']} x {gpu.get('model')}: " + ", ".join(fitting)
    if names:
        return f"the provider table knows these with {gpu.get('model')}: " + ", ".join(names)
    return "the provider table knows no instance type with GPU model " + repr(gpu.get("model"))


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        prov = pool["provisioning"]
        if "instanceTypes" not in prov and "instanceFamilies" not in prov:
            yield doc.error(
                "provisioning names no instanceTypes or instanceFamilies: Karpenter would launch any instance type "
                "that fits a pending pod, GPU or not",
                base,
                known_for(karpenter, pool["gpu"]),
            )


CHECK = InputCheck(meta=META, check=check)
