"""A pod names a PriorityClass that is not in the linted set or the target cluster.

Rationale: the Priority admission plugin rejects a pod whose ``priorityClassName`` names no
PriorityClass (``no PriorityClass with name high was found``), so its controller never gets
a pod running. ``system-cluster-critical`` and ``system-node-critical`` always exist (the API
server creates them). Without a target cluster the rule runs only when the linted set holds
PriorityClasses; with one (``lint --cluster``), the cluster's rendered PriorityClasses count
and a name that is in neither is reported.

Fix: correct ``priorityClassName``, or add the PriorityClass to the manifests or the cluster.

PASS:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      priorityClassName: system-node-critical
      containers:
        - {name: smi, image: "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}

FAIL:

    # gpu-gitops-config: {lint: {cluster: aks-h100-training}}
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      priorityClassName: high-priority
      containers:
        - {name: smi, image: "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}
"""

from collections.abc import Iterable, Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.kube import pods
from generator.lint import references
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.references import NameFact
from generator.lint.settings import COMPLETE_SET
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "XR007",
    "priorityclass-missing",
    "error",
    "A pod references a PriorityClass not in the linted set or the cluster",
    __doc__,
)


def facts(res: Resource, ctx: Context) -> Iterator[tuple[NameFact, Hit | None]]:
    """The PriorityClass's name; each pod's priority class, with its finding should the class be missing."""
    if res.kind == "PriorityClass":
        yield ("class", res.name), None
    for pod in pods.templates(res.obj):
        name = pod.spec.get("priorityClassName")
        if isinstance(name, str) and name and name not in pods.BUILTIN_PRIORITY_CLASSES:
            yield (
                ("pod", name),
                Hit(f"no PriorityClass with name {name} was found", pod.path + ("priorityClassName",), at_value=True),
            )


def check(facts: Sequence[tuple[NameFact, Diagnostic | None]], ctx: Context) -> Iterable[Diagnostic]:
    contract = ctx.settings.contract
    return references.undefined(facts, "pod", contract.priority_classes if contract else None, contract)


RULE = SetRule(
    meta=META,
    facts=facts,
    check=check,
    options={"completeSet": COMPLETE_SET},
    kinds=frozenset({"PriorityClass"}),
    with_pods=True,
)
