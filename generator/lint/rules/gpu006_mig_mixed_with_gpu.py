"""One container requests both whole GPUs and MIG slices.

Rationale: the NVIDIA device plugin documents that a container must not request
``nvidia.com/gpu`` together with ``nvidia.com/mig-*``: which devices it gets is undefined,
and all of them are allocated (and billed) while only some are usable.

Fix: request either whole GPUs or MIG slices in a container; split the work into two
containers or pods if both are needed.

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
              nvidia.com/mig-3g.40gb: 1
              memory: 4Gi

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
              nvidia.com/mig-3g.40gb: 1
              memory: 4Gi
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "GPU006",
    "mig-mixed-with-gpu",
    "error",
    "A container requests both nvidia.com/gpu and nvidia.com/mig-* resources",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, container, _requests, _limits in pods.container_resources(res.obj):
        names = pods.gpu_names(container)
        migs = sorted(n for n in names if n.startswith("nvidia.com/mig-"))
        if "nvidia.com/gpu" in names and migs:
            yield Hit(
                f"{jsonpath.dotted(cpath)}: requests nvidia.com/gpu together with {', '.join(migs)}; "
                "a container gets whole GPUs or MIG slices, not both",
                pods.resources_path(cpath),
            )


RULE = ObjectRule(meta=META, check=check, pod_templates=True, device_pods=True)
