"""Jobs Kueue queues, as the ``lint --cluster`` queue rules (CL011-CL013) read them.

A job kind Kueue can manage, in a namespace with LocalQueues (the cluster's rendered queues,
``Contract.queues``), names its queue with the ``kueue.x-k8s.io/queue-name`` label, or is put
in the namespace's ``default`` LocalQueue (kubernetes-sigs/kueue v0.19.2 pkg/controller/
constants QueueLabel, DefaultLocalQueueName). Bare Pods and Deployments are left out: Kueue
queues them only with its pod integrations, which most clusters leave off.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the contract's modules load only for a lint against a cluster
    from generator.contract.model import Contract, Queue

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
DEFAULT_QUEUE = "default"
TOPOLOGY_ANNOTATIONS = ("kueue.x-k8s.io/podset-required-topology", "kueue.x-k8s.io/podset-preferred-topology")

# (group, kind) of the job kinds Kueue's integrations manage (apis/config/v1beta2 frameworks).
JOB_KINDS = frozenset(
    {
        ("batch", "Job"),
        ("jobset.x-k8s.io", "JobSet"),
        ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"),
        ("ray.io", "RayJob"),
        ("ray.io", "RayCluster"),
        ("kubeflow.org", "PyTorchJob"),
        ("kubeflow.org", "MPIJob"),
        ("trainer.kubeflow.org", "TrainJob"),
    }
)


def group_kind(obj: dict) -> tuple[str, str]:
    api = str(obj.get("apiVersion", ""))
    return (api.split("/")[0] if "/" in api else "", str(obj.get("kind", "")))


def queue_name(obj: dict) -> str | None:
    labels = (obj.get("metadata") or {}).get("labels") or {}
    value = labels.get(QUEUE_LABEL) if isinstance(labels, dict) else None
    return value if isinstance(value, str) else None


def queued_job(obj: dict, namespace: str, contract: Contract | None) -> list[Queue] | None:
    """The LocalQueues of the job's namespace when ``obj`` is a job Kueue queues there, else None."""
    if contract is None or not namespace or group_kind(obj) not in JOB_KINDS:
        return None
    return contract.queues_in(namespace) or None


def its_queue(obj: dict, local: list[Queue]) -> Queue | None:
    """The LocalQueue the job lands in (its label, else ``default``), if the namespace has it."""
    name = queue_name(obj) or DEFAULT_QUEUE
    return next((q for q in local if q.name == name), None)


def pod_count(obj: dict, path: tuple) -> int:
    """How many pods the template at ``path`` starts at once: a Job's parallelism, a JobSet's
    replicas times its Job's parallelism; 1 where the kind does not say (never more)."""
    spec = obj.get("spec") or {}
    kind = group_kind(obj)

    def positive(value: object) -> int:
        return value if isinstance(value, int) and value > 0 else 1

    if kind == ("batch", "Job"):
        return positive(spec.get("parallelism"))
    if kind == ("jobset.x-k8s.io", "JobSet") and len(path) > 2 and path[:2] == ("spec", "replicatedJobs"):
        jobs = spec.get("replicatedJobs") or []
        job = jobs[path[2]] if isinstance(path[2], int) and path[2] < len(jobs) else {}
        inner = ((job.get("template") or {}).get("spec") or {}) if isinstance(job, dict) else {}
        return positive(job.get("replicas")) * positive(inner.get("parallelism"))
    return 1
