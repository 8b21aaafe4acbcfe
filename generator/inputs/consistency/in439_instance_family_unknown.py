"""A provisioned pool's ``provisioning.instanceFamilies`` entry with no size in the provider table.

Rationale: a family's sizes are checked against the pool's GPUs through the provider table
(its instance types named ``<family>.<size>``); a family with none there is a typo or one
gpu-gitops cannot vouch for, and a misspelt one matches no offering.

Fix: use a family of the provider table; the message's hint names the instance types with the
pool's GPUs.

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
          instanceFamilies: [p55]
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
    "IN439", "instance-family-unknown", "error", "An instance family the provider table does not know", __doc__
)


def families(karpenter: dict, family: str) -> dict[str, dict]:
    """The provider table's instance types of the family, by name."""
    prefix = family + karpenter["familySeparator"]
    return {name: t for name, t in karpenter["instanceTypes"].items() if name.startswith(prefix)}


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        if karpenter["familyLabel"] is None:
            continue  # IN438
        for j, family in enumerate(pool["provisioning"].get("instanceFamilies", [])):
            if not families(karpenter, family):
                yield doc.error(
                    f"unknown instance family {family!r}: not in the provider table",
                    (*base, "instanceFamilies", j),
                    known_for(karpenter, pool["gpu"]),
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
