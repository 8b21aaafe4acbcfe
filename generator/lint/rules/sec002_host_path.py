"""A hostPath volume outside the namespaces allowed to use host resources.

Rationale: a hostPath mount reads or writes the node's file system (kubelet credentials,
container runtime socket, other pods' data). Node agents need it; workloads should use
persistent volumes or local volumes through a StorageClass.

Fix: replace the hostPath with a PersistentVolumeClaim (local NVMe through a local-volume
StorageClass), or move the node agent to an allowed namespace.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      containers:
        - {name: main, image: "busybox:1.36"}
      volumes:
        - name: scratch
          emptyDir: {}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      containers:
        - {name: main, image: "busybox:1.36"}
      volumes:
        - name: host
          hostPath: {path: /var/lib/kubelet}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.settings import POD_SECURITY_OPTIONS
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "SEC002", "host-path", "warning", "A pod mounts a hostPath volume outside the allowed namespaces", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in ctx.restricted_templates(res, META.id):
        volumes = pod.spec.get("volumes")
        for i, volume in enumerate(volumes if isinstance(volumes, list) else []):
            if isinstance(volume, dict) and "hostPath" in volume:
                host = volume["hostPath"].get("path", "") if isinstance(volume["hostPath"], dict) else ""
                yield Hit(
                    f"{jsonpath.dotted(pod.path + ('volumes', i))}: hostPath volume {host} in namespace "
                    f"{res.namespace or '(none)'}",
                    pod.path + ("volumes", i, "hostPath"),
                )


RULE = ObjectRule(meta=META, check=check, options=POD_SECURITY_OPTIONS, pod_templates=True)
