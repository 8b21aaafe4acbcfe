"""A pod that does not require a non-root user, outside the allowed namespaces.

Rationale: without ``runAsNonRoot: true`` an image that runs as root does so on the node;
the restricted Pod Security level requires it. Most CUDA and ROCm images run fine as a
non-root user.

Fix: set ``securityContext.runAsNonRoot: true`` (and a ``runAsUser``) in the pod spec.
"""

from generator import jsonpath
from generator.lint import pods
from generator.lint.model import Hit

ID = "SEC007"
NAME = "run-as-non-root-missing"
SEVERITY = "warning"
SUMMARY = "A pod does not set runAsNonRoot"
SCOPE = "object"


def check(res, ctx):
    found = pods.restricted_pod_spec(res, ctx)
    if not found:
        return
    spath, spec = found
    if pods.secured(spath, spec, lambda sc: isinstance(sc, dict) and sc.get("runAsNonRoot") is True):
        return
    yield Hit(f"{jsonpath.dotted(spath + ('securityContext',))}: runAsNonRoot is not set to true",
              spath + ("securityContext",))
