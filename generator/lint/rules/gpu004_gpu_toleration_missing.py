"""A pod that requests GPUs does not tolerate the GPU nodes' taint.

Rationale: GPU node pools are often tainted so that other pods stay off them. A GPU pod
without the matching toleration can never be scheduled: the only nodes with the resource
repel it. Whether it is needed depends on the cluster, so the provider and the taint keys
decide: ``lint.taintKeys`` lists the GPU pools' taint keys (``[]`` when they are not
tainted); without it, ``lint.provider`` gives the keys of the taint that provider's GPU pools
get when they list none (``nvidia.com/gpu`` and ``amd.com/gpu``, the one provider fact
``lint --cluster`` reads too, so both paths give one answer; a pool tainted as AKS's guide
shows, ``sku=gpu:NoSchedule``, is ``lint.taintKeys: [sku]``). On EKS
and GKE the ExtendedResourceToleration admission plugin adds the toleration for a taint keyed
by the requested resource's name (``nvidia.com/gpu``), so only other keys need one. A key
applies to pods requesting resources of its vendor domain; a key without one (``sku``)
applies to every GPU pod. With neither setting the finding is a warning that says so.
Pods of custom resources (Ray, Kubeflow, JobSet, LeaderWorkerSet, Volcano, NIMService) are
checked as well, and pods that get devices through resource claims (``spec.resourceClaims``
used by a container), which the NVIDIA DRA driver allocates on NVIDIA pools. With a target cluster (``lint --cluster``) CL001 checks the pools' own taints instead.

Fix: add ``tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]`` (the
pool's taint key) to the pod template, or set ``lint.taintKeys``/``lint.provider`` to
describe the cluster.

PASS:

    # gpu-gitops-config: {lint: {provider: aks}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: smi
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            limits: {nvidia.com/gpu: 1, memory: 1Gi}

PASS:

    # gpu-gitops-config: {lint: {provider: eks}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      containers:
        - name: smi
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            limits: {nvidia.com/gpu: 1, memory: 1Gi}

FAIL:

    # gpu-gitops-config: {lint: {provider: aks}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      tolerations:
        - {key: sku, operator: Equal, value: gpu, effect: NoSchedule}
      containers:
        - name: smi
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            limits: {nvidia.com/gpu: 1, memory: 1Gi}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.settings import TAINT_KEYS
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "GPU004", "gpu-toleration-missing", "error", "A GPU pod has no toleration for the GPU node taint", __doc__
)

_VENDOR_DOMAINS = {p.rstrip("/") for p in pods.GPU_RESOURCE_PREFIXES}
UNKNOWN_TAINTS_HINT = (
    "set lint.taintKeys to the GPU node pools' taint keys ([] when they are not tainted), or lint.provider"
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    settings = ctx.settings
    if settings.contract is not None:
        return  # CL001 checks the target cluster's pools, taint values and effects included
    for pod in pods.templates(res.obj):
        if pod.partial:
            continue  # its tolerations come from the runtime it names
        requested = pods.pod_requests_gpu(pod)
        domains = {name.split("/", 1)[0] for name in requested}
        if pods.claims_devices(pod):  # the project's DRA pools are NVIDIA's (driver gpu.nvidia.com)
            requested = requested | {"resource claims"}
            domains.add("nvidia.com")
        for key in settings.gpu_taint_keys(META.id):
            domain = key.split("/", 1)[0] if "/" in key else ""
            applies = domain in domains or (requested and domain not in _VENDOR_DOMAINS)
            if (
                not applies
                or pods.tolerates(pod.spec, key)
                or any(settings.admission_tolerates(name, key) for name in requested)
            ):
                continue
            where = pod.path + ("tolerations",)
            message = (
                f"{jsonpath.dotted(where)}: pod requests {', '.join(sorted(requested))} but does not "
                f"tolerate the GPU node taint {key}:NoSchedule, so it can never be scheduled"
            )
            if settings.knows_gpu_taints(META.id):
                yield Hit(
                    message,
                    where,
                    hint=f"add `{{key: {key}, operator: Exists, effect: NoSchedule}}` to the tolerations",
                )
            else:
                yield Hit(
                    message + " if the GPU nodes carry that taint", where, hint=UNKNOWN_TAINTS_HINT, severity="warning"
                )


RULE = ObjectRule(meta=META, check=check, options={"taintKeys": TAINT_KEYS}, pod_templates=True, device_pods=True)
