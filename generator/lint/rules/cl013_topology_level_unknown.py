"""A queued job asks for a topology level that no Topology of its ClusterQueue's flavors has.

Rationale: with ``kueue.x-k8s.io/podset-required-topology`` (or ``-preferred-``) on a pod
template, Kueue places the pod set inside one domain of that node label of the flavor's
Topology. A level the flavors' Topologies do not list makes the workload inadmissible
("flavor ... does not contain the requested level"); a flavor without a Topology admits no
pod set with a required topology at all. The levels are the cluster's rendered Topologies:
the provider's network labels, ``nvidia.com/gpu.clique`` on NVLink pools and
``kubernetes.io/hostname`` (docs/queues.md).

Fix: ask for one of the levels the hint lists, or run the job in a namespace whose queue has
a pool with a topology.

PASS:

    # gpu-gitops-config: {lint: {cluster: onprem-gb200-dra}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: nvl-train
      namespace: nvl-training
    spec:
      template:
        metadata:
          annotations: {kueue.x-k8s.io/podset-required-topology: nvidia.com/gpu.clique}
        spec:
          restartPolicy: Never
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:25.01-py3

FAIL:

    # gpu-gitops-config: {lint: {cluster: onprem-gb200-dra}}
    apiVersion: batch/v1
    kind: Job
    metadata:
      name: nvl-train
      namespace: nvl-training
    spec:
      template:
        metadata:
          annotations: {kueue.x-k8s.io/podset-required-topology: cloud.google.com/gce-topology-block}
        spec:
          restartPolicy: Never
          containers:
            - name: train
              image: nvcr.io/nvidia/pytorch:25.01-py3
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint import queued
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL013",
    "topology-level-unknown",
    "error",
    "A queued job asks for a topology level its queue's flavors do not have",
    __doc__,
)


def _annotations(obj: dict, spec_path: tuple) -> dict:
    """The annotations of the pod template whose spec is at ``spec_path``."""
    found = jsonpath.value_at(obj, (*spec_path[:-1], "metadata", "annotations"))
    return found if isinstance(found, dict) else {}


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    local = queued.queued_job(res.obj, res.namespace, contract)
    queue = queued.its_queue(res.obj, local) if local else None
    if queue is None:
        return
    levels = sorted({level for f in queue.flavors for level in f.levels})
    for pod in pods.templates(res.obj):
        annotations = _annotations(res.obj, pod.path)
        for key in queued.TOPOLOGY_ANNOTATIONS:
            level = annotations.get(key)
            if not isinstance(level, str) or level in levels:
                continue
            yield Hit(
                f"{jsonpath.dotted(pod.path[:-1])}: {key}: {level} is no level of the Topologies of ClusterQueue "
                f"{queue.cluster_queue} on cluster {contract.cluster}: the job is never admitted",
                (*pod.path[:-1], "metadata", "annotations", key),
                hint=f"ask for one of: {', '.join(levels)}" if levels else "the queue's pools have no topology",
            )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True)
