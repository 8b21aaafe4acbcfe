"""A job in a queued namespace names a LocalQueue the namespace does not have, or none where
the namespace has no ``default`` one.

Rationale: Kueue creates the job's Workload but admits it only through an existing LocalQueue:
a job labelled ``kueue.x-k8s.io/queue-name`` with a name the namespace lacks stays suspended
and Inadmissible ("LocalQueue ... doesn't exist") for ever. Without the label Kueue puts the job
in the namespace's ``default`` LocalQueue (Kueue v0.19.2 LocalQueueDefaulting, GA), which
gpu-gitops renders in every queued namespace; in a namespace whose queues include no
``default`` an unlabelled job bypasses the queues and its quota. The queues are the cluster's
rendered LocalQueues (``workloads[].queue`` of its input, docs/queues.md).

Fix: set the label to a LocalQueue of the namespace (``kubectl get localqueues -n NS``), or
drop it so the job goes to ``default``.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: pretrain
      namespace: gpu-training
      labels: {kueue.x-k8s.io/queue-name: default}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:25.01-py3

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: pretrain
      namespace: gpu-training
      labels: {kueue.x-k8s.io/queue-name: training}
    spec:
      template:
        spec:
          restartPolicy: Never
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:25.01-py3
"""

from collections.abc import Iterator

from generator.lint import queued
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL011",
    "queue-not-found",
    "error",
    "A job in a queued namespace names a LocalQueue that does not exist there",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    local = queued.queued_job(res.obj, res.namespace, contract)
    if local is None or queued.its_queue(res.obj, local) is not None:
        return
    names = ", ".join(sorted(q.name for q in local))
    named = queued.queue_name(res.obj)
    if named is not None:
        yield Hit(
            f"label {queued.QUEUE_LABEL}: LocalQueue {named!r} does not exist in namespace {res.namespace} on "
            f"cluster {contract.cluster}: the job is never admitted",
            ("metadata", "labels", queued.QUEUE_LABEL),
            hint=f"name one of the namespace's LocalQueues: {names}",
        )
    else:
        yield Hit(
            f"the job names no LocalQueue and namespace {res.namespace} on cluster {contract.cluster} has no "
            f"{queued.DEFAULT_QUEUE!r} one: it bypasses the queues",
            ("metadata",),
            hint=f"label it {queued.QUEUE_LABEL} with one of: {names}",
        )


RULE = ObjectRule(meta=META, cluster=True, check=check)
