"""A GPU pod tolerates the taints of none of the target cluster's pools that offer its devices.

Rationale: with ``lint --cluster`` (or ``lint.clusters`` in ``.gpu-gitops.yaml``) lint knows
each pool's taints (key, value and effect, as ``nodePools[].taints`` renders them) and what
its nodes advertise. A pod that asks for a resource only tainted pools offer, and does not
tolerate every ``NoSchedule``/``NoExecute`` taint of one of them, stays Pending: the
scheduler matches key, value and effect (``Toleration.ToleratesTaint``), so a toleration for
``nvidia.com/gpu`` does not let a pod onto a pool tainted ``gpu.example.com/dedicated``.
The toleration the provider's ExtendedResourceToleration admission plugin adds (EKS, GKE) is
counted. A pod that gets devices through resource claims (``spec.resourceClaims`` used by a
container's ``resources.claims``) needs one of the pools whose GPUs the DRA driver allocates
(``allocation: dra``). Without a target cluster GPU004
checks the GPU taint keys instead.

Fix: add the pool's taints as tolerations (``gpu-gitops lint --cluster NAME`` names them),
e.g. ``{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}``.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
      namespace: gpu-training
    spec:
      template:
        spec:
          restartPolicy: Never
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:24.05-py3
              resources:
                limits: {nvidia.com/gpu: 8, memory: 64Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
      namespace: gpu-training
    spec:
      template:
        spec:
          restartPolicy: Never
          tolerations:
            - {key: sku, operator: Equal, value: gpu, effect: NoSchedule}
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:24.05-py3
              resources:
                limits: {nvidia.com/gpu: 8, memory: 64Gi}
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

if TYPE_CHECKING:  # the contract's modules load only for a lint against a cluster
    from generator.contract.model import Pool, Taint

META = RuleMeta(
    "CL001",
    "gpu-pool-untolerated",
    "error",
    "A GPU pod tolerates none of the cluster's pools that offer its resource",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    for pod in pods.templates(res.obj):
        if pod.partial or not pods.uses_devices(pod):
            continue  # its tolerations come from the runtime it names; or it needs no GPU pool
        wanted = sorted(pods.pod_requests_gpu(pod))
        groups = [(name, contract.offering(name)) for name in wanted]
        if pods.claims_devices(pod):
            groups.append(("devices through resource claims", [p for p in contract.pools if p.dra]))
        for name, offering in groups:
            if not offering or any(_schedulable(pod, pool, name, ctx) for pool in offering):
                continue
            taints = sorted({_taint_text(t) for p in offering for t in _blocking(p)})
            where = pod.path + ("tolerations",)
            yield Hit(
                f"{jsonpath.dotted(where)}: pod asks for {name}, which only pools "
                f"{', '.join(p.name for p in offering)} of cluster {contract.cluster} offer, but tolerates "
                f"none of them (taints {', '.join(taints)}), so it is never scheduled",
                where,
                hint="tolerate one pool's taints, e.g. " + ", ".join(_toleration(t) for t in _blocking(offering[0])),
            )


def _blocking(pool: Pool) -> list[Taint]:
    return [t for t in pool.taints if t.effect in ("NoSchedule", "NoExecute")]


def _schedulable(pod: pods.PodTemplate, pool: Pool, resource: str, ctx: Context) -> bool:
    return all(
        pods.tolerates_taint(pod.spec, t.key, t.value, t.effect) or ctx.settings.admission_tolerates(resource, t.key)
        for t in _blocking(pool)
    )


def _taint_text(taint: Taint) -> str:
    return f"{taint.key}{'=' + taint.value if taint.value else ''}:{taint.effect}"


def _toleration(taint: Taint) -> str:
    if taint.value:
        return f"{{key: {taint.key}, operator: Equal, value: {taint.value}, effect: {taint.effect}}}"
    return f"{{key: {taint.key}, operator: Exists, effect: {taint.effect}}}"


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True, device_pods=True)
