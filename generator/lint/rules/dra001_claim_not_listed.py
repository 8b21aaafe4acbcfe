"""A container uses a resource claim that the pod does not list in ``spec.resourceClaims``.

Rationale: with Dynamic Resource Allocation a container names the claims it uses in
``resources.claims[].name``, and each name must be one of the pod's ``spec.resourceClaims``;
the API server rejects the pod or pod template otherwise
(``spec.containers[0].resources.claims[0].name: Not found: "gpu"``, ValidatePodSpec in
k8s.io/kubernetes pkg/apis/core/validation/validation.go, v1.34).

Fix: add the claim to ``spec.resourceClaims`` (``{name: gpu, resourceClaimTemplateName: ...}``)
or correct the container's claim name.

PASS:

    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      resourceClaims:
        - {name: gpu, resourceClaimTemplateName: single-gpu}
      containers:
        - name: smi
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            claims: [{name: gpu}]

FAIL:

    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      resourceClaims:
        - {name: gpus, resourceClaimTemplateName: single-gpu}
      containers:
        - name: smi
          image: nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04
          resources:
            claims: [{name: gpu}]
"""

from collections.abc import Iterator

from generator import jsonpath
from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "DRA001",
    "claim-not-listed",
    "error",
    "A container uses a resource claim the pod does not list in spec.resourceClaims",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    for pod in pods.templates(res.obj):
        listed = set(pods.claims(pod))
        for cpath, container in pod.containers:
            used = container.get("resources")
            used = used.get("claims") if isinstance(used, dict) else None
            for i, claim in enumerate(used if isinstance(used, list) else []):
                name = claim.get("name") if isinstance(claim, dict) else None
                if isinstance(name, str) and name not in listed:
                    where = pods.resources_path(cpath) + ("claims", i, "name")
                    yield Hit(
                        f'{jsonpath.dotted(where)}: Not found: "{name}" is not in spec.resourceClaims',
                        where,
                        at_value=True,
                        hint=f"list it in the pod's resourceClaims ({', '.join(sorted(listed)) or 'none listed'})",
                    )


RULE = ObjectRule(meta=META, check=check, pod_templates=True)
