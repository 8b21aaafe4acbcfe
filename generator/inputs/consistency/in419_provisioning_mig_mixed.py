"""A provisioned NVIDIA pool whose ``gpu.mig.strategy`` is ``mixed``.

Rationale: Karpenter launches a node for a pending pod by the resources its instance types
advertise (``nvidia.com/gpu``): a pod that asks for ``nvidia.com/mig-*`` matches no instance
type, so Karpenter never launches a node for it and the pod stays Pending.

Fix: use ``mig.strategy: single`` (the slices are advertised as ``nvidia.com/gpu``), or leave the
pool to a node group.

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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2, mig: {strategy: single, profiles: {1g.10gb: 7}}}
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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2, mig: {strategy: mixed, profiles: {3g.40gb: 1, 2g.20gb: 1, 1g.10gb: 2}}}
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
    "IN419", "provisioning-mig-mixed", "error", "A Karpenter-provisioned pool with a mixed MIG layout", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, _, base in provisioned(spec, facts):
        gpu = pool["gpu"]
        if gpu["vendor"] == "nvidia" and gpu["mig"]["strategy"] == "mixed":
            yield doc.error(
                "Karpenter cannot provision a MIG `mixed` pool: it launches for a pending pod by the instance "
                "type's resources (nvidia.com/gpu), and pods that request nvidia.com/mig-* match no instance type",
                base,
                "use mig.strategy: single (slices are advertised as nvidia.com/gpu), or leave this pool to a node "
                "group",
            )


CHECK = InputCheck(meta=META, check=check)
