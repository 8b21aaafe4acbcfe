"""A suppression annotation that is malformed or has no reason: ``gpu-gitops.io/ignore``, or
a ``checkov.io/skip…`` annotation for a check one of the rules shares with checkov.

Rationale: a suppression is a decision someone has to be able to review later; without a
reason it is indistinguishable from silencing a real problem. A malformed annotation
suppresses nothing, and saying so beats a silent no-op. checkov accepts a skip without a
reason, lint does not honour one; a value with two ``=`` makes checkov fail on the file.

Fix: write ``gpu-gitops.io/ignore: "SEC001,SEC002: node agent, needs host access"`` -
known rule IDs, a colon, then the reason - or ``checkov.io/skip1: "CKV_K8S_16=node agent,
reads /dev"`` - one check ID, ``=``, then a reason without ``=``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-operator
      annotations:
        gpu-gitops.io/ignore: "SEC001: node agent from the vendor chart, reviewed"
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
      namespace: gpu-operator
      annotations:
        gpu-gitops.io/ignore: "SEC001"
    spec:
      containers:
        - name: main
          image: busybox:1.36
          securityContext: {privileged: true}

PASS:

    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: nvidia-driver
      namespace: gpu-operator
      annotations:
        checkov.io/skip1: "CKV_K8S_16=loads the kernel module on the node"
    spec:
      selector: {matchLabels: {app: nvidia-driver}}
      template:
        metadata: {labels: {app: nvidia-driver}}
        spec:
          containers:
            - name: driver
              image: nvcr.io/nvidia/driver:550.90.07-ubuntu22.04
              securityContext: {privileged: true}

FAIL:

    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: nvidia-driver
      namespace: gpu-operator
      annotations:
        checkov.io/skip1: CKV_K8S_16
    spec:
      selector: {matchLabels: {app: nvidia-driver}}
      template:
        metadata: {labels: {app: nvidia-driver}}
        spec:
          containers:
            - name: driver
              image: nvcr.io/nvidia/driver:550.90.07-ubuntu22.04
              securityContext: {privileged: true}
"""

from collections.abc import Iterator

from generator.lint import suppress
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "LINT001",
    "bad-suppression",
    "error",
    "A suppression annotation is malformed, names unknown rules or has no reason",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    value = res.annotations.get(suppress.ANNOTATION)
    if value is not None:
        _, problem = suppress.parse(value, ctx.rule_ids)
        if problem:
            yield Hit(
                f"{suppress.ANNOTATION}: {problem}", ("metadata", "annotations", suppress.ANNOTATION), at_value=True
            )
    for key, check_id, problem in suppress.checkov_annotations(res):
        if problem and check_id in ctx.checkov:
            yield Hit(
                f"{key}: {problem}; it does not suppress {ctx.checkov[check_id]}",
                ("metadata", "annotations", key),
                at_value=True,
            )


RULE = ObjectRule(meta=META, check=check)
