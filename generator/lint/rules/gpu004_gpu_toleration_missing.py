"""A pod that requests GPUs does not tolerate the GPU nodes' taint.

Rationale: GPU node pools are tainted (``nvidia.com/gpu``/``amd.com/gpu`` NoSchedule by
convention) so that other pods stay off them. A GPU pod without the matching toleration can
never be scheduled: the only nodes with the resource repel it. The
``ExtendedResourceToleration`` admission plugin that would add the toleration is off by
default, so it cannot be assumed. The taint keys are set by ``lint.taintKeys``; a key applies
to pods requesting resources of its domain (``nvidia.com/...``), a key without a vendor
domain applies to every GPU pod. On GKE (``lint.provider: gke``) the platform adds the
toleration itself and this rule is off.

Fix: add ``tolerations: [{key: nvidia.com/gpu, operator: Exists, effect: NoSchedule}]`` to
the pod template.
"""

from generator import jsonpath
from generator.lint import pods
from generator.lint.model import Hit

ID = "GPU004"
NAME = "gpu-toleration-missing"
SEVERITY = "error"
SUMMARY = "A GPU pod has no toleration for the GPU node taint"
SCOPE = "object"

_VENDOR_DOMAINS = {p.rstrip("/") for p in pods.GPU_RESOURCE_PREFIXES}


def check(res, ctx):
    found = pods.pod_spec(res.obj)
    if not found or ctx.settings.provider == "gke":
        return
    spath, spec = found
    domains = {name.split("/", 1)[0] for name in pods.pod_requests_gpu(spath, spec)}
    if not domains:
        return
    for key in ctx.settings.taint_keys:
        domain = key.split("/", 1)[0] if "/" in key else ""
        applies = domain in domains or domain not in _VENDOR_DOMAINS
        if applies and not pods.tolerates(spec, key):
            where = jsonpath.dotted(spath + ("tolerations",))
            yield Hit(f"{where}: pod requests {', '.join(sorted(pods.pod_requests_gpu(spath, spec)))} "
                      f"but does not tolerate the GPU node taint {key}:NoSchedule, so it can never be scheduled",
                      spath + ("tolerations",))

