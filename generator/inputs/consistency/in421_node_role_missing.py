"""A provisioned pool on EKS without ``provisioning.nodeClass.role``.

Rationale: an EC2NodeClass names the IAM role its nodes run as, or an instance profile: its
CRD refuses a node class with neither ("must specify exactly one of ['role',
'instanceProfile']"), so the node class does not apply, Karpenter launches no node and the
pool's pods stay Pending.

Fix: set ``nodeClass.role`` to the node role Karpenter's install created (``KarpenterNodeRole-<cluster>``
in the getting-started guide), with an EKS access entry of type ``EC2_LINUX``.

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
          nodeClass: {rootVolumeGiB: 200}
    gpu:
      nvidia: {mode: device-plugin}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in416_provisioning_without_karpenter import provisioned
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN421", "node-role-missing", "error", "An EC2NodeClass without the nodes' IAM role", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, _, karpenter, base in provisioned(spec, facts):
        raw = doc.data["nodePools"][i]["provisioning"]
        if karpenter["nodeClass"]["kind"] == "EC2NodeClass" and "role" not in raw.get("nodeClass", {}):
            yield doc.error(
                "an EC2NodeClass needs the IAM role of its nodes: provisioning.nodeClass.role",
                (*base, *(("nodeClass",) if "nodeClass" in raw else ())),
                "set nodeClass.role to the node role Karpenter's install created (KarpenterNodeRole-<cluster> in "
                "the getting-started guide), with an EKS access entry of type EC2_LINUX",
            )


CHECK = InputCheck(meta=META, check=check)
