"""A claim template named ``<domain>-channel`` beside a ComputeDomain ``<domain>``.

Rationale: the NVIDIA DRA driver's ComputeDomain controller creates a ResourceClaimTemplate
``<name>-channel`` for each ComputeDomain (k8s-dra-driver-gpu, ``spec.channel.resourceClaimTemplate``)
in its namespace; a claim of that name renders the same object, and the two owners overwrite
each other.

Fix: rename the claim.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}
    workloads:
      - namespace: training
        type: training
        computeDomains: [{name: nvl72, pool: b200}]
        claims: [{name: nvl72-gpus, pool: b200}]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: b200
        nodeSelector: {agentpool: b200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}
    workloads:
      - namespace: training
        type: training
        computeDomains: [{name: nvl72, pool: b200}]
        claims: [{name: nvl72-channel, pool: b200}]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta(
    "IN228",
    "claim-named-like-channel",
    "error",
    "A claim template takes the name of a ComputeDomain's channel template",
    __doc__,
)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        channels = {f"{d['name']}-channel" for d in workload["computeDomains"]}
        for j, claim in enumerate(workload["claims"]):
            if claim["name"] in channels:
                yield doc.error(
                    f"claim template {claim['name']!r} has the name the ComputeDomain's channel template takes",
                    ("workloads", i, "claims", j, "name"),
                    "rename the claim: a ComputeDomain <name> generates the ResourceClaimTemplate <name>-channel",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
