"""A pod without a seccomp profile, outside the allowed namespaces.

Rationale: without ``seccompProfile`` containers run Unconfined on most runtimes, with
every system call available; the restricted Pod Security level requires
``RuntimeDefault`` or ``Localhost``.

Fix: set ``securityContext.seccompProfile.type: RuntimeDefault`` in the pod spec; an exception
with its reason: ``checkov.io/skip1: "CKV_K8S_31=<reason>"`` or ``gpu-gitops.io/ignore``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      securityContext:
        seccompProfile: {type: RuntimeDefault}
      containers:
        - {name: main, image: "busybox:1.36"}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      containers:
        - {name: main, image: "busybox:1.36"}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.settings import POD_SECURITY_OPTIONS
from generator.rulemeta import RuleMeta

META = RuleMeta("SEC006", "seccomp-missing", "warning", "A pod has no seccomp profile", __doc__)
CHECKOV = ("CKV_K8S_31",)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in ctx.restricted_templates(res, META.id):
        if not pods.secured(pod, lambda sc: isinstance(sc, dict) and isinstance(sc.get("seccompProfile"), dict)):
            yield Hit(
                f"{jsonpath.dotted(pod.path + ('securityContext',))}: no seccompProfile; set type RuntimeDefault",
                pod.path + ("securityContext",),
                checkov=CHECKOV[0],
            )


RULE = ObjectRule(meta=META, check=check, options=POD_SECURITY_OPTIONS, checkov=CHECKOV, pod_templates=True)
