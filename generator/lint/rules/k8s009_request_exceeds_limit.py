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

from generator import jsonpath
from generator.kube import pods, quantity
from generator.lint.model import Hit

ID = "K8S009"
NAME = "request-exceeds-limit"
SEVERITY = "error"
SUMMARY = "A container's request of a resource is above its limit"
SCOPE = "object"
POD_TEMPLATES = True


def check(res, ctx):
    for pod in pods.templates(res.obj, custom=False):  # custom resources' templates are not pods yet
        for cpath, container in pod.containers:
            requests, limits = pods.resources(container)
            for name, value in requests.items():
                if not isinstance(name, str) or name not in limits:
                    continue
                if pods.is_hugepages(name) or pods.is_extended(name):
                    continue  # must equal the limit: HP002, GPU002
                req, lim = quantity.parse(value), quantity.parse(limits[name])
                if req is None or lim is None or req <= lim:
                    continue
                path = pods.resources_path(cpath) + ("requests", name)
                yield Hit(
                    f'{jsonpath.dotted(path[:-1])}[{name}]: Invalid value: "{value}": '
                    f"must be less than or equal to {name} limit of {limits[name]}",
                    path,
                    at_value=True,
                    hint=f"raise the {name} limit to at least {value}, or lower the request",
                )
