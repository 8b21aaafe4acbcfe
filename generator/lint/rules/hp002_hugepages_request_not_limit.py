"""Huge pages requested without a limit, or with a request different from the limit.

Rationale: huge pages are pre-allocated on the node and cannot be overcommitted: the API
server requires a limit (``Limit must be set for non overcommitable resources``) and a
request equal to it (``must be equal to hugepages-2Mi limit of ...``).

Fix: give only the limit (the request defaults to it) or make both the same quantity.
"""

from generator import jsonpath
from generator.lint import pods, quantity
from generator.lint.model import Hit

ID = "HP002"
NAME = "hugepages-request-not-limit"
SEVERITY = "error"
SUMMARY = "A huge pages request has no limit or differs from it"
SCOPE = "object"


def check(res, ctx):
    found = pods.pod_spec(res.obj)
    if not found:
        return
    for cpath, container in pods.containers(*found):
        requests, limits = pods.resources(container)
        for name, value in requests.items():
            if not pods.is_hugepages(name):
                continue
            if name not in limits:
                yield Hit(f"{jsonpath.dotted(cpath + ('resources', 'limits'))}: Required value: "
                          f"Limit must be set for non overcommitable resources ({name} is requested)",
                          cpath + ("resources", "requests", name))
                continue
            req, lim = quantity.parse(value), quantity.parse(limits[name])
            if req is not None and lim is not None and req != lim:
                where = jsonpath.dotted(cpath + ("resources", "requests")) + f"[{name}]"
                yield Hit(f'{where}: Invalid value: "{value}": must be equal to {name} limit of {limits[name]}',
                          cpath + ("resources", "requests", name), at_value=True)
