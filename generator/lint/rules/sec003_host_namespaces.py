"""A pod shares the node's network, PID or IPC namespace outside the allowed namespaces.

Rationale: ``hostNetwork`` exposes the node's interfaces and bypasses NetworkPolicy;
``hostPID`` and ``hostIPC`` let the pod see and signal every process on the node. RDMA or
NCCL tuning rarely needs them in a workload: use the SR-IOV / RDMA device plugins instead.

Fix: remove ``hostNetwork``/``hostPID``/``hostIPC``, or move the node agent to an allowed
namespace. Where a node agent needs one, say why on the object with checkov's annotation for
that namespace (``checkov.io/skip1: "CKV_K8S_19=<reason>"``: hostNetwork; ``CKV_K8S_17`` hostPID,
``CKV_K8S_18`` hostIPC) or ``gpu-gitops.io/ignore: "SEC003: <reason>"``.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      hostNetwork: false
      containers:
        - {name: main, image: "busybox:1.36"}

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: agent
      namespace: gpu-training
    spec:
      hostNetwork: true
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
    "SEC003",
    "host-namespaces",
    "warning",
    "A pod uses hostNetwork, hostPID or hostIPC outside the allowed namespaces",
    __doc__,
)
# checkov has one check per namespace
CHECKOV_BY_KEY = {"hostPID": "CKV_K8S_17", "hostIPC": "CKV_K8S_18", "hostNetwork": "CKV_K8S_19"}
CHECKOV = tuple(sorted(CHECKOV_BY_KEY.values()))


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in ctx.restricted_templates(res, META.id):
        for key in ("hostNetwork", "hostPID", "hostIPC"):
            if pod.spec.get(key) is True:
                yield Hit(
                    f"{jsonpath.dotted(pod.path + (key,))}: {key} in namespace {res.namespace or '(none)'}",
                    pod.path + (key,),
                    at_value=True,
                    checkov=CHECKOV_BY_KEY[key],
                )


RULE = ObjectRule(meta=META, check=check, options=POD_SECURITY_OPTIONS, checkov=CHECKOV, pod_templates=True)
