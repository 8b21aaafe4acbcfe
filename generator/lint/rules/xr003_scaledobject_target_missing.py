"""A KEDA ScaledObject targets a workload that is not in the linted set.

Rationale: KEDA cannot build the HPA for a missing target; the ScaledObject stays not
Ready and nothing scales. This rule runs only when the linted set holds objects of the
target's kind (``Deployment`` when ``scaleTargetRef.kind`` is not given) in the
ScaledObject's namespace, or one of the target's name in another namespace: a namespace
without any, in a set of several clusters or apps, has its workloads deployed from elsewhere.

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

from generator.lint.model import Hit

ID = "XR003"
NAME = "scaledobject-target-missing"
SEVERITY = "error"
SUMMARY = "A ScaledObject's scaleTargetRef names a workload not in the linted set"
SCOPE = "set"


def check(index, ctx):
    for res in index.get("ScaledObject", []):
        spec = res.obj.get("spec")
        ref = spec.get("scaleTargetRef") if isinstance(spec, dict) else None
        if not isinstance(ref, dict) or not isinstance(ref.get("name"), str):
            continue
        kind = ref.get("kind") or "Deployment"
        if not isinstance(kind, str):
            continue  # the schema reports it
        candidates = index.get(kind) or []
        here = [c for c in candidates if c.namespace == res.namespace]
        elsewhere = sorted({c.namespace or "(none)" for c in candidates
                            if c.name == ref["name"] and c.namespace != res.namespace})
        if any(c.name == ref["name"] for c in here) or not (here or elsewhere):
            continue
        found = f" (there is one in namespace {', '.join(elsewhere)})" if elsewhere else ""
        yield res, Hit(f"scaleTargetRef: {kind} {res.namespace or '(none)'}/{ref['name']} not found{found}",
                       ("spec", "scaleTargetRef", "name"), at_value=True)
