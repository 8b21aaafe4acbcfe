"""A GPU or other extended resource count that is not a whole number.

Rationale: devices are handed out whole; a fraction of a GPU cannot be requested (GPU
sharing is done by time-slicing, MPS or MIG, which advertise whole units). The API server
rejects the object with ``must be an integer``, and a value that is not a quantity at all
(``abc``, ``.inf``) before that.

Fix: request a whole number of devices, or a MIG profile / shared replica that fits.

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
              nvidia.com/gpu: 2
              memory: 8Gi

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
              nvidia.com/gpu: 500m
              memory: 8Gi
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods, quantity
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "GPU003", "extended-not-integer", "error", "A GPU or extended resource quantity is not a whole number", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        for section, values in (("requests", requests), ("limits", limits)):
            for name, value in values.items():
                if not pods.is_extended(name):
                    continue
                parsed = quantity.nanos(value)
                if parsed is None and isinstance(value, (str, float)):
                    problem = "must be a quantity (an integer for extended resources)"
                elif parsed is not None and parsed % quantity.NANO:
                    problem = "must be an integer"
                else:
                    continue
                where = jsonpath.dotted(pods.resources_path(cpath) + (section,)) + f"[{name}]"
                yield Hit(
                    f'{where}: Invalid value: "{value}": {problem}',
                    pods.resources_path(cpath) + (section, name),
                    at_value=True,
                )


RULE = ObjectRule(meta=META, check=check, pod_templates=True, extended_pods=True)
