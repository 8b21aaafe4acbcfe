"""A GPU or other extended resource is requested without a limit.

Rationale: extended resources (``nvidia.com/gpu``, ``amd.com/gpu``, MIG slices, RDMA
devices) cannot be overcommitted. Kubernetes takes the limit as the request when only the
limit is given, but refuses a request without a limit; the API server says
``Limit must be set for non overcommitable resources``.

Fix: set the count under ``resources.limits`` (it may be the only place it appears):
``limits: {nvidia.com/gpu: 1}``.

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
            requests:
              nvidia.com/gpu: 1
              memory: 8Gi
"""

from collections.abc import Iterator

from generator.kube import pods
from generator.lint import limits as limits_rules
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "GPU001", "extended-limit-missing", "error", "A GPU or extended resource is requested without a limit", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        for name in requests:
            if pods.is_extended(name) and name not in limits:
                yield limits_rules.missing_limit(cpath, name)


RULE = ObjectRule(meta=META, check=check, pod_templates=True, extended_pods=True)
