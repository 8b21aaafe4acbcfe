"""A pod without a seccomp profile, outside the allowed namespaces.

Rationale: without ``seccompProfile`` containers run Unconfined on most runtimes, with
every system call available; the restricted Pod Security level requires
``RuntimeDefault`` or ``Localhost``.

Fix: set ``securityContext.seccompProfile.type: RuntimeDefault`` in the pod spec.
"""

from generator import jsonpath
from generator.lint import pods
from generator.lint.model import Hit

ID = "SEC006"
NAME = "seccomp-missing"
SEVERITY = "warning"
SUMMARY = "A pod has no seccomp profile"
SCOPE = "object"


def check(res, ctx):
    found = pods.restricted_pod_spec(res, ctx)
    if not found:
        return
    spath, spec = found
    if pods.secured(spath, spec, lambda sc: isinstance(sc, dict) and isinstance(sc.get("seccompProfile"), dict)):
        return
    yield Hit(f"{jsonpath.dotted(spath + ('securityContext',))}: no seccompProfile; set type RuntimeDefault",
              spath + ("securityContext",))
