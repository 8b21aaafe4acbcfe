"""A provisioned pool's instance family none of whose sizes has the pool's ``gpu.model`` and
``gpu.perNode``.

Rationale: Karpenter launches any size of a listed family that fits a pending pod; if no
size carries the GPUs the pool declares, every node it launches breaks the numbers rendered
for the pool (quotas, the device plugin's settings, the queues' capacity).

Fix: list a family with a size that carries the pool's GPUs, or correct ``gpu.model`` and
``gpu.perNode``.

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
          instanceFamilies: [p5]
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
          instanceFamilies: [p4d]
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.consistency.in435_instance_types_missing import known_for
from generator.inputs.consistency.in439_instance_family_unknown import families
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN440",
    "instance-family-gpu-mismatch",
    "error",
    "An instance family with no size that carries the pool's GPUs",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        if karpenter["familyLabel"] is None:
            continue  # IN438
        gpu = pool["gpu"]
        for j, family in enumerate(pool["provisioning"].get("instanceFamilies", [])):
            sizes = families(karpenter, family)
            if sizes and not any(
                t["gpuModel"] == gpu.get("model") and t["gpus"] == gpu["perNode"] for t in sizes.values()
            ):
                model = next(iter(sizes.values()))["gpuModel"]
                yield doc.error(
                    f"instance family {family!r} has no size with {gpu['perNode']} x {gpu.get('model')} (it carries "
                    f"{model}, {sorted({t['gpus'] for t in sizes.values()})} per instance)",
                    (*base, "instanceFamilies", j),
                    known_for(karpenter, gpu),
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
