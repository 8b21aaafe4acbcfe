"""A training pod on the fabric joins none of the secondary networks the cluster renders for its namespace.

Rationale: where a pool has a secondary network on its fabric (``nodePools[].fabric.network``),
the cluster renders a NetworkAttachmentDefinition ``fabric-<pool>`` in each namespace that uses
the fabric, and a pod gets an interface on it only when its annotation
``k8s.v1.cni.cncf.io/networks`` names it (Multus reads nothing else). A pod that requests the
RDMA resource (``rdma/<name>``), or a GPU pod of a multi-node training job (a PyTorchJob with
more than one replica, an MPIJob with more than one worker, a JobSet of more than one pod, a
LeaderWorkerSet group of more than one), without it runs with the pod network only: RoCE has
no GID of its own and NCCL falls back to the pod network or to the node's addresses. A name
the cluster does not render in the namespace keeps the pod in ``ContainerCreating`` (Multus:
"cannot find a network-attachment-definition"), unless another tool creates it. The
annotation is read as Multus reads it (k8snetworkplumbingwg/multus-cni pkg/k8sclient,
``parsePodNetworkAnnotation``): a JSON list of ``{"name", "namespace"}`` or a comma-separated
list of ``[namespace/]name[@interface]``. A warning: the job may not need the network, and
attachments may come from outside the cluster's tree. Judged only in namespaces where the
cluster renders an attachment, and only on pod templates (a TrainJob's pods come from its
runtime).

Fix: annotate the pod template with ``k8s.v1.cni.cncf.io/networks: fabric-<pool>`` (the
hint names the attachments of the namespace), or name one the namespace has.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
      annotations: {k8s.v1.cni.cncf.io/networks: fabric-h100}
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:25.01-py3
          securityContext: {capabilities: {add: [IPC_LOCK]}}
          resources:
            limits: {nvidia.com/gpu: 8, rdma/ib: 1, memory: 512Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:25.01-py3
          securityContext: {capabilities: {add: [IPC_LOCK]}}
          resources:
            limits: {nvidia.com/gpu: 8, rdma/ib: 1, memory: 512Gi}
"""

from __future__ import annotations

import json
from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL014",
    "network-attachment-missing",
    "warning",
    "A training pod on the fabric joins none of the secondary networks the cluster renders for its namespace",
    __doc__,
)

NETWORKS = "k8s.v1.cni.cncf.io/networks"
RDMA_PREFIX = "rdma/"
# The replica specs of Kubeflow's jobs whose pods all take part in the collective (PyTorchJob:
# Master and Worker), or the one role that does (MPIJob: the Worker; the Launcher runs mpirun).
_REPLICA_SPECS = {
    ("kubeflow.org", "PyTorchJob"): ("pytorchReplicaSpecs", None),
    ("kubeflow.org", "MPIJob"): ("mpiReplicaSpecs", "Worker"),
}


def _rdma(name: str) -> bool:
    return name.startswith(RDMA_PREFIX)


def _count(value: object, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _multi_node_roles(obj: dict) -> set[str] | None:
    """The pod templates of a multi-node training job (by the key that holds each: a replica
    spec's role, a replicated job's name; ``"*"`` every one), or None for any other object."""
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return None
    group = str(obj.get("apiVersion", "")).partition("/")[0]
    key = (group, obj.get("kind"))
    if key in _REPLICA_SPECS:
        field, role = _REPLICA_SPECS[key]
        replicas = spec.get(field)
        if not isinstance(replicas, dict):
            return None
        counted = [role] if role else list(replicas)
        total = sum(
            _count((replicas.get(r) or {}).get("replicas")) for r in counted if isinstance(replicas.get(r), dict)
        )
        return ({role} if role else {"*"}) if total > 1 else None
    if key == ("jobset.x-k8s.io", "JobSet"):
        total = 0
        for job in spec.get("replicatedJobs") or []:
            if isinstance(job, dict):
                inner = ((job.get("template") or {}).get("spec")) or {}
                total += _count(job.get("replicas")) * _count(
                    inner.get("parallelism") if isinstance(inner, dict) else None
                )
        return {"*"} if total > 1 else None
    if key == ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"):
        size = (spec.get("leaderWorkerTemplate") or {}).get("size")
        return {"*"} if _count(size) > 1 else None
    return None


def _in_job(pod: pods.PodTemplate, roles: set[str]) -> bool:
    return "*" in roles or (len(pod.path) > 2 and pod.path[2] in roles)


def _named(value: object, namespace: str) -> list[tuple[str, str]] | None:
    """The (namespace, name) of each network the annotation asks for, None when unreadable."""
    if not isinstance(value, str):
        return None
    text = value.strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
        except ValueError:
            return None
        if not isinstance(items, list) or not all(
            isinstance(i, dict) and isinstance(i.get("name"), str) for i in items
        ):
            return None
        return [(str(i.get("namespace") or namespace), i["name"]) for i in items]
    found = []
    for item in (part.strip() for part in text.split(",")):
        if item:
            where, _, name = item.partition("@")[0].rpartition("/")
            found.append((where or namespace, name))
    return found


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    if not res.namespace:
        return
    have = contract.attachments_in(res.namespace)
    if not have:
        return
    roles = _multi_node_roles(res.obj)
    for pod, rdma in pods.complete_pods(res.obj, _rdma):
        fabric = bool(rdma)
        training = roles is not None and _in_job(pod, roles) and bool(pods.pod_requests_gpu(pod) or pods.claims(pod))
        if not (fabric or training):
            continue
        where = (*pod.path[:-1], "metadata", "annotations")
        annotations = jsonpath.value_at(res.obj, where)
        value = annotations.get(NETWORKS) if isinstance(annotations, dict) else None
        why = "requests the fabric" if fabric else "is a pod of a multi-node training job"
        hint = f"annotate the pod template with {NETWORKS}: {have[0]}" + (
            f" (the namespace has {', '.join(have)})" if len(have) > 1 else ""
        )
        if value is None:
            yield Hit(
                f"{jsonpath.dotted(pod.path)}: the pod {why} but joins no secondary network: cluster "
                f"{contract.cluster} renders {', '.join(have)} in namespace {res.namespace}",
                pod.path,
                hint=hint,
            )
            continue
        networks = _named(value, res.namespace)
        if networks is None or any(ns != res.namespace or name in have for ns, name in networks):
            continue  # unreadable (the schema's business), or it joins one of them (or another namespace's)
        yield Hit(
            f"{NETWORKS}: {value} names no network attachment cluster {contract.cluster} renders in namespace "
            f"{res.namespace} ({', '.join(have)}): the pod stays ContainerCreating unless another tool creates it",
            (*where, NETWORKS),
            at_value=True,
            hint=hint,
        )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True)
