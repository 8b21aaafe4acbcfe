"""A container that uses GPUs has no memory limit.

Rationale: GPU jobs stage large batches and model weights in host memory. Without a memory
limit a runaway process on an expensive GPU node pushes the node into memory pressure and
gets other GPU pods evicted, instead of failing on its own.

A container that uses a resource claim of its pod (Dynamic Resource Allocation:
``resources.claims`` naming one of ``spec.resourceClaims``) gets devices too and is held to
the same.

Fix: set ``resources.limits.memory`` on every container that requests GPUs or claims devices (equal to the
request for Guaranteed QoS).

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
              memory: 32Gi

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits:
              nvidia.com/gpu: 1
              cpu: "8"
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta("GPU007", "gpu-memory-limit-missing", "warning", "A GPU container has no memory limit", __doc__)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in pods.templates(res.obj):
        claimed = set(pods.claims(pod))
        for cpath, container in pod.containers:
            _requests, limits = pods.resources(container)
            if (pods.gpu_names(container) or _uses_claim(container, claimed)) and "memory" not in limits:
                yield Hit(
                    f"{jsonpath.dotted(cpath)}: container requests GPUs but has no memory limit",
                    pods.resources_path(cpath),
                )


def _uses_claim(container: dict, claimed: set[str]) -> bool:
    """Whether the container uses one of the pod's resource claims (its devices, with DRA)."""
    res = container.get("resources")
    used = res.get("claims") if isinstance(res, dict) else None
    names = [c.get("name") for c in (used if isinstance(used, list) else []) if isinstance(c, dict)]
    return any(isinstance(name, str) and name in claimed for name in names)


RULE = ObjectRule(meta=META, check=check, pod_templates=True, device_pods=True)
