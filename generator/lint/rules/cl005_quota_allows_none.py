"""A pod asks for more of a GPU or huge-page resource than its namespace's quota allows.

Rationale: the ResourceQuota admission plugin rejects a pod whose request would take the
namespace past a quota's hard limit (``exceeded quota: gpu-quota, requested:
requests.nvidia.com/gpu=8, limited: requests.nvidia.com/gpu=4``); a quota of 0, or smaller
than one pod, can never admit it, and a controller retries for ever. The quotas are the
cluster's rendered ResourceQuotas (``workloads[].quota`` of its input); a resource a quota
does not list is not limited by it. Extended resources are quota'd by request.

Fix: run the workload in the namespace meant for it, lower the request, or raise
``workloads[].quota`` in the cluster input.

PASS:

    # gpu-gitops-config: {lint: {cluster: ocp-a100-tuned}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: notebook
      namespace: notebooks
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: lab
          image: quay.io/jupyter/pytorch-notebook:cuda12-python-3.11
          resources:
            limits: {nvidia.com/gpu: 1, memory: 16Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: eks-mi300x-inference}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: eval
      namespace: batch-eval
    spec:
      tolerations:
        - {key: amd.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: eval
          image: rocm/pytorch:latest
          resources:
            limits: {amd.com/gpu: 16, memory: 64Gi}
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.rules.cl002_resource_not_offered import wanted
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL005",
    "quota-allows-none",
    "error",
    "A pod requests more of a resource than its namespace's quota allows",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    if not res.namespace:
        return
    for pod in pods.templates(res.obj):
        if not pods.uses_devices(pod):
            continue
        for name, value in sorted(pods.pod_requests(pod, wanted).items()):
            limit = contract.quota_limit(res.namespace, name)
            if limit is None or value <= limit:
                continue
            allowed = "none" if limit == 0 else f"{limit} in all"
            yield Hit(
                f"{jsonpath.dotted(pod.path)}: pod requests {name} but the quota of namespace {res.namespace} "
                f"on cluster {contract.cluster} allows {allowed}, so the pod is never admitted",
                pod.path,
                hint="run it in a namespace whose quota has the resource, or raise workloads[].quota in the input",
            )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True, device_pods=True)
