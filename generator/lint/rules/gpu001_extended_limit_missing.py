"""A GPU or other extended resource is requested without a limit.

Rationale: extended resources (``nvidia.com/gpu``, ``amd.com/gpu``, MIG slices, RDMA
devices) cannot be overcommitted. Kubernetes takes the limit as the request when only the
limit is given, but refuses a request without a limit; the API server says
``Limit must be set for non overcommitable resources``.

Fix: set the count under ``resources.limits`` (it may be the only place it appears):
``limits: {nvidia.com/gpu: 1}``.
"""

from generator import jsonpath
from generator.lint import pods
from generator.lint.model import Hit

ID = "GPU001"
NAME = "extended-limit-missing"
SEVERITY = "error"
SUMMARY = "A GPU or extended resource is requested without a limit"
SCOPE = "object"


def check(res, ctx):
    found = pods.pod_spec(res.obj)
    if not found:
        return
    for cpath, container in pods.containers(*found):
        requests, limits = pods.resources(container)
        for name in requests:
            if pods.is_extended(name) and name not in limits:
                where = jsonpath.dotted(cpath + ("resources", "limits"))
                yield Hit(f"{where}: Required value: Limit must be set for non overcommitable resources "
                          f"({name} is requested)", cpath + ("resources", "requests", name))
