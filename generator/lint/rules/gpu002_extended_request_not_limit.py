"""A GPU or other extended resource has a request different from its limit.

Rationale: extended resources are not overcommitted, so request and limit must be equal
when both are given. The API server rejects the object with
``must be equal to <resource> limit of <quantity>``.

Fix: give only the limit (the request defaults to it), or make both the same number.
"""

from generator import jsonpath
from generator.lint import pods, quantity
from generator.lint.model import Hit

ID = "GPU002"
NAME = "extended-request-not-limit"
SEVERITY = "error"
SUMMARY = "A GPU or extended resource request differs from its limit"
SCOPE = "object"


def check(res, ctx):
    found = pods.pod_spec(res.obj)
    if not found:
        return
    for cpath, container in pods.containers(*found):
        requests, limits = pods.resources(container)
        for name, value in requests.items():
            if not pods.is_extended(name) or name not in limits:
                continue
            req, lim = quantity.parse(value), quantity.parse(limits[name])
            if req is not None and lim is not None and req != lim:
                where = jsonpath.dotted(cpath + ("resources", "requests")) + f"[{name}]"
                yield Hit(f'{where}: Invalid value: "{value}": must be equal to {name} limit of {limits[name]}',
                          cpath + ("resources", "requests", name), at_value=True)
