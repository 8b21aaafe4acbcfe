"""A queued job asks for more of an accelerator than its ClusterQueue can ever admit on one flavor.

Rationale: Kueue admits a pod set (all the pods of one template, a gang) on a single flavor of
its ClusterQueue, and only while the flavor's usage stays within its nominal quota plus its
borrowing limit. A job whose pod set needs more (pods x per-pod request, a Job's
``parallelism``, a JobSet's replicas x parallelism) than the largest such sum over the
queue's flavors is never admitted: it waits in the queue for ever, as Pending shows nothing.
The queues are the cluster's rendered ClusterQueues (``workloads[].queue`` of its input:
nominal quota and borrowing limit per pool, docs/queues.md).

Fix: shrink the job (fewer pods or fewer GPUs each), or raise the queue's quota or borrowing
limit on a pool in the cluster input.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: pretrain
      namespace: gpu-training
    spec:
      parallelism: 4
      completions: 4
      completionMode: Indexed
      template:
        spec:
          restartPolicy: Never
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:25.01-py3
              resources:
                limits: {nvidia.com/gpu: 8, memory: 512Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: pretrain
      namespace: gpu-training
    spec:
      parallelism: 5
      completions: 5
      completionMode: Indexed
      template:
        spec:
          restartPolicy: Never
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:25.01-py3
              resources:
                limits: {nvidia.com/gpu: 8, memory: 512Gi}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint import queued
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL012",
    "queue-never-admits",
    "error",
    "A queued job asks for more than its ClusterQueue can ever admit on one flavor",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    local = queued.queued_job(res.obj, res.namespace, contract)
    queue = queued.its_queue(res.obj, local) if local else None
    if queue is None or not queue.flavors:
        return
    for pod in pods.templates(res.obj):
        count = queued.pod_count(res.obj, pod.path)
        for name, value in sorted(pods.pod_requests(pod, pods.is_gpu).items()):
            most = [dict(f.most).get(name) for f in queue.flavors]
            fits = [m for m in most if m is not None]
            if not fits:
                continue  # not a resource the queue covers: Kueue leaves it to the ResourceQuota
            total = value * count
            if total <= max(fits):
                continue
            yield Hit(
                f"{jsonpath.dotted(pod.path)}: {count} pod(s) x {value} {name} = {total}, more than ClusterQueue "
                f"{queue.cluster_queue} on cluster {contract.cluster} can ever admit on one flavor ({max(fits)}, "
                "nominal quota plus borrowing limit): the job is never admitted",
                pod.path,
                hint="run fewer pods or fewer GPUs per pod, or raise workloads[].queue.flavors[] quota or "
                "borrowingLimit in the cluster input",
            )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True, device_pods=True)
