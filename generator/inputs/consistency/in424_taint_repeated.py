"""A provisioned pool's ``taints`` with two entries of the same key and effect.

Rationale: the NodePool puts the pool's taints on each Node it launches, and the API server
refuses a Node whose taints repeat a key and effect: Karpenter's node would never register.

Fix: keep one of them.

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
        taints:
          - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
          - {key: nvidia.com/gpu, value: present, effect: NoExecute}
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
        taints:
          - {key: nvidia.com/gpu, value: present, effect: NoSchedule}
          - {key: nvidia.com/gpu, value: other, effect: NoSchedule}
        provisioning:
          instanceTypes: [p5.48xlarge]
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

META = RuleMeta("IN424", "taint-repeated", "error", "A provisioned pool lists one taint key and effect twice", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool, _, _ in provisioned(spec, facts):
        seen: set[tuple[str, str]] = set()
        for j, taint in enumerate(pool["taints"]):
            pair = (taint["key"], taint["effect"])
            if pair in seen:
                yield doc.error(
                    f"taint {taint['key']}:{taint['effect']} is listed twice: the API server refuses a Node whose "
                    "taints repeat a key and effect",
                    ("nodePools", i, "taints", j),
                    "keep one of them",
                )
            seen.add(pair)


CHECK = InputCheck(meta=META, check=check)
