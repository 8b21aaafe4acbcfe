"""A provisioned pool whose ``nodeSelector`` has ``kubernetes.io/hostname`` or a label of the
``karpenter.sh`` or the provider's Karpenter domain other than ``karpenter.sh/nodepool`` and
``karpenter.sh/capacity-type``.

Rationale: the pool's ``nodeSelector`` becomes the NodePool's labels, and the NodePool
CRD refuses labels Karpenter sets itself (``IsRestrictedLabel`` in kubernetes-sigs/karpenter
v1.14.1 pkg/apis/v1/labels.go): the NodePool would not apply.

Fix: select the pool by ``karpenter.sh/nodepool: <pool>`` or a label of its own.

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
        nodeSelector: {karpenter.sh/nodepool: h100, example.com/team: research}
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
        nodeSelector: {karpenter.sh/nodepool: h100, karpenter.k8s.aws/instance-family: p5}
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
from generator.inputs.consistency.in427_nodepool_label_not_pool_name import NODEPOOL_LABEL
from generator.inputs.consistency.in428_selector_outside_requirements import CAPACITY_TYPE_LABEL
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN429",
    "selector-label-restricted",
    "error",
    "A provisioned pool selects a label Karpenter restricts in a NodePool",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, pool, karpenter, _ in provisioned(spec, facts):
        # the provider's Karpenter restricts its own label domain too (karpenter.k8s.aws, karpenter.azure.com)
        provider_domain = karpenter["nodeClass"]["apiVersion"].split("/")[0]
        for key in pool["nodeSelector"]:
            if key == "kubernetes.io/hostname" or (
                key.split("/")[0].endswith(("karpenter.sh", provider_domain))
                and key not in (NODEPOOL_LABEL, CAPACITY_TYPE_LABEL)
            ):
                yield doc.error(
                    f"label {key} is restricted in a NodePool (Karpenter sets it itself)",
                    ("nodePools", i, "nodeSelector"),
                    f"select the pool by {NODEPOOL_LABEL}: {pool['name']} or a label of its own",
                )


CHECK = InputCheck(meta=META, check=check)
