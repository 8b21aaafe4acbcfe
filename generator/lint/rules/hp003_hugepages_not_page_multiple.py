"""A huge pages quantity that is not a whole number of pages.

Rationale: ``hugepages-2Mi: 3Mi`` is one and a half pages; the API server rejects it with
``3Mi is not positive integer multiple of hugepages-2Mi``.

Fix: use a multiple of the page size: ``hugepages-2Mi: 4Mi``, ``hugepages-1Gi: 2Gi``.

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
            limits: {hugepages-2Mi: 4Mi, memory: 1Gi}

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
            limits: {hugepages-2Mi: 3Mi, memory: 1Gi}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods, quantity
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "HP003",
    "hugepages-not-page-multiple",
    "error",
    "A huge pages quantity is not a positive multiple of its page size",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        for section, values in (("requests", requests), ("limits", limits)):
            for name, value in values.items():
                if not pods.is_hugepages(name):
                    continue
                page, amount = quantity.nanos(name[len("hugepages-") :]), quantity.nanos(value)
                if not page or amount is None:
                    continue
                if amount <= 0 or amount % page:
                    where = jsonpath.dotted(pods.resources_path(cpath) + (section,)) + f"[{name}]"
                    yield Hit(
                        f'{where}: Invalid value: "{value}": {value} is not positive integer multiple of {name}',
                        pods.resources_path(cpath) + (section, name),
                        at_value=True,
                    )


RULE = ObjectRule(meta=META, check=check, pod_templates=True, device_pods=True)
