"""A provisioned pool's taint whose key is in the ``karpenter.sh`` domain.

Rationale: Karpenter sets and removes the taints of its own domain (``karpenter.sh/disrupted``,
``karpenter.sh/unregistered``) as it manages a node's life: a pool taint there is one
Karpenter takes off or fights over.

Fix: use a key of your own.

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
          - {key: karpenter.sh/training, value: "true", effect: NoSchedule}
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

META = RuleMeta(
    "IN425", "taint-karpenter-domain", "error", "A provisioned pool's taint in the karpenter.sh domain", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool, _, _ in provisioned(spec, facts):
        for j, taint in enumerate(pool["taints"]):
            if taint["key"].split("/")[0].endswith("karpenter.sh"):
                yield doc.error(
                    f"taint {taint['key']} is in the karpenter.sh domain, which Karpenter sets and removes itself",
                    ("nodePools", i, "taints", j, "key"),
                    "use a key of your own",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
