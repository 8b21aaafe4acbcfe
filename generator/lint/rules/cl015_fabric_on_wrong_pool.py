"""A pod requests a fabric resource but selects only pools of the target cluster that do not offer it.

Rationale: the fabric's resource (``rdma/<name>`` from the RDMA shared device plugin,
``vpc.amazonaws.com/efa`` from the EFA device plugin) is advertised only by the nodes of the
pools whose ``nodePools[].fabric`` has it: the cluster runs the plugin with each such pool's
node selector and nowhere else. A pod that requests it while its ``nodeSelector`` or required
node affinity rules out every one of those pools (it pins a pool without the fabric, often the
inference pool of the same GPU model) stays Pending (``Insufficient rdma/ib``). Only what can
be decided is judged, as in CL010: a pool is ruled out by a label key of its ``nodeSelector``
that the pod sets to another value. A resource no pool offers is CL002's; a pod that fits no
pool at all is CL010's.

Fix: select the labels of a pool that offers the resource (the hint names them), or give the
pool the pod selects a fabric in the cluster's input.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
      annotations: {k8s.v1.cni.cncf.io/networks: fabric-h100}
    spec:
      nodeSelector: {agentpool: h100}
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:25.01-py3
          securityContext: {capabilities: {add: [IPC_LOCK]}}
          resources:
            limits: {nvidia.com/gpu: 2, rdma/ib: 1, memory: 64Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
      annotations: {k8s.v1.cni.cncf.io/networks: fabric-h100}
    spec:
      nodeSelector: {agentpool: l40s}
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:25.01-py3
          securityContext: {capabilities: {add: [IPC_LOCK]}}
          resources:
            limits: {nvidia.com/gpu: 2, rdma/ib: 1, memory: 64Gi}
"""

from __future__ import annotations

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL015",
    "fabric-on-wrong-pool",
    "error",
    "A pod requests a fabric resource but selects only pools that do not offer it",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    if not contract.pools:
        return
    for pod, fabric in pods.complete_pods(res.obj, pods.is_fabric):
        selected = [p for p in contract.pools if pods.may_select(pod.spec, dict(p.labels))]
        if not selected:
            continue  # CL010's
        for name in sorted(fabric):
            offering = contract.offering(name)
            if not offering or any(p in offering for p in selected):
                continue  # CL002's, or a pool it may run on has it
            yield Hit(
                f"{jsonpath.dotted(pod.path)}: the pod requests {name}, but the pools of cluster {contract.cluster} "
                f"its node selection allows ({', '.join(p.name for p in selected)}) do not offer it, so it is never "
                "scheduled",
                pod.path + (("nodeSelector",) if pod.spec.get("nodeSelector") else ("affinity",)),
                hint=f"select a pool that offers {name}: "
                + "; ".join(f"{p.name} ({', '.join(f'{k}={v}' for k, v in p.labels)})" for p in offering),
            )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True, device_pods=True)
