"""A workload's replicas together ask for more of a GPU or huge-page resource than its namespace's quota allows.

Rationale: the ResourceQuota admission plugin admits pods one at a time until the namespace's
hard limit is reached (``exceeded quota: gpu-quota``) and refuses the rest: a Deployment of 4
replicas of 8 GPUs in a namespace with a quota of 24 runs 3 pods, and the fourth is never
created; a Job's parallel pods likewise. Each pod fits (else CL005), so this is a warning:
some replicas never start, even on an empty cluster, and the others' usage counts against it.
The replicas are ``spec.replicas`` of a Deployment, ReplicaSet or StatefulSet (1 when unset)
and ``spec.parallelism`` of a Job (1 when unset, at most its ``completions``); the quotas are
the target cluster's rendered ResourceQuotas (``workloads[].quota`` of its input).

Fix: lower the replicas or the per-pod request, or raise ``workloads[].quota`` in the cluster
input.

PASS:

    # gpu-gitops-config: {lint: {cluster: ocp-a100-tuned}}
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: notebook, namespace: notebooks}
    spec:
      replicas: 3
      selector: {matchLabels: {app: notebook}}
      template:
        metadata: {labels: {app: notebook}}
        spec:
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
          containers:
            - name: lab
              image: quay.io/jupyter/pytorch-notebook:2024-05-27
              resources:
                limits: {nvidia.com/gpu: 8, memory: 32Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: ocp-a100-tuned}}
    apiVersion: apps/v1
    kind: Deployment
    metadata: {name: notebook, namespace: notebooks}
    spec:
      replicas: 4
      selector: {matchLabels: {app: notebook}}
      template:
        metadata: {labels: {app: notebook}}
        spec:
          tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
          containers:
            - name: lab
              image: quay.io/jupyter/pytorch-notebook:2024-05-27
              resources:
                limits: {nvidia.com/gpu: 8, memory: 32Gi}
"""

from collections.abc import Iterator

from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.rules.cl002_resource_not_offered import wanted
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL009",
    "replicas-exceed-quota",
    "warning",
    "A workload's replicas together ask for more of a resource than its namespace's quota allows",
    __doc__,
)

_REPLICATED = {("apps/v1", "Deployment"), ("apps/v1", "ReplicaSet"), ("apps/v1", "StatefulSet")}


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    contract = ctx.contract
    if not res.namespace:
        return
    found = _replicas(res)
    if found is None:
        return
    count, path = found
    for pod in pods.templates(res.obj, custom=False):
        for name, value in sorted(pods.pod_requests(pod, wanted).items()):
            limit = contract.quota_limit(res.namespace, name)
            if limit is None or value == 0 or value > limit or count * value <= limit:
                continue  # not limited, nothing asked, or one pod alone is too much (CL005)
            running = int(limit // value)
            yield Hit(
                f"{count} pods × {value} {name} = {count * value}, but the quota of namespace {res.namespace} on "
                f"cluster {contract.cluster} allows {limit}: only {running} of them are admitted",
                path,
                at_value=path != ("spec",),
                hint="lower the replicas or the request, or raise workloads[].quota in the input",
            )


def _replicas(res: Resource) -> tuple[int, tuple] | None:
    """How many of the workload's pods run at once, and where that is said."""
    spec = res.obj.get("spec")
    if not isinstance(spec, dict):
        return None
    key = (res.obj["apiVersion"], res.kind)
    if key in _REPLICATED:
        field = "replicas"
    elif key == ("batch/v1", "Job"):
        field = "parallelism"
    else:
        return None
    value = spec.get(field, 1)
    if isinstance(value, bool) or not isinstance(value, int):
        return None
    completions = spec.get("completions")
    if field == "parallelism" and isinstance(completions, int) and not isinstance(completions, bool):
        value = min(value, completions)
    return value, ("spec", field) if field in spec else ("spec",)


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True, device_pods=True)
