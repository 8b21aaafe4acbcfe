"""A KEDA trigger still sets ``metricName``.

Rationale: KEDA deprecated ``metadata.metricName`` of its triggers in 2.10 and removed it
in 2.12: the metric name is generated. The field is ignored, so anything that relies on
the name (dashboards, HPA metric selectors) silently stops matching.

Fix: delete ``metricName`` from the trigger's ``metadata``; use the trigger's ``name`` if
a stable identifier is needed.

PASS:

    apiVersion: keda.sh/v1alpha1
    kind: ScaledObject
    metadata:
      name: vllm
      namespace: gpu-inference
    spec:
      scaleTargetRef: {name: vllm}
      triggers:
        - type: prometheus
          name: gpu_util
          metadata:
            serverAddress: http://prometheus.monitoring:9090
            query: avg(DCGM_FI_DEV_GPU_UTIL)
            threshold: "80"

FAIL:

    apiVersion: keda.sh/v1alpha1
    kind: ScaledObject
    metadata:
      name: vllm
      namespace: gpu-inference
    spec:
      scaleTargetRef: {name: vllm}
      triggers:
        - type: prometheus
          metadata:
            serverAddress: http://prometheus.monitoring:9090
            metricName: gpu_util
            query: avg(DCGM_FI_DEV_GPU_UTIL)
            threshold: "80"
"""

from collections.abc import Iterator

from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "API003",
    "keda-metric-name",
    "warning",
    "A KEDA ScaledObject/ScaledJob trigger uses the removed metricName field",
    __doc__,
)

_KINDS = {"ScaledObject", "ScaledJob"}


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    api_version = res.obj.get("apiVersion")
    if res.kind not in _KINDS or not isinstance(api_version, str) or not api_version.startswith("keda.sh/"):
        return
    spec = res.obj.get("spec")
    triggers = spec.get("triggers") if isinstance(spec, dict) else None
    for i, trigger in enumerate(triggers if isinstance(triggers, list) else []):
        metadata = trigger.get("metadata") if isinstance(trigger, dict) else None
        if isinstance(metadata, dict) and "metricName" in metadata:
            yield Hit(
                f"spec.triggers[{i}].metadata.metricName was removed in KEDA 2.12 and is ignored; delete it",
                ("spec", "triggers", i, "metadata", "metricName"),
            )


RULE = ObjectRule(meta=META, check=check, kinds=frozenset(_KINDS))
