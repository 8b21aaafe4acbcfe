"""Two ComputeDomains of one name in a workload namespace.

Rationale: each entry of ``workloads[].computeDomains`` renders a ComputeDomain
(resource.nvidia.com) of its name in the namespace, and the ResourceClaimTemplate its pods
use; two entries of one name render one object twice with different pools, and the API server
keeps the last applied.

Fix: give each ComputeDomain its own name.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gb200
        nodeSelector: {agentpool: gb200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}
    workloads:
      - namespace: training
        type: training
        computeDomains: [{name: nvl72-a, pool: gb200}, {name: nvl72-b, pool: gb200}]

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.34"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: gb200
        nodeSelector: {agentpool: gb200}
        gpu: {vendor: nvidia, model: GB200, perNode: 4, nodes: 18, allocation: dra, multiNodeNVLink: true}
    workloads:
      - namespace: training
        type: training
        computeDomains: [{name: nvl72, pool: gb200}, {name: nvl72, pool: gb200}]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.repeats import repeats
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN223", "compute-domain-repeated", "error", "Two ComputeDomains of one name in a namespace", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        domains = workload["computeDomains"]
        for j, first, name in repeats((j, d["name"]) for j, d in enumerate(domains)):
            yield doc.error(
                f"ComputeDomain {name!r} is declared twice in {workload['namespace']} (first at computeDomains[{first}])",
                ("workloads", i, "computeDomains", j, "name"),
                "give each ComputeDomain its own name",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
