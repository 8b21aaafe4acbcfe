"""A provisioned pool on AKS whose ``nodeClass.rootVolumeGiB`` is outside 30 to 2048.

Rationale: the AKSNodeClass CRD bounds ``spec.osDiskSizeGB`` to 30 to 2048
(Azure/karpenter-provider-azure v1.14.2): the API server refuses another size, and the
node class does not apply.

Fix: pick a size from 30 to 2048 GB (the default is 128).

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
          nodeClass: {rootVolumeGiB: 4096}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN422", "aks-os-disk-size", "error", "An AKSNodeClass OS disk size outside what the CRD takes", __doc__
)


# AKSNodeClass spec.osDiskSizeGB bounds (Azure/karpenter-provider-azure v1.14.2 CRD: 30 to 2048).
AKS_OS_DISK_GB = (30, 2048)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, _, karpenter, base in provisioned(spec, facts):
        if karpenter["nodeClass"]["kind"] == "EC2NodeClass":
            continue
        size = doc.data["nodePools"][i]["provisioning"].get("nodeClass", {}).get("rootVolumeGiB")
        if size is not None and not AKS_OS_DISK_GB[0] <= size <= AKS_OS_DISK_GB[1]:
            yield doc.error(
                f"an AKSNodeClass OS disk is {AKS_OS_DISK_GB[0]} to {AKS_OS_DISK_GB[1]} GB, not {size}",
                (*base, "nodeClass", "rootVolumeGiB"),
                "pick a size in that range (the default is 128)",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
