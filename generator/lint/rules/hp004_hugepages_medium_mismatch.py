"""An emptyDir of huge pages whose medium does not match the sizes the pod requests.

Rationale: ``medium: HugePages`` means "the pod's one huge page size"; with two sizes
requested it is ambiguous and the pod fails to start. ``medium: HugePages-<size>`` needs
that size requested by the pod, else the mount has no pages behind it.

Fix: with one size, use ``medium: HugePages`` or ``HugePages-<size>``; with several sizes,
one ``HugePages-<size>`` volume per size that some container requests.

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
            limits: {hugepages-2Mi: 4Mi, hugepages-1Gi: 1Gi, memory: 2Gi}
      volumes:
        - name: pages
          emptyDir: {medium: HugePages-2Mi}

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
            limits: {hugepages-2Mi: 4Mi, hugepages-1Gi: 1Gi, memory: 2Gi}
      volumes:
        - name: pages
          emptyDir: {medium: HugePages}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "HP004",
    "hugepages-medium-mismatch",
    "error",
    "An emptyDir huge pages medium does not match the huge page sizes requested",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in pods.templates(res.obj):
        yield from _check_pod(pod)


def _check_pod(pod: pods.PodTemplate) -> Iterator[Hit]:
    spath, spec = pod.path, pod.spec
    sizes = set()
    for _, container in pod.containers:
        requests, limits = pods.resources(container)
        sizes |= {n[len("hugepages-") :] for n in (*requests, *limits) if pods.is_hugepages(n)}
    volumes = spec.get("volumes")
    for i, volume in enumerate(volumes if isinstance(volumes, list) else []):
        empty = volume.get("emptyDir") if isinstance(volume, dict) else None
        medium = empty.get("medium") if isinstance(empty, dict) else None
        if not isinstance(medium, str) or not medium.startswith("HugePages"):
            continue
        path = spath + ("volumes", i, "emptyDir", "medium")
        where = jsonpath.dotted(path)
        if medium == "HugePages" and len(sizes) > 1:
            yield Hit(
                f'{where}: Invalid value: "HugePages": the pod requests several huge page sizes '
                f"({', '.join(sorted(sizes))}); use HugePages-<size>",
                path,
                at_value=True,
            )
        elif medium == "HugePages" and not sizes:
            yield Hit(f'{where}: Invalid value: "HugePages": no container requests huge pages', path, at_value=True)
        elif medium.startswith("HugePages-") and medium[len("HugePages-") :] not in sizes:
            yield Hit(
                f'{where}: Invalid value: "{medium}": no container requests hugepages-{medium[10:]}',
                path,
                at_value=True,
            )


RULE = ObjectRule(meta=META, check=check, pod_templates=True)
