"""A container requests an RDMA fabric resource but cannot lock memory (no ``IPC_LOCK``).

Rationale: RDMA needs the buffers it sends from and receives into registered with the NIC, and
registration pins their pages (``ibv_reg_mr``), which the kernel allows beyond the process's
``RLIMIT_MEMLOCK`` only with ``CAP_IPC_LOCK``. A container gets the container runtime's memlock
limit, usually a few MiB, so NCCL's InfiniBand/RoCE transport fails to register its buffers
("NET/IB : ... ibv_reg_mr failed") on the first collective, after the job has been scheduled on
the fabric nodes and holds their GPUs. NVIDIA's Network Operator examples add ``IPC_LOCK`` to
every RDMA workload for this reason (docs.nvidia.com/networking/display/kubernetes2640,
quick-start "IP over InfiniBand with RDMA Shared Device"). The rule looks at the resources of the
RDMA shared device plugin (``rdma/<name>``); a privileged container holds every capability. It
is a warning: a node whose runtime raises the memlock limit to unlimited works without it.

Fix: add ``IPC_LOCK`` to the container's ``securityContext.capabilities.add`` (in a gpu-gitops
workload namespace, set ``podSecurity: baseline-ipc-lock``: Pod Security ``baseline`` refuses it).

PASS:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
      namespace: gpu-training
    spec:
      template:
        spec:
          restartPolicy: Never
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          containers:
            - name: main
              image: nvcr.io/nvidia/pytorch:25.01-py3
              securityContext:
                capabilities: {add: [IPC_LOCK]}
              resources:
                limits: {nvidia.com/gpu: 8, rdma/ib: 1, memory: 512Gi}

FAIL:

    apiVersion: batch/v1
    kind: Job
    metadata:
      name: train
      namespace: gpu-training
    spec:
      template:
        spec:
          restartPolicy: Never
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          containers:
            - name: main
              image: nvcr.io/nvidia/pytorch:25.01-py3
              resources:
                limits: {nvidia.com/gpu: 8, rdma/ib: 1, memory: 512Gi}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "GPU008",
    "rdma-without-ipc-lock",
    "warning",
    "A container requests an RDMA resource without the IPC_LOCK capability",
    __doc__,
)


def _locks_memory(container: dict) -> bool:
    security = container.get("securityContext")
    if not isinstance(security, dict):
        return False
    if security.get("privileged") is True:
        return True
    capabilities = security.get("capabilities")
    added = capabilities.get("add") if isinstance(capabilities, dict) else None
    return isinstance(added, list) and any(c in ("IPC_LOCK", "CAP_IPC_LOCK") for c in added)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in pods.templates(res.obj):
        for cpath, container in pod.containers:
            requests, limits = pods.resources(container)
            rdma = sorted({n for n in (*requests, *limits) if isinstance(n, str) and n.startswith("rdma/")})
            if rdma and not _locks_memory(container):
                yield Hit(
                    f"{jsonpath.dotted(cpath)}: container requests {rdma[0]} but does not add IPC_LOCK: "
                    "RDMA cannot pin its buffers beyond the memlock limit",
                    cpath,
                    hint="add IPC_LOCK to securityContext.capabilities.add",
                )


RULE = ObjectRule(meta=META, check=check, pod_templates=True, device_pods=True)
