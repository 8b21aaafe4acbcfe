"""A pod sets sysctls that are not namespaced, or not in the safe set, outside allowed namespaces.

Rationale: only namespaced sysctls can be set per pod, and only the safe set is allowed
by default; the kubelet refuses to start a pod with any other (``SysctlForbidden``), and
allowing it changes the whole node for every pod on it. Node-level tuning for GPUs
(``vm.*``, ``kernel.numa_balancing``) belongs to the node tuning component.

Fix: move the setting to the node tuning (Tuned profile or tuning DaemonSet), or move the
component to an allowed namespace.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      securityContext:
        sysctls:
          - {name: net.ipv4.ip_local_port_range, value: "1024 65000"}
      containers:
        - {name: main, image: "busybox:1.36"}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      securityContext:
        sysctls:
          - {name: vm.nr_hugepages, value: "512"}
      containers:
        - {name: main, image: "busybox:1.36"}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.settings import POD_SECURITY_OPTIONS
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "SEC005",
    "node-sysctls",
    "warning",
    "A pod sets unsafe or node-level sysctls outside the allowed namespaces",
    __doc__,
)

# The kubelet's safe set (Kubernetes 1.29+)
SAFE = frozenset(
    {
        "kernel.shm_rmid_forced",
        "net.ipv4.ip_local_port_range",
        "net.ipv4.tcp_syncookies",
        "net.ipv4.ping_group_range",
        "net.ipv4.ip_unprivileged_port_start",
        "net.ipv4.ip_local_reserved_ports",
        "net.ipv4.tcp_keepalive_time",
        "net.ipv4.tcp_fin_timeout",
        "net.ipv4.tcp_keepalive_intvl",
        "net.ipv4.tcp_keepalive_probes",
    }
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in ctx.restricted_templates(res, META.id):
        sc = pod.spec.get("securityContext")
        sysctls = sc.get("sysctls") if isinstance(sc, dict) else None
        for i, item in enumerate(sysctls if isinstance(sysctls, list) else []):
            name = item.get("name") if isinstance(item, dict) else None
            if isinstance(name, str) and name.replace("/", ".") not in SAFE:
                path = pod.path + ("securityContext", "sysctls", i)
                yield Hit(
                    f"{jsonpath.dotted(path)}: sysctl {name} is not in the safe set; the kubelet refuses "
                    "the pod unless the node allows it",
                    path + ("name",),
                    at_value=True,
                )


RULE = ObjectRule(meta=META, check=check, options=POD_SECURITY_OPTIONS, pod_templates=True)
