"""A ``nodeClass.role``, ``subnetTags`` or ``securityGroupTags`` on a provider whose node class
is not an EC2NodeClass.

Rationale: the IAM role and the subnet and security group discovery tags are fields of
Karpenter's AWS EC2NodeClass; an AKSNodeClass has none of them, so the setting would render
nowhere and the nodes would not get what it asks.

Fix: remove the setting.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [Standard_ND96isr_H100_v5]
          nodeClass: {rootVolumeGiB: 256}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {karpenter.sh/nodepool: h100}
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
        provisioning:
          instanceTypes: [Standard_ND96isr_H100_v5]
          nodeClass: {role: KarpenterNodeRole-x}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN423",
    "node-class-setting-of-other-kind",
    "error",
    "An EC2NodeClass setting on a provider whose node class has none",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, _, karpenter, base in provisioned(spec, facts):
        kind = karpenter["nodeClass"]["kind"]
        if kind == "EC2NodeClass":
            continue
        node_class = doc.data["nodePools"][i]["provisioning"].get("nodeClass", {})
        for key in ("role", "subnetTags", "securityGroupTags"):
            if key in node_class:
                yield doc.error(
                    f"nodeClass.{key} is an EC2NodeClass setting; {kind} has none",
                    (*base, "nodeClass", key),
                    f"remove nodeClass.{key}",
                )


CHECK = InputCheck(meta=META, check=check)
