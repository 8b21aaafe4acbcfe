"""A provisioned pool's ``provisioning.instanceFamilies`` on a provider whose Karpenter labels no
instance family.

Rationale: a family renders as a NodePool requirement on the provider's instance family
label (``karpenter.k8s.aws/instance-family`` on EKS); the provider table names none for this
provider (``familyLabel`` in docs/providers.md), so the requirement could not be written.

Fix: list ``instanceTypes`` instead.

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
          instanceFamilies: [NDv5]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN438",
    "instance-families-unsupported",
    "error",
    "Instance families on a provider whose Karpenter has no family label",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        if pool["provisioning"].get("instanceFamilies") and karpenter["familyLabel"] is None:
            yield doc.error(
                "instanceFamilies is not supported on this provider",
                (*base, "instanceFamilies"),
                "list instanceTypes instead",
            )


CHECK = InputCheck(meta=META, check=check)
