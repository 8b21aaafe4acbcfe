"""A privileged container outside the namespaces allowed to run them.

Rationale: a privileged container has every capability and all host devices; it is root on
the node. GPU drivers, device plugins and node tuning need it and live in a few system
namespaces (``lint.allowedPrivilegedNamespaces``); a workload does not.

Fix: remove ``securityContext.privileged: true`` (GPUs are reachable through the device
plugin's resources, not through privilege), or move the component to an allowed namespace.
"""

from generator import jsonpath
from generator.lint import pods
from generator.lint.model import Hit

ID = "SEC001"
NAME = "privileged"
SEVERITY = "warning"
SUMMARY = "A container is privileged outside the allowed namespaces"
SCOPE = "object"


def check(res, ctx):
    found = pods.restricted_pod_spec(res, ctx)
    for cpath, container in pods.containers(*found) if found else ():
        sc = container.get("securityContext")
        if isinstance(sc, dict) and sc.get("privileged") is True:
            yield Hit(f"{jsonpath.dotted(cpath)}: privileged container in namespace "
                      f"{res.namespace or '(none)'}", cpath + ("securityContext", "privileged"), at_value=True)
