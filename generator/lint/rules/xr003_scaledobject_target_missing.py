"""A KEDA ScaledObject targets a workload that is not in the linted set.

Rationale: KEDA cannot build the HPA for a missing target; the ScaledObject stays not
Ready and nothing scales. This rule runs only when the linted set holds objects of the
target's kind (``Deployment`` when ``scaleTargetRef.kind`` is not given) in the
ScaledObject's namespace, or one of the target's name in another namespace: a namespace
without any, in a set of several clusters or apps, has its workloads deployed from elsewhere.
Only kinds that can be scaled are indexed: KEDA scales Deployments, StatefulSets and custom
resources that define the /scale subresource (keda.sh/docs/2.x/concepts/scaling-deployments,
"Scaling of Custom Resources"); the built-in kinds with /scale are Deployment, StatefulSet,
ReplicaSet and ReplicationController, and every custom resource is indexed, as its CRD may
define one.

Fix: correct ``scaleTargetRef.name``/``kind``, or put the ScaledObject in the target's
namespace.

PASS:

    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: vllm
      namespace: gpu-inference
    spec:
      selector: {matchLabels: {app: vllm}}
      template:
        metadata: {labels: {app: vllm}}
        spec:
          containers: [{name: vllm, image: "vllm/vllm-openai:v0.5.0"}]
    ---
    apiVersion: keda.sh/v1alpha1
    kind: ScaledObject
    metadata:
      name: vllm
      namespace: gpu-inference
    spec:
      scaleTargetRef: {name: vllm}
      triggers:
        - {type: cpu, metricType: Utilization, metadata: {value: "60"}}

FAIL:

    apiVersion: apps/v1
    kind: Deployment
    metadata:
      name: vllm
      namespace: gpu-inference
    spec:
      selector: {matchLabels: {app: vllm}}
      template:
        metadata: {labels: {app: vllm}}
        spec:
          containers: [{name: vllm, image: "vllm/vllm-openai:v0.5.0"}]
    ---
    apiVersion: keda.sh/v1alpha1
    kind: ScaledObject
    metadata:
      name: vllm
      namespace: gpu-inference
    spec:
      scaleTargetRef: {name: vllm-server}
      triggers:
        - {type: cpu, metricType: Utilization, metadata: {value: "60"}}
"""

import functools
import sys
from collections.abc import Iterator, Sequence

from generator.diagnostic import Diagnostic
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, SetRule
from generator.lint.settings import COMPLETE_SET
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "XR003",
    "scaledobject-target-missing",
    "error",
    "A ScaledObject's scaleTargetRef names a workload not in the linted set",
    __doc__,
)


_SCALABLE_BUILT_IN = frozenset({"Deployment", "StatefulSet", "ReplicaSet", "ReplicationController"})


# ("object", kind, namespace, name) of every object; ("target", kind, namespace, name) of a scale target
_Fact = tuple[str, str, str, str]


def facts(res: Resource, ctx: Context) -> Iterator[tuple[_Fact, Hit | None]]:
    """A scalable object's kind, namespace and name; a ScaledObject's target, located for a finding."""
    if _scalable(res.kind, res.obj["apiVersion"]):
        yield ("object", sys.intern(res.kind), sys.intern(res.namespace), res.name), None
    if res.kind != "ScaledObject":
        return
    spec = res.obj.get("spec")
    ref = spec.get("scaleTargetRef") if isinstance(spec, dict) else None
    if not isinstance(ref, dict) or not isinstance(ref.get("name"), str):
        return
    kind = ref.get("kind") or "Deployment"
    if isinstance(kind, str):  # else the schema reports it
        yield ("target", kind, res.namespace, ref["name"]), Hit("", ("spec", "scaleTargetRef", "name"), at_value=True)


@functools.cache  # asked for every object, of a few kinds
def _scalable(kind: str, api_version: str) -> bool:
    group = api_version.rpartition("/")[0]
    built_in = "." not in group or group.endswith(".k8s.io")
    return kind in _SCALABLE_BUILT_IN or not built_in


def check(facts: Sequence[tuple[_Fact, Diagnostic | None]], ctx: Context) -> Iterator[Diagnostic]:
    objects: dict[str, list[tuple[str, str]]] = {}
    for fact, _ in facts:
        if fact[0] == "object":
            objects.setdefault(fact[1], []).append((fact[2], fact[3]))
    for fact, finding in facts:
        if fact[0] != "target" or finding is None:
            continue
        _, kind, namespace, name = fact
        candidates = objects.get(kind) or []
        here = [n for ns, n in candidates if ns == namespace]
        elsewhere = sorted({ns or "(none)" for ns, n in candidates if n == name and ns != namespace})
        if name in here or not (here or elsewhere):
            continue
        found = f" (there is one in namespace {', '.join(elsewhere)})" if elsewhere else ""
        yield finding.replace(message=f"scaleTargetRef: {kind} {namespace or '(none)'}/{name} not found{found}")


RULE = SetRule(meta=META, facts=facts, check=check, options={"completeSet": COMPLETE_SET})
