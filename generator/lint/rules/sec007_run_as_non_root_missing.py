"""A pod that does not require a non-root user, outside the allowed namespaces.

Rationale: without ``runAsNonRoot: true`` an image that runs as root does so on the node;
the restricted Pod Security level requires it. Most CUDA and ROCm images run fine as a
non-root user.

Fix: set ``securityContext.runAsNonRoot: true`` (and a ``runAsUser``) in the pod spec. Where the
process must be root, say why on the object: ``checkov.io/skip1: "CKV_K8S_23=<reason>"``
(checkov reads it too) or ``gpu-gitops.io/ignore: "SEC007: <reason>"``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      securityContext: {runAsNonRoot: true, runAsUser: 1000}
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

META = RuleMeta("SEC007", "run-as-non-root-missing", "warning", "A pod does not set runAsNonRoot", __doc__)
CHECKOV = ("CKV_K8S_23",)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in ctx.restricted_templates(res, META.id):
        if not pods.secured(pod, lambda sc: isinstance(sc, dict) and sc.get("runAsNonRoot") is True):
            yield Hit(
                f"{jsonpath.dotted(pod.path + ('securityContext',))}: runAsNonRoot is not set to true",
                pod.path + ("securityContext",),
                checkov=CHECKOV[0],
            )


RULE = ObjectRule(meta=META, check=check, options=POD_SECURITY_OPTIONS, checkov=CHECKOV, pod_templates=True)
