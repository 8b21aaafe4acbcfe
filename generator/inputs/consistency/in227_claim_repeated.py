"""Two entries of ``workloads[].claims`` with one name.

Rationale: each claim renders a ResourceClaimTemplate of its name in the namespace; two
entries of one name render one object twice with different devices, and the API server keeps
the last applied: pods that reference the name get either.

Fix: give each claim template its own name.

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
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - namespace: training
        type: training
        claims: [{name: one-gpu, pool: b200}, {name: two-gpus, pool: b200, count: 2}]

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
        gpu: {vendor: nvidia, model: B200, perNode: 8, nodes: 2, allocation: dra}
    workloads:
      - namespace: training
        type: training
        claims: [{name: gpus, pool: b200}, {name: gpus, pool: b200, count: 2}]
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.repeats import repeats
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN227", "claim-repeated", "error", "Two claim templates of one name in a namespace", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, workload in enumerate(spec["workloads"]):
        for j, first, name in repeats((j, c["name"]) for j, c in enumerate(workload["claims"])):
            yield doc.error(
                f"claim template {name!r} is declared twice in {workload['namespace']} (first at claims[{first}])",
                ("workloads", i, "claims", j, "name"),
                "give each claim template its own name",
                at_value=True,
            )


CHECK = InputCheck(meta=META, check=check)
