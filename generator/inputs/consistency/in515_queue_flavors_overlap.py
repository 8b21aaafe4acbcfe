"""Two flavors, of one queue or of two, on pools whose ``nodeSelector``s one node can match.

Rationale: a ResourceFlavor selects its nodes by the pool's ``nodeSelector``: when one node
can match both pools' selectors (no key asks two values), Kueue counts that node's GPUs under
both flavors and admits more than the nodes hold. Reported once per pair, at the first flavor
of the later pool.

Fix: give the pools nodeSelectors that tell their nodes apart (a label with one value per pool).

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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
      - name: l40s
        nodeSelector: {agentpool: l40s}
        gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}
    workloads:
      - namespace: training
        type: training
        quota: {gpus: 16}
        queue:
          flavors:
            - {pool: h100, quota: {gpus: 16}}
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        queue:
          flavors:
            - {pool: l40s, quota: {gpus: 8}}

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
        gpu: {vendor: nvidia, model: H100-80GB, perNode: 8, nodes: 2}
      - name: l40s
        nodeSelector: {gpu: any}
        gpu: {vendor: nvidia, model: L40S, perNode: 4, nodes: 2}
    workloads:
      - namespace: training
        type: training
        quota: {gpus: 16}
        queue:
          flavors:
            - {pool: h100, quota: {gpus: 16}}
      - namespace: serving
        type: inference
        quota: {gpus: 8}
        allowEgressTo: []
        queue:
          flavors:
            - {pool: l40s, quota: {gpus: 8}}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator.errors import InputError
from generator.inputs.consistency.in508_queue_quota_without_accelerators import queued
from generator.inputs.protocol import InputCheck
from generator.rulemeta import RuleMeta
from generator.yamlio.positions import Located

META = RuleMeta("IN515", "queue-flavors-overlap", "error", "Two queue flavors whose pools one node can match", __doc__)


def _overlap(a: dict, b: dict) -> bool:
    """Whether one node could match both nodeSelectors (no key asks two values)."""
    return all(a[k] == b[k] for k in a.keys() & b.keys())


def check(spec: dict, doc: Located, facts: dict) -> Iterator[InputError]:
    pools = {p["name"]: p for p in spec["nodePools"] if "gpu" in p}
    first: dict[str, tuple] = {}
    for i, workload in queued(spec):
        for j, flavor in enumerate(workload["queue"].get("flavors") or []):
            if flavor["pool"] in pools:
                first.setdefault(flavor["pool"], ("workloads", i, "queue", "flavors", j, "pool"))
    names = list(first)
    for b, later in enumerate(names):
        for earlier in names[:b]:
            if _overlap(pools[earlier]["nodeSelector"], pools[later]["nodeSelector"]):
                yield doc.error(
                    f"the flavors of pools {earlier} and {later} overlap: a node can match both pools' "
                    "nodeSelectors, so Kueue would count its GPUs under two flavors",
                    first[later],
                    "give the pools nodeSelectors that tell their nodes apart (a label with one value per pool)",
                    at_value=True,
                )


CHECK = InputCheck(meta=META, check=check)
