"""A pod requests more of a GPU or huge-page resource than any node of the pools offering it has.

Rationale: a pod runs on one node, so it can never get more GPUs, MIG slices or huge pages
than one node advertises; the scheduler keeps it Pending (``Insufficient nvidia.com/gpu``)
however many nodes the pool has. The pod's request is what the scheduler counts: the sum
over its app containers or its largest init container, whichever is more, a limit standing
for a missing request. Per node the pools advertise ``gpu.perNode`` GPUs (times MIG ``single``
slices or time-slicing replicas), ``perNode`` times the MIG ``mixed`` layout's count of each
profile, and the pages ``nodePools[].hugepages`` reserves.

Fix: lower the request to what one node has, or split the work over pods (a JobSet or
PyTorchJob with more workers).

PASS:

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
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits: {nvidia.com/gpu: 8, memory: 64Gi}

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
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits: {nvidia.com/gpu: 16, memory: 64Gi}
"""

from collections.abc import Iterator
from fractions import Fraction

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.rules.cl002_resource_not_offered import wanted
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL003",
    "request-exceeds-node",
    "error",
    "A pod requests more of a resource than one node of the offering pools has",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    for pod in pods.templates(res.obj):
        if not pods.uses_devices(pod):
            continue
        for name, value in sorted(pods.pod_requests(pod, wanted).items()):
            sizes = [p.per_node(name) for p in contract.offering(name)]
            known = [s for s in sizes if s is not None and s >= 0]
            if not sizes or len(known) < len(sizes) or value <= max(known):
                continue
            largest = max(known)
            yield Hit(
                f"{jsonpath.dotted(pod.path)}: pod requests {_shown(name, value)} of {name}, more than any node "
                f"of cluster {contract.cluster} has ({_shown(name, largest)}), so it is never scheduled",
                pod.path,
                hint=f"request at most {_shown(name, largest)} per pod, or spread the work over more pods",
            )


def _shown(name: str, value: Fraction | int) -> str:
    if pods.is_hugepages(name) and value % 2**20 == 0:
        return f"{int(value) // 2**20}Mi"
    return str(int(value)) if value == int(value) else str(float(value))


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True, device_pods=True)
