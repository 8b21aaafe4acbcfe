"""A container requests more of a resource than its limit allows.

Rationale: the schema types requests and limits as quantities each on its own; the API
server's ``ValidateResourceRequirements`` (kubernetes ``pkg/apis/core/validation``) refuses a
request above the container's limit of the same resource (``must be less than or equal to cpu
limit of 1``), comparing quantities by value (``1Gi`` is ``1024Mi``). A workload whose pod
template has one is refused at apply time. Huge pages and extended resources (GPUs) need a
request equal to the limit: HP002 and GPU002 report those.

Fix: raise the limit to at least the request, or lower the request.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: loader
      namespace: gpu-inference
    spec:
      containers:
        - name: main
          image: "python:3.12"
          resources:
            requests: {cpu: 500m, memory: 1Gi}
            limits: {cpu: "1", memory: 1024Mi}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: loader
      namespace: gpu-inference
    spec:
      containers:
        - name: main
          image: "python:3.12"
          resources:
            requests: {cpu: "2", memory: 1Gi}
            limits: {cpu: "1", memory: 1Gi}
"""

import functools
from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods, quantity
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S009", "request-exceeds-limit", "error", "A container's request of a resource is above its limit", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in pods.templates(res.obj, custom=False):  # custom resources' templates are not pods yet
        for cpath, container in pod.containers:
            requests, limits = pods.resources(container)
            for name, value in requests.items():
                if not isinstance(name, str) or name not in limits or not _compared(name):
                    continue
                limit = limits[name]
                if not (
                    _above_text(value, limit) if value.__class__ is limit.__class__ is str else _above(value, limit)
                ):
                    continue
                path = pods.resources_path(cpath) + ("requests", name)
                yield Hit(
                    f'{jsonpath.dotted(path[:-1])}[{name}]: Invalid value: "{value}": '
                    f"must be less than or equal to {name} limit of {limits[name]}",
                    path,
                    at_value=True,
                    hint=f"raise the {name} limit to at least {value}, or lower the request",
                )


@functools.cache
def _compared(name: str) -> bool:
    """Whether a request of ``name`` may be below its limit: huge pages and extended resources
    must equal it (HP002, GPU002). Asked per name: a tree names a few resources."""
    return not (pods.is_hugepages(name) or pods.is_extended(name))


def _above(request: object, limit: object) -> bool:
    """Whether a request is above its limit (False when either is no quantity: the schema says so)."""
    req, lim = quantity.nanos(request), quantity.nanos(limit)
    return req is not None and lim is not None and req > lim


@functools.lru_cache(maxsize=4096)  # a tree spells its requests and limits a few ways (500m, 1Gi)
def _above_text(request: str, limit: str) -> bool:
    return _above(request, limit)


RULE = ObjectRule(meta=META, check=check, pod_templates=True)
