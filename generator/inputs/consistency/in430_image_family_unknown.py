"""A provisioned pool's ``provisioning.image.family`` that the provider's node class does not take.

Rationale: the node class picks the nodes' image by family (the EC2NodeClass's
``amiSelectorTerms`` alias, the AKSNodeClass's ``imageFamily``), from the families its CRD and
controller know (``nodeProvisioning.imageFamilies`` in docs/providers.md): another name is
refused, and Karpenter launches no node. The other image checks (IN431 to IN434) judge only a
family the provider takes.

Fix: use one of the provider's image families.

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
          image: {family: Ubuntu2404}

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
          image: {family: al2023}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN430", "image-family-unknown", "error", "An image family the provider's node class does not take", __doc__
)


def images(spec: dict, facts: dict) -> Iterator[tuple[dict, dict, dict, tuple]]:
    """(pool, Karpenter facts, image, path of image) per provisioned pool whose family the provider takes."""
    for _, pool, karpenter, base in provisioned(spec, facts):
        image = pool["provisioning"]["image"]
        if image["family"] in karpenter["imageFamilies"]:
            yield pool, karpenter, image, (*base, "image")


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        family = pool["provisioning"]["image"]["family"]
        if family not in karpenter["imageFamilies"]:
            yield doc.error(
                f"image family {family!r} is not one the provider's node class takes",
                (*base, "image", "family"),
                "use one of: " + ", ".join(karpenter["imageFamilies"]),
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
