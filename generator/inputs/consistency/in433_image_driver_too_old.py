"""A provisioned NVIDIA pool whose pinned image ships an NVIDIA driver branch older than
``gpu.nvidia.driver.minVersion``.

Rationale: the EKS-optimized AMI ships its NVIDIA driver (the provider table's
``imageDrivers``, per release and Kubernetes version, from the awslabs/amazon-eks-ami release
notes); the validation DaemonSet refuses a node whose driver is older than ``minVersion``, so
every node of the pool would fail it.

Fix: pin a newer release (``aws ssm get-parameters-by-path`` lists them, docs/node-platform.md), or
lower ``minVersion``.

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
          image: {family: al2023, version: v20260724}
          nodeClass: {role: KarpenterNodeRole-x}
    gpu:
      nvidia: {mode: device-plugin, driver: {minVersion: "590.0"}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in432_image_version_not_release import releases
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN433",
    "image-driver-too-old",
    "error",
    "A pinned node image ships an NVIDIA driver branch older than the minimum",
    __doc__,
)


def drivers(spec: dict, facts: dict) -> Iterator[tuple[dict, str, str, str, tuple]]:
    """(image, the image's "family@version", its NVIDIA driver branch, minVersion, path of image)
    per provisioned NVIDIA pool whose pinned release the provider table knows."""
    for pool, karpenter, image, where in releases(spec, facts):
        if pool["gpu"]["vendor"] != "nvidia":
            continue
        known = karpenter["imageDrivers"].get(image["family"], [])
        entry = next((r for r in known if r["since"] <= image["version"]), None)
        if entry is None:
            continue  # a release the table does not know: docs/node-platform.md says how to check it
        branch = entry["nvidia"].get(spec["kubernetesVersion"], entry["nvidia"]["default"])
        alias = f"{image['family']}@{image['version']}"
        yield image, alias, branch, spec["gpu"]["nvidia"]["driver"]["minVersion"], where


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, alias, branch, wanted, where in drivers(spec, facts):
        if int(wanted.split(".")[0]) > int(branch):
            yield doc.error(
                f"{alias} ships the NVIDIA {branch} driver branch on Kubernetes {spec['kubernetesVersion']}, "
                f"older than gpu.nvidia.driver.minVersion {wanted}: the validation DaemonSet would fail every node",
                (*where, "version"),
                "pin a newer release (`aws ssm get-parameters-by-path` lists them, docs/node-platform.md), or lower "
                "minVersion",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
