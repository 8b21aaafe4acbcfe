"""A DaemonSet bound to GPU nodes does not tolerate the GPU pool taint.

Rationale: GPU node pools are often tainted (NoSchedule). A DaemonSet whose node selector
or required node affinity picks GPU nodes (labels under ``nvidia.com/``, ``amd.com/``, the
PCI vendor labels of Node Feature Discovery, or GKE's accelerator label) but lacks the
toleration never gets a pod on those nodes: device plugins, exporters and node tuning
silently do nothing. The taint keys are decided as for GPU004 (``lint.taintKeys``, else the
``lint.provider`` default, else ``nvidia.com/gpu`` and ``amd.com/gpu`` as a warning); no
admission plugin helps here, as a DaemonSet requests no GPU. A key without a vendor domain
(``sku``, as AKS's guide taints pools) applies to DaemonSets selecting any GPU vendor's nodes.

Fix: add ``tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]`` (the
pool's taint key) to the DaemonSet's pod template.

PASS:

    # gpu-gitops-config: {lint: {taintKeys: [nvidia.com/gpu]}}
    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: dcgm-exporter
      namespace: gpu-operator
    spec:
      selector: {matchLabels: {app: dcgm-exporter}}
      template:
        metadata: {labels: {app: dcgm-exporter}}
        spec:
          nodeSelector: {nvidia.com/gpu.present: "true"}
          tolerations:
            - {key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}
          containers:
            - {name: exporter, image: "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04"}

FAIL:

    # gpu-gitops-config: {lint: {taintKeys: [nvidia.com/gpu]}}
    apiVersion: apps/v1
    kind: DaemonSet
    metadata:
      name: dcgm-exporter
      namespace: gpu-operator
    spec:
      selector: {matchLabels: {app: dcgm-exporter}}
      template:
        metadata: {labels: {app: dcgm-exporter}}
        spec:
          nodeSelector: {nvidia.com/gpu.present: "true"}
          containers:
            - {name: exporter, image: "nvcr.io/nvidia/k8s/dcgm-exporter:3.3.5-3.4.1-ubuntu22.04"}
"""

from collections.abc import Iterator

from generator.kube import pods
from generator.lint.model import Hit, Resource
from generator.lint.protocol import Context, ObjectRule
from generator.lint.rules.gpu004_gpu_toleration_missing import UNKNOWN_TAINTS_HINT
from generator.lint.settings import TAINT_KEYS
from generator.rulemeta import RuleMeta

META = RuleMeta(
    "XR005",
    "daemonset-gpu-taint",
    "error",
    "A DaemonSet selecting GPU nodes does not tolerate the GPU pool taint",
    __doc__,
)

_VENDOR_LABELS = {
    "nvidia.com": ("nvidia.com/", "feature.node.kubernetes.io/pci-10de", "cloud.google.com/gke-accelerator"),
    "amd.com": ("amd.com/", "feature.node.kubernetes.io/pci-1002", "beta.amd.com/"),
}


def check(res: Resource, ctx: Context) -> Iterator[Hit]:
    if res.kind != "DaemonSet":
        return
    settings = ctx.settings
    for pod in pods.templates(res.obj, custom=False):
        vendors = {
            v
            for key in _selected_label_keys(pod.spec)
            for v, prefixes in _VENDOR_LABELS.items()
            if key.startswith(prefixes)
        }
        for key in settings.gpu_taint_keys(META.id):
            domain = key.split("/", 1)[0] if "/" in key else ""
            applies = domain in vendors or (vendors and domain not in _VENDOR_LABELS)
            if not applies or pods.tolerates(pod.spec, key):
                continue
            message = (
                f"DaemonSet selects {', '.join(sorted(vendors))} GPU nodes but does not tolerate their "
                f"taint {key}:NoSchedule, so it runs no pod there"
            )
            if settings.knows_gpu_taints(META.id):
                hint = f"add `{{key: {key}, operator: Exists, effect: NoSchedule}}` to the tolerations"
                yield Hit(message, pod.path + ("tolerations",), hint=hint)
            else:
                yield Hit(
                    message + " if the GPU nodes carry that taint",
                    pod.path + ("tolerations",),
                    hint=UNKNOWN_TAINTS_HINT,
                    severity="warning",
                )


def _selected_label_keys(spec: dict) -> set[str]:
    keys = set()
    selector = spec.get("nodeSelector")
    if isinstance(selector, dict):
        keys |= set(selector)
    affinity = spec.get("affinity")
    node = affinity.get("nodeAffinity") if isinstance(affinity, dict) else None
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution") if isinstance(node, dict) else None
    terms = required.get("nodeSelectorTerms") if isinstance(required, dict) else None
    for term in terms if isinstance(terms, list) else []:
        for expr in term.get("matchExpressions", []) if isinstance(term, dict) else []:
            if isinstance(expr, dict) and isinstance(expr.get("key"), str) and expr.get("operator") != "DoesNotExist":
                keys.add(expr["key"])
    return keys


RULE = ObjectRule(meta=META, check=check, options={"taintKeys": TAINT_KEYS}, kinds=frozenset({"DaemonSet"}))
