"""A provisioned pool's ``provisioning.instanceTypes`` entry that is not in the provider table.

Rationale: the pool's GPUs are checked against the instance types the provider table
knows (``nodeProvisioning.instanceTypes`` in docs/providers.md, each with its GPU model and
count); an unknown name is a typo or an instance type gpu-gitops cannot vouch for, and a
misspelt one matches no offering, so Karpenter launches nothing.

Fix: use an instance type of the provider table; the message's hint names the ones with the
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
          instanceTypes: [p5.48xlarg]
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

META = RuleMeta("IN436", "instance-type-unknown", "error", "An instance type the provider table does not know", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for _, pool, karpenter, base in provisioned(spec, facts):
        for j, name in enumerate(pool["provisioning"].get("instanceTypes", [])):
            if name not in karpenter["instanceTypes"]:
                yield doc.error(
                    f"unknown instance type {name!r}: not in the provider table",
                    (*base, "instanceTypes", j),
                    known_for(karpenter, pool["gpu"]),
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
