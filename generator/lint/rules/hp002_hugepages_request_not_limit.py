"""Huge pages requested without a limit, or with a request different from the limit.

Rationale: huge pages are pre-allocated on the node and cannot be overcommitted: the API
server requires a limit (``Limit must be set for non overcommitable resources``) and a
request equal to it (``must be equal to hugepages-2Mi limit of ...``).

Fix: give only the limit (the request defaults to it) or make both the same quantity.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: dpdk
      namespace: net
    spec:
      containers:
        - name: main
          image: example.com/dpdk:1
          resources:
            requests: {hugepages-1Gi: 1024Mi, memory: 1Gi}
            limits: {hugepages-1Gi: 1Gi, memory: 1Gi}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: dpdk
      namespace: net
    spec:
      containers:
        - name: main
          image: example.com/dpdk:1
          resources:
            requests: {hugepages-1Gi: 2Gi, memory: 1Gi}
            limits: {hugepages-1Gi: 1Gi, memory: 1Gi}
"""

from collections.abc import Iterator

from generator.kube import pods
from generator.lint import limits as limits_rules
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "HP002", "hugepages-request-not-limit", "error", "A huge pages request has no limit or differs from it", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        for name, value in requests.items():
            if not pods.is_hugepages(name):
                continue
            hit = (
                limits_rules.request_not_limit(cpath, name, value, limits)
                if name in limits
                else limits_rules.missing_limit(cpath, name)
            )
            if hit:
                yield hit


RULE = ObjectRule(meta=META, check=check, pod_templates=True, device_pods=True)
