"""A privileged container outside the namespaces allowed to run them.

Rationale: a privileged container has every capability and all host devices; it is root on
the node. GPU drivers, device plugins and node tuning need it and live in a few namespaces
that say so; a workload does not. Like the other SEC rules it is silent in namespaces whose
Namespace object, linted alongside, enforces the privileged Pod Security level
(``pod-security.kubernetes.io/enforce: privileged``: admission lets such pods in there by
design) and in ``lint.allowedPrivilegedNamespaces`` (empty by default; kube-system has no
such label unless you give it one, so it is checked like any other namespace).

Fix: remove ``securityContext.privileged: true`` (GPUs are reachable through the device
plugin's resources, not through privilege), or move the component to a namespace labelled
``pod-security.kubernetes.io/enforce: privileged``. Where a node agent needs it, say why on
the object: ``checkov.io/skip1: "CKV_K8S_16=<reason>"`` (checkov reads it too) or
``gpu-gitops.io/ignore: "SEC001: <reason>"``.

PASS:

    # gpu-gitops-config: {lint: {rules: {SEC001: {allowedPrivilegedNamespaces: [gpu-operator]}}}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: driver
      namespace: gpu-operator
    spec:
      containers:
        - name: main
          image: busybox:1.36
          securityContext: {privileged: true}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      containers:
        - name: main
          image: busybox:1.36
          securityContext: {privileged: true}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.settings import POD_SECURITY_OPTIONS
from generator.rulemeta import RuleMeta

META = RuleMeta("SEC001", "privileged", "warning", "A container is privileged outside the allowed namespaces", __doc__)
CHECKOV = ("CKV_K8S_16",)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, container in (c for pod in ctx.restricted_templates(res, META.id) for c in pod.containers):
        sc = container.get("securityContext")
        if isinstance(sc, dict) and sc.get("privileged") is True:
            yield Hit(
                f"{jsonpath.dotted(cpath)}: privileged container in namespace {res.namespace or '(none)'}",
                cpath + ("securityContext", "privileged"),
                at_value=True,
                checkov=CHECKOV[0],
            )


RULE = ObjectRule(meta=META, check=check, options=POD_SECURITY_OPTIONS, checkov=CHECKOV, pod_templates=True)
