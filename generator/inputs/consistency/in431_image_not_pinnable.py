"""A provisioned pool's ``provisioning.image.version`` other than ``latest`` on a provider whose
node class cannot pin an image version.

Rationale: the AKSNodeClass picks the newest node image of its family and has no field
that pins a version (``nodeProvisioning.imagePinning`` in docs/providers.md): the pin would
render nowhere, and nodes would roll to each new image as it is published.

Fix: set ``image.version: latest``, and pace image rolls with ``disruption.maxNodes`` and
``disruption.window``.

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
          image: {family: Ubuntu2404, version: latest}

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
          image: {family: Ubuntu2404, version: v20250721}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in430_image_family_unknown import images
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN431", "image-not-pinnable", "error", "A pinned image version on a node class that cannot pin one", __doc__
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, karpenter, image, where in images(spec, facts):
        if image["version"] != "latest" and not karpenter["imagePinning"]:
            yield doc.error(
                f"{karpenter['nodeClass']['kind']} cannot pin an image version: nodes always get the newest image "
                "of the family",
                (*where, "version"),
                "set image.version: latest, and pace image rolls with disruption.maxNodes and disruption.window",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
