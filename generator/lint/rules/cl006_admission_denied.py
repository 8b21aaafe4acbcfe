"""The target cluster's admission policy would deny the object or the pods it creates.

Rationale: the cluster renders a ValidatingAdmissionPolicy (``admission`` in its input) that
denies GPU pods without limits, memory limits or the pools' tolerations. A GitOps engine
shows the refusal only in its sync status, and for custom resources (JobSet, RayCluster,
PyTorchJob) not at all: their controllers' pods are refused later. Lint evaluates the
rendered policy's own CEL (``generator.lint.admission``) with its bindings' namespaces and
actions, so lint and admission cannot disagree: ``Deny`` is an error, ``Warn`` a warning.
Where the provider's API server runs ExtendedResourceToleration (EKS, GKE), the tolerations
it adds to Pods before the policy runs are added first; pod templates get none.

Fix: what the policy's message says; it is the API server's message.

PASS:

    # gpu-gitops-config: {lint: {cluster: eks-mi300x-inference}}
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: embedder
      namespace: embeddings
    spec:
      selector: {matchLabels: {app: embedder}}
      template:
        metadata: {labels: {app: embedder}}
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
    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: embedder
      namespace: embeddings
    spec:
      selector: {matchLabels: {app: embedder}}
      template:
        metadata: {labels: {app: embedder}}
        spec:
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          containers:
            - name: embed
              image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
              resources:
                limits: {nvidia.com/mig-1g.5gb: 1}
"""

from collections.abc import Iterator

from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL006", "admission-denied", "error", "The cluster's admission policy would deny the object or its pods", __doc__
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    from generator.lint import admission  # CEL and the policies' model: only a lint against a cluster loads them

    contract, namespace = ctx.contract, res.namespace
    if not namespace:
        return
    tolerations = ctx.settings.provider_facts is not None and ctx.settings.provider_facts["extendedResourceToleration"]
    for policy in contract.policies:
        if policy.namespaces and namespace not in policy.namespaces:
            continue  # not bound here
        for denial in admission.judge(policy, res.obj, namespace, tolerations):
            whose = "its pods" if denial.path else "it"
            yield Hit(
                f"admission policy {denial.policy} of cluster {contract.cluster} would "
                f"{'deny' if denial.action == 'Deny' else 'warn about'} {whose}: {denial.message}",
                denial.path or ("spec",),
                severity="" if denial.action == "Deny" else "warning",
            )


RULE = ObjectRule(meta=META, cluster=True, check=check, pod_templates=True)
