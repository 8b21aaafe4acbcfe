"""A pod names a RuntimeClass that is not in the linted set.

Rationale: the RuntimeClass admission plugin rejects the pod
(``pod rejected: RuntimeClass "nvidia" not found``), so the controller never gets a pod
running. The GPU operator creates ``nvidia`` itself only when its toolkit is deployed.
This rule runs only when the linted set holds RuntimeClasses.

Fix: correct ``runtimeClassName``, or add the RuntimeClass to the manifests.

PASS:

    apiVersion: node.k8s.io/v1
    kind: RuntimeClass
    metadata:
      name: nvidia
    handler: nvidia
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      runtimeClassName: nvidia
      containers:
        - {name: smi, image: "nvcr.io/nvidia/cuda:12.4.1-base-ubuntu22.04"}

FAIL:

    apiVersion: node.k8s.io/v1
    kind: RuntimeClass
    metadata:
      name: nvidia
    handler: nvidia
    ---
    apiVersion: v1
    kind: Pod
    metadata:
      name: smi
      namespace: gpu-training
    spec:
      runtimeClassName: nvidia-cdi
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
    "XR002", "runtimeclass-missing", "error", "A pod references a RuntimeClass not in the linted set", __doc__
)


def facts(res: Resource, ctx: Context) -> Iterator[tuple[NameFact, Hit | None]]:
    """The RuntimeClass's name; each pod's runtime class, with its finding should the class be missing."""
    if res.kind == "RuntimeClass":
        yield ("class", res.name), None
    for pod in pods.templates(res.obj):
        name = pod.spec.get("runtimeClassName")
        if isinstance(name, str):
            yield (
                ("pod", name),
                Hit(f'pod rejected: RuntimeClass "{name}" not found', pod.path + ("runtimeClassName",), at_value=True),
            )


def check(facts: Sequence[tuple[NameFact, Diagnostic | None]], ctx: Context) -> Iterable[Diagnostic]:
    contract = ctx.settings.contract
    return references.undefined(facts, "pod", contract.runtime_classes if contract else None, contract)


RULE = SetRule(
    meta=META,
    facts=facts,
    check=check,
    options={"completeSet": COMPLETE_SET},
    kinds=frozenset({"RuntimeClass"}),
    with_pods=True,
)
