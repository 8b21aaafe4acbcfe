"""A namespace that runs GPU pods has no default-deny NetworkPolicy.

Rationale: GPU jobs hold model weights, datasets and credentials for object storage;
without a default deny every pod in the cluster can reach them, and they can reach
everything. A default deny is a NetworkPolicy with an empty ``podSelector`` and
``policyTypes`` listing Ingress and no ingress rules. This rule runs only when the linted set
holds NetworkPolicies.

Fix: add ``NetworkPolicy default-deny-all`` (``podSelector: {}``,
``policyTypes: [Ingress, Egress]``) to the namespace, plus the allows it needs (DNS,
metrics scraping).

PASS:

    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata:
      name: default-deny-all
      namespace: gpu-training
    spec:
      podSelector: {}
      policyTypes: [Ingress, Egress]
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits: {nvidia.com/gpu: 1, memory: 8Gi}

FAIL:

    apiVersion: networking.k8s.io/v1
    kind: NetworkPolicy
    metadata:
      name: allow-dns
      namespace: gpu-training
    spec:
      podSelector: {}
      policyTypes: [Egress]
      egress:
        - ports: [{port: 53, protocol: UDP}]
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: train
      namespace: gpu-training
    spec:
      tolerations:
        - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
      containers:
        - name: main
          image: nvcr.io/nvidia/pytorch:24.05-py3
          resources:
            limits: {nvidia.com/gpu: 1, memory: 8Gi}
"""

from collections.abc import Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.settings import COMPLETE_SET
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "XR004",
    "gpu-namespace-default-deny",
    "warning",
    "A namespace with GPU pods has no default-deny NetworkPolicy",
    __doc__,
)


# ("policy", namespace, is a default deny) of a NetworkPolicy; ("gpu", namespace) of an object with GPU pods
_Fact = tuple[str, str, bool] | tuple[str, str]


def facts(res: Resource, ctx: Context) -> Iterator[tuple[_Fact, Hit | None]]:
    """Whether a NetworkPolicy is a default deny; the namespace of an object with GPU pods,
    located for a finding."""
    if res.kind == "NetworkPolicy":
        yield ("policy", res.namespace, _is_default_deny(res.obj)), None
    # a pod that asks for no device (``uses_devices``, which the engine asked already) asks for no GPU
    if any(pods.uses_devices(pod) and pods.pod_requests_gpu(pod) for pod in pods.templates(res.obj)):
        yield (
            ("gpu", res.namespace),
            Hit(
                f"namespace {res.namespace or '(none)'} runs GPU pods but has no default-deny NetworkPolicy",
                ("metadata", "namespace"),
                at_value=True,
            ),
        )


def check(facts: Sequence[tuple[_Fact, Diagnostic | None]], ctx: Context) -> Iterator[Diagnostic]:
    """One finding per namespace, on its first object with GPU pods (in file order)."""
    policies = [fact for fact, _ in facts if fact[0] == "policy"]
    if not policies:
        return
    denied = {fact[1] for fact in policies if len(fact) == 3 and fact[2]}
    reported = set()
    for fact, finding in facts:
        if fact[0] == "gpu" and fact[1] not in denied and fact[1] not in reported:
            reported.add(fact[1])
            if finding is not None:
                yield finding


def _is_default_deny(obj: dict) -> bool:
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return False
    types = spec.get("policyTypes") or ["Ingress"]
    return spec.get("podSelector") == {} and isinstance(types, list) and "Ingress" in types and not spec.get("ingress")


RULE = SetRule(
    meta=META,
    facts=facts,
    check=check,
    options={"completeSet": COMPLETE_SET},
    kinds=frozenset({"NetworkPolicy"}),
    with_pods=True,
)
