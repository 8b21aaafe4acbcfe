"""A pod claims devices through a ResourceClaimTemplate its namespace does not have on the target cluster.

Rationale: for ``spec.resourceClaims[].resourceClaimTemplateName`` the resource claim
controller creates the pod's claim from the template in the pod's namespace; when there is
none the pod stays Pending (``resourceclaimtemplate.resource.k8s.io "x" not found``), and a
workload controller keeps creating pods that never start. With ``lint --cluster`` lint knows
the templates the cluster renders in each of its namespaces (``workloads[].claims``) and those
the NVIDIA DRA driver generates for a ComputeDomain (``spec.channel.resourceClaimTemplate``);
templates defined in the linted files count too. Only namespaces the cluster manages are
judged: elsewhere lint cannot know what exists.

Fix: name a template of the namespace (``gpu-gitops lint --cluster NAME`` lists them in the
message), add it to the namespace's ``claims`` in the cluster's input, or add the
ResourceClaimTemplate to the manifests.

PASS:

    # gpu-gitops-config: {lint: {cluster: onprem-gb200-dra}}
    apiVersion: v1
    kind: Pod
    metadata: {name: smi, namespace: llm-serving}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      resourceClaims:
        - {name: gpu, resourceClaimTemplateName: b200-3g}
      containers:
        - name: smi
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            claims: [{name: gpu}]
            limits: {memory: 1Gi}

FAIL:

    # gpu-gitops-config: {lint: {cluster: onprem-gb200-dra}}
    apiVersion: v1
    kind: Pod
    metadata: {name: smi, namespace: llm-serving}
    spec:
      tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]
      resourceClaims:
        - {name: gpu, resourceClaimTemplateName: b200-7g}
      containers:
        - name: smi
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            claims: [{name: gpu}]
            limits: {memory: 1Gi}
"""

from collections.abc import Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.references import NameFact
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "CL008",
    "claim-template-missing",
    "error",
    "A pod's claim names a ResourceClaimTemplate its namespace lacks on the target cluster",
    __doc__,
)


def facts(res: Resource, ctx: Context) -> Iterator[tuple[NameFact, Hit | None]]:
    """A template's ``namespace/name``; each pod's claim template, with its finding."""
    if res.kind == "ResourceClaimTemplate" and res.obj["apiVersion"].startswith("resource.k8s.io/"):
        yield ("class", f"{res.namespace}/{res.name}"), None
    contract = ctx.contract
    if not contract.manages(res.namespace):
        return
    for pod in pods.templates(res.obj):
        for i, claim in enumerate(pod.spec.get("resourceClaims") or []):
            name = claim.get("resourceClaimTemplateName") if isinstance(claim, dict) else None
            if isinstance(name, str) and name:
                have = [t.split("/", 1)[1] for t in contract.claim_templates if t.startswith(res.namespace + "/")]
                yield (
                    ("pod", f"{res.namespace}/{name}"),
                    Hit(
                        f'resourceclaimtemplate.resource.k8s.io "{name}" not found in namespace {res.namespace} '
                        f"of cluster {contract.cluster}: the pod stays Pending",
                        pod.path + ("resourceClaims", i, "resourceClaimTemplateName"),
                        at_value=True,
                        hint=f"name one of its templates ({', '.join(have) or 'none'}), or add it to the "
                        "namespace's claims in the cluster's input",
                    ),
                )


def check(facts: Sequence[tuple[NameFact, Diagnostic | None]], ctx: Context) -> Iterator[Diagnostic]:
    contract = ctx.contract
    known = {fact[1] for fact, _ in facts if fact[0] == "class"} | set(contract.claim_templates)
    for fact, finding in facts:
        if fact[0] == "pod" and finding is not None and fact[1] not in known:
            yield finding


RULE = SetRule(
    meta=META, cluster=True, facts=facts, check=check, kinds=frozenset({"ResourceClaimTemplate"}), with_pods=True
)
