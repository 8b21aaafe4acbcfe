"""A provisioned NVIDIA pool whose pinned image ships the driver branch of
``gpu.nvidia.driver.minVersion``.

Rationale: the provider table knows the driver branch an EKS-optimized AMI release ships,
not its patch release: with the same branch as ``minVersion`` the node's driver may be older
than the minimum, and the validation DaemonSet then fails the node. It may be new enough, so
this is a warning.

Fix: check the release's notes (awslabs/amazon-eks-ami releases) or a node's ``nvidia-smi``; or
lower ``minVersion`` to the branch.

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
      nvidia: {mode: device-plugin, driver: {minVersion: "580.95"}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in433_image_driver_too_old import drivers
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN434",
    "image-driver-maybe-old",
    "warning",
    "A pinned node image ships the minimum's NVIDIA driver branch, maybe an older patch",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, alias, branch, wanted, where in drivers(spec, facts):
        if wanted.split(".")[0] == branch:
            yield doc.warning(
                f"{alias} ships an NVIDIA {branch}.x driver; whether it is at least gpu.nvidia.driver.minVersion "
                f"{wanted} depends on the patch release the AMI was built with",
                (*where, "version"),
                "check the release's notes (awslabs/amazon-eks-ami releases) or a node's nvidia-smi; the validation "
                "DaemonSet fails a node with an older driver",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
