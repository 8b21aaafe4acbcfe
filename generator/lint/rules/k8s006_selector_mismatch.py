"""A workload's selector is empty or does not match its pod template's labels.

Rationale: the OpenAPI schema only types ``spec.selector``; the API server's own validation
refuses a Deployment, ReplicaSet, StatefulSet or DaemonSet whose selector is empty (``empty
selector is invalid for deployment``) or does not select the labels of its own pod template
(``spec.template.metadata.labels: Invalid value: ...: `selector` does not match template
`labels```: kubernetes ``pkg/apis/apps/validation`` ``ValidateDeploymentSpec``,
``ValidateReplicaSetSpec``, ``ValidateStatefulSetSpec``, ``ValidateDaemonSetSpec``), and a
Job with ``manualSelector: true`` likewise (``pkg/apis/batch/validation``). The object passes
every schema check and is refused at apply time, which stalls the GitOps sync. The selector is
evaluated as the API server does: every ``matchLabels`` pair, and each ``matchExpressions``
requirement (``In``, ``NotIn``, ``Exists``, ``DoesNotExist``) against the template's labels.

Fix: give the pod template the labels the selector asks for (or select the template's labels).
The selector of an existing workload is immutable: change it by recreating the object.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: llm-server
      namespace: gpu-inference
    spec:
      selector:
        matchLabels: {app: llm-server}
      template:
        metadata:
          labels: {app: llm-server, tier: serving}
        spec:
          containers:
            - {name: server, image: "vllm/vllm-openai:v0.6.3"}

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: llm-server
      namespace: gpu-inference
    spec:
      selector:
        matchLabels: {app: llm-server}
      template:
        metadata:
          labels: {app: llm}
        spec:
          containers:
            - {name: server, image: "vllm/vllm-openai:v0.6.3"}
"""

from collections.abc import Iterator

from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S006",
    "selector-mismatch",
    "error",
    "A workload's selector is empty or does not match its pod template's labels",
    __doc__,
)

_KINDS = {
    ("apps/v1", "Deployment"),
    ("apps/v1", "ReplicaSet"),
    ("apps/v1", "StatefulSet"),
    ("apps/v1", "DaemonSet"),
    ("batch/v1", "Job"),
}


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    if (res.obj["apiVersion"], res.kind) not in _KINDS:
        return
    spec = res.obj.get("spec")
    if not isinstance(spec, dict):
        return
    selector = spec.get("selector")
    if res.kind == "Job" and spec.get("manualSelector") is not True:
        return  # the API server generates the Job's selector
    if not isinstance(selector, dict):
        return  # missing: the schema check reports it
    labels_expr, expressions = selector.get("matchLabels") or {}, selector.get("matchExpressions") or []
    if not isinstance(labels_expr, dict) or not isinstance(expressions, list):
        return
    if not labels_expr and not expressions:
        yield Hit(f"empty selector is invalid for {res.kind.lower()}", ("spec", "selector"))
        return
    template = spec.get("template")
    meta = template.get("metadata") if isinstance(template, dict) else None
    labels = meta.get("labels") if isinstance(meta, dict) else None
    labels = labels if isinstance(labels, dict) else {}
    missed = _unmatched(labels_expr, expressions, labels)
    if missed:
        yield Hit(
            f"`selector` does not match template `labels` ({missed}): the API server refuses the {res.kind}",
            ("spec", "template", "metadata", "labels") if labels else ("spec", "template"),
            hint="give the pod template the labels the selector asks for",
        )


def _unmatched(match_labels: dict, expressions: list, labels: dict) -> str:
    """The first requirement ``labels`` fail, as text; empty when they match."""
    for key, value in match_labels.items():
        if str(labels.get(key)) != str(value) or key not in labels:
            return f"{key}={value}"
    for expr in expressions:
        if not isinstance(expr, dict) or not isinstance(expr.get("key"), str):
            continue
        key, op, values = expr.get("key"), expr.get("operator"), expr.get("values") or []
        present = key in labels
        value = str(labels.get(key)) if present else None
        ok = {
            "In": present and value in [str(v) for v in values],
            "NotIn": not present or value not in [str(v) for v in values],
            "Exists": present,
            "DoesNotExist": not present,
        }.get(str(op), True)  # an unknown operator: the schema or the API server's selector check reports it
        if not ok:
            return f"{key} {op} {values}" if values else f"{key} {op}"
    return ""


RULE = ObjectRule(meta=META, check=check, kinds=frozenset(kind for _api_version, kind in _KINDS))
