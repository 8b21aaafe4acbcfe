"""A GPU or other extended resource has a request different from its limit.

Rationale: extended resources are not overcommitted, so request and limit must be equal
when both are given. The API server rejects the object with
``must be equal to <resource> limit of <quantity>``.

Fix: give only the limit (the request defaults to it), or make both the same number.

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
            requests:
              nvidia.com/gpu: "1"
              cpu: 500m
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
              nvidia.com/gpu: 2
            limits:
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
    "GPU002",
    "extended-request-not-limit",
    "error",
    "A GPU or extended resource request differs from its limit",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        for name, value in requests.items():
            if pods.is_extended(name) and name in limits:
                hit = limits_rules.request_not_limit(cpath, name, value, limits)
                if hit:
                    yield hit


RULE = ObjectRule(meta=META, check=check, pod_templates=True, extended_pods=True)
