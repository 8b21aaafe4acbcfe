"""A provisioned pool's pinned ``provisioning.image.version`` that is not written as a release of
its family.

Rationale: the EC2NodeClass alias ``<family>@<version>`` resolves the version through the
family's SSM parameters: al2023 releases are ``vYYYYMMDD`` (awslabs/amazon-eks-ami tags),
bottlerocket releases ``vX.Y.Z``. Another form resolves to no image, and Karpenter launches
no node.

Fix: write the family's release form: ``vYYYYMMDD`` for al2023, ``vX.Y.Z`` for bottlerocket.

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
        provisioning:
          instanceTypes: [p5.48xlarge]
          image: {family: al2023, version: v1.42.0}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in430_image_family_unknown import images
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN432", "image-version-not-release", "error", "A pinned image version that is not a release of its family", __doc__
)


def _release(image: dict) -> bool:
    return (image["version"].count(".") == 2) == (image["family"] == "bottlerocket")


def releases(spec: dict, facts: dict) -> Iterator[tuple[dict, dict, dict, tuple]]:
    """As ``images``, for the pinned versions written as a release of their family."""
    for pool, karpenter, image, where in images(spec, facts):
        if image["version"] != "latest" and karpenter["imagePinning"] and _release(image):
            yield pool, karpenter, image, where


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, karpenter, image, where in images(spec, facts):
        if image["version"] != "latest" and karpenter["imagePinning"] and not _release(image):
            yield doc.error(
                f"image version {image['version']!r} is not a {image['family']} release",
                (*where, "version"),
                "al2023 releases are vYYYYMMDD (awslabs/amazon-eks-ami tags), bottlerocket releases vX.Y.Z",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
