"""A pod asks for a GPU, huge-page or training-fabric resource that no pool of the target cluster offers.

Rationale: the scheduler only places a pod on a node that advertises every extended resource
it requests; a name no pool advertises (``nvidia.com/mig-1g.10gb`` on a cluster whose MIG
pools are A100-40GB, ``nvidia.com/gpu`` where time-sliced GPUs are renamed
``nvidia.com/gpu.shared``, ``hugepages-1Gi`` where no pool reserves 1Gi pages) keeps it
Pending for ever. What each pool offers comes from the cluster input: whole GPUs per node,
MIG profiles of the pool's model and layout (``mixed``: ``nvidia.com/mig-<profile>``,
``single``: ``nvidia.com/gpu``), time-slicing replicas, ``amd.com/gpu``, huge pages, and the
pool's training fabric (``nodePools[].fabric``: ``rdma/<name>`` from the RDMA shared device
plugin, ``vpc.amazonaws.com/efa`` from the EFA device plugin): a training job written for an
InfiniBand cluster that asks for ``rdma/ib`` on an EFA cluster never starts. The hint names the
offered resource closest to the one asked for.

Fix: request a resource the cluster offers (``gpu-gitops lint --cluster NAME`` names the
nearest), or add it to a pool of the cluster's input.

PASS:

    # gpu-gitops-config: {lint: {cluster: eks-mi300x-inference}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: embed
      namespace: embeddings
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: embed
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            limits: {nvidia.com/mig-1g.5gb: 1, memory: 8Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: eks-mi300x-inference}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: embed
      namespace: embeddings
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: embed
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            limits: {nvidia.com/mig-1g.10gb: 1, memory: 8Gi}

PASS:

    # gpu-gitops-config: {lint: {cluster: eks-mi300x-inference}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: embeddings
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
          image: nvcr.io/nvidia/pytorch:25.01-py3
          resources:
            limits: {nvidia.com/gpu: 8, vpc.amazonaws.com/efa: 32, hugepages-2Mi: 5120Mi, memory: 512Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: eks-mi300x-inference}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: embeddings
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: train
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
    "CL002",
    "resource-not-offered",
    "error",
    "A pod requests a GPU, huge-page or fabric resource no pool of the cluster offers",
    __doc__,
)


def wanted(name: str) -> bool:
    """The resources the cluster's contract describes: vendor GPUs, huge pages, the fabric."""
    return pods.is_gpu(name) or pods.is_hugepages(name) or pods.is_fabric(name)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    for cpath, _container, requests, limits in pods.container_resources(res.obj):
        for name in sorted({n for n in (*requests, *limits) if isinstance(n, str) and wanted(n)}):
            if contract.offering(name):
                continue
            where = pods.resources_path(cpath) + ("limits" if name in limits else "requests", name)
            nearest = contract.nearest(name)
            offered = contract.offered()
            yield Hit(
                f"{jsonpath.dotted(cpath)}: no node pool of cluster {contract.cluster} offers {name}",
                where,
                at_value=False,
                hint=(f"did you mean {nearest}? " if nearest else "")
                + (
                    f"the pools offer {', '.join(offered)}"
                    if offered
                    else "the cluster has no GPU, huge-page or fabric pools"
                ),
            )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True, device_pods=True)
