"""A provisioned pool's instance type whose GPU model or count is not the pool's ``gpu.model``
and ``gpu.perNode``.

Rationale: everything rendered for the pool (its quotas, the device plugin's settings,
the MIG layout, the queues' capacity) assumes the GPUs ``gpu`` declares: nodes of another
model or count break those numbers.

Fix: list instance types with the pool's GPUs, or correct ``gpu.model`` and ``gpu.perNode``.

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
          instanceTypes: [p4d.24xlarge]
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
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN437", "instance-type-gpu-mismatch", "error", "An instance type whose GPUs are not the pool's", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        gpu = pool["gpu"]
        for j, name in enumerate(pool["provisioning"].get("instanceTypes", [])):
            known = karpenter["instanceTypes"].get(name)
            if known is not None and (known["gpuModel"] != gpu.get("model") or known["gpus"] != gpu["perNode"]):
                yield doc.error(
                    f"instance type {name!r} has {known['gpus']} x {known['gpuModel']}, but the pool declares "
                    f"{gpu['perNode']} x {gpu.get('model')}",
                    (*base, "instanceTypes", j),
                    known_for(karpenter, gpu),
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
