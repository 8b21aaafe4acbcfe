"""Two workload entries of one namespace.

Rationale: a workload entry renders its namespace's Namespace, ResourceQuota, LimitRange and
default-deny NetworkPolicies; two entries of one namespace render each of these objects twice
with different contents, and the API server keeps the last applied: the namespace gets one
entry's type and the other's quota.

Fix: merge the two entries: a namespace has one type, quota and policy set.

PASS:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training}
      - {namespace: serving, type: inference, allowEgressTo: []}

FAIL:

    apiVersion: gpu-gitops.io/v1alpha2
    kind: Cluster
    name: x
    kubernetesVersion: "1.33"
    provider: aks
    gitops: {engine: flux, repository: https://git.example.com/fleet.git}
    nodePools:
      - name: h100
        nodeSelector: {agentpool: h100}
        gpu: {vendor: nvidia, model: H100, perNode: 8, nodes: 2}
    workloads:
      - {namespace: training, type: training}
      - {namespace: training, type: inference, allowEgressTo: []}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.protocol import InputCheck
from generator.inputs.repeats import repeats
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN108", "namespace-repeated", "error", "Two workloads declare the same namespace", __doc__)


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    for i, first, ns in repeats((i, w["namespace"]) for i, w in enumerate(spec["workloads"])):
        yield doc.error(
            f"workload namespace {ns!r} is declared twice (first at workloads[{first}])",
            ("workloads", i, "namespace"),
            "merge the two entries: a namespace has one type, quota and policy set",
            at_value=True,
        )


CHECK = InputCheck(meta=META, check=check)
