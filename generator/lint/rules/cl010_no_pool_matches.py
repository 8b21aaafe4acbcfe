"""A pod's node selector, required node affinity or tolerations fit none of the target cluster's node pools.

Rationale: the scheduler places a pod only on a node that carries every label of its
``nodeSelector``, satisfies one term of its required node affinity, and whose
``NoSchedule``/``NoExecute`` taints it tolerates; otherwise the pod stays Pending
(``0/12 nodes are available: 12 node(s) didn't match Pod's node affinity/selector``). With
``lint --cluster`` lint knows each pool's identifying labels (``nodePools[].nodeSelector``)
and taints. Only what can be decided is judged: a pool is ruled out by a label key its
``nodeSelector`` sets to another value (its nodes carry more labels, which lint does not
know), or by a taint the pod does not tolerate. A warning: nodes outside the input's pools
may still match. GPU pods against the pools offering their devices are CL001's.

Fix: select a label value one of the pools has (``gpu-gitops lint --cluster NAME`` names
them), tolerate the pool's taints, or add the pool to the cluster's input.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata: {name: tools, namespace: gpu-training}
    spec:
      nodeSelector: {agentpool: system}
      containers:
        - {name: tools, image: "busybox:1.36", resources: {limits: {memory: 64Mi}}}

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata: {name: tools, namespace: gpu-training}
    spec:
      nodeSelector: {agentpool: h200}
      containers:
        - {name: tools, image: "busybox:1.36", resources: {limits: {memory: 64Mi}}}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

if TYPE_CHECKING:  # the contract's modules load only for a lint against a cluster
    from generator.contract.model import Pool

META = RuleMeta(
    "CL010",
    "no-pool-matches",
    "warning",
    "A pod's node selector, required node affinity or tolerations fit none of the cluster's pools",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    if not contract.pools:
        return
    for pod in pods.templates(res.obj):
        if pod.partial or pods.uses_devices(pod):
            continue  # a runtime completes its pods; device pods are CL001's
        spec = pod.spec
        by_labels = [p for p in contract.pools if pods.may_select(spec, dict(p.labels))]
        if not by_labels:
            yield Hit(
                f"no node pool of cluster {contract.cluster} carries the labels the pod selects "
                f"(pools: {', '.join(_describe(p) for p in contract.pools)})",
                pod.path + (("nodeSelector",) if spec.get("nodeSelector") else ("affinity",)),
                hint="select the labels of one of the pools, or add the pool to the cluster's input",
            )
            continue
        if not any(_tolerated(spec, p) for p in by_labels):
            taints = sorted(
                {f"{t.key}{'=' + t.value if t.value else ''}:{t.effect}" for p in by_labels for t in p.taints}
            )
            yield Hit(
                f"the pod tolerates none of the taints of the pools it selects on cluster {contract.cluster} "
                f"({', '.join(p.name for p in by_labels)}: {', '.join(taints)}), so it stays Pending",
                pod.path + ("tolerations",),
                hint="tolerate the taints of the pool it should run on",
            )


def _describe(pool: Pool) -> str:
    return f"{pool.name} " + ",".join(f"{k}={v}" for k, v in pool.labels) if pool.labels else pool.name


def _tolerated(spec: dict, pool: Pool) -> bool:
    return all(
        pods.tolerates_taint(spec, t.key, t.value, t.effect)
        for t in pool.taints
        if t.effect in ("NoSchedule", "NoExecute")
    )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True)
