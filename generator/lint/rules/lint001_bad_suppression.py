"""A ``gpu-gitops.io/ignore`` annotation that is malformed or has no reason.

Rationale: a suppression is a decision someone has to be able to review later; without a
reason it is indistinguishable from silencing a real problem. A malformed annotation
suppresses nothing, and saying so beats a silent no-op.

Fix: write ``gpu-gitops.io/ignore: "SEC001,SEC002: node agent, needs host access"`` -
known rule IDs, a colon, then the reason.

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
"""

from generator.lint import suppress
from generator.lint.model import Hit

ID = "LINT001"
NAME = "bad-suppression"
SEVERITY = "error"
SUMMARY = "A gpu-gitops.io/ignore annotation is malformed, names unknown rules or has no reason"
SCOPE = "object"


def check(res, ctx):
    value = res.annotations.get(suppress.ANNOTATION)
    if value is None:
        return
    _, problem = suppress.parse(value, ctx.rule_ids)
    if problem:
        yield Hit(f"{suppress.ANNOTATION}: {problem}", ("metadata", "annotations", suppress.ANNOTATION),
                  at_value=True)
