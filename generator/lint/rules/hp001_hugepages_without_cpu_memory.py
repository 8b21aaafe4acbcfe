"""A container asks for huge pages but for neither CPU nor memory.

Rationale: the API server refuses it (``HugePages require cpu or memory``): huge pages are
accounted inside the pod's memory cgroup, which needs a CPU or memory request to be sized.

Fix: request ``memory`` (and usually ``cpu``) next to the ``hugepages-<size>`` resource.

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
            limits: {hugepages-2Mi: 100Mi, memory: 1Gi}

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
            limits: {hugepages-2Mi: 100Mi}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "HP001", "hugepages-without-cpu-memory", "error", "Huge pages are requested without cpu or memory", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        names = set(requests) | set(limits)
        if any(pods.is_hugepages(n) for n in names) and not names & {"cpu", "memory"}:
            yield Hit(
                f"{jsonpath.dotted(cpath + ('resources',))}: Forbidden: HugePages require cpu or memory",
                pods.resources_path(cpath),
            )


RULE = ObjectRule(meta=META, check=check, pod_templates=True, device_pods=True)
