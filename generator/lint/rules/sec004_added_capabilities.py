"""A container adds Linux capabilities outside the allowed namespaces.

Rationale: capabilities such as ``SYS_ADMIN``, ``NET_ADMIN`` or ``IPC_LOCK`` widen what a
process may do on the node; the restricted Pod Security level allows only
``NET_BIND_SERVICE``. GPU workloads need none of them to use GPUs.

Fix: drop the ``capabilities.add`` entries (keep ``drop: [ALL]``), or move the node agent
to an allowed namespace. Where a capability is needed, say why on the object:
``checkov.io/skip1: "CKV_K8S_25=<reason>"`` (checkov reads it too) or
``gpu-gitops.io/ignore: "SEC004: <reason>"``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      containers:
        - name: main
          image: busybox:1.36
          securityContext:
            capabilities: {drop: [ALL], add: [NET_BIND_SERVICE]}

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
          securityContext:
            capabilities: {add: [SYS_ADMIN]}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.settings import POD_SECURITY_OPTIONS
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "SEC004",
    "added-capabilities",
    "warning",
    "A container adds Linux capabilities outside the allowed namespaces",
    __doc__,
)
CHECKOV = ("CKV_K8S_25",)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, container in (c for pod in ctx.restricted_templates(res, META.id) for c in pod.containers):
        sc = container.get("securityContext")
        caps = sc.get("capabilities") if isinstance(sc, dict) else None
        added = caps.get("add") if isinstance(caps, dict) else None
        extra = [c for c in added if c != "NET_BIND_SERVICE"] if isinstance(added, list) else []
        if extra:
            yield Hit(
                f"{jsonpath.dotted(cpath)}: adds capabilities {', '.join(map(str, extra))}",
                cpath + ("securityContext", "capabilities", "add"),
                checkov=CHECKOV[0],
            )


RULE = ObjectRule(meta=META, check=check, options=POD_SECURITY_OPTIONS, checkov=CHECKOV, pod_templates=True)
