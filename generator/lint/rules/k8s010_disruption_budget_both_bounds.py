"""A PodDisruptionBudget sets both ``minAvailable`` and ``maxUnavailable``.

Rationale: the schema lets each be set; the API server's ``ValidatePodDisruptionBudgetSpec``
(kubernetes ``pkg/apis/policy/validation``) refuses a budget with both (``minAvailable and
maxUnavailable cannot be both set``). The budget is refused at apply time, and the pods it
was to protect are evicted by node drains (a GPU node's driver upgrade, a Karpenter
consolidation) without it.

Fix: keep one of the two: ``maxUnavailable`` follows the workload's scale, ``minAvailable``
holds a fixed floor.

PASS:

    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata:
      name: llm-server
      namespace: gpu-inference
    spec:
      maxUnavailable: 1
      selector:
        matchLabels: {app: llm-server}

FAIL:

    apiVersion: policy/v1
    kind: PodDisruptionBudget
    metadata:
      name: llm-server
      namespace: gpu-inference
    spec:
      minAvailable: 2
      maxUnavailable: 1
      selector:
        matchLabels: {app: llm-server}
"""

from collections.abc import Iterator

from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "K8S010",
    "disruption-budget-both-bounds",
    "error",
    "A PodDisruptionBudget sets both minAvailable and maxUnavailable",
    __doc__,
)


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    if res.kind != "PodDisruptionBudget" or not str(res.obj.get("apiVersion")).startswith("policy/"):
        return
    spec = res.obj.get("spec")
    if isinstance(spec, dict) and spec.get("minAvailable") is not None and spec.get("maxUnavailable") is not None:
        yield Hit(
            "spec: Invalid value: minAvailable and maxUnavailable cannot be both set",
            ("spec", "maxUnavailable"),
            hint="keep one of the two",
        )


RULE = ObjectRule(meta=META, check=check, kinds=frozenset({"PodDisruptionBudget"}))
