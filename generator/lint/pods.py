"""Where pod specs and containers sit inside workload objects, and how to name their fields.

Rules look at the pod template wherever the kind keeps it; ``generator.jsonpath`` names
the fields they report the way the API server does.
"""

from __future__ import annotations

from collections.abc import Iterator

_TEMPLATE = {
    "Pod": ("spec",),
    "PodTemplate": ("template", "spec"),
    "Deployment": ("spec", "template", "spec"),
    "StatefulSet": ("spec", "template", "spec"),
    "DaemonSet": ("spec", "template", "spec"),
    "ReplicaSet": ("spec", "template", "spec"),
    "ReplicationController": ("spec", "template", "spec"),
    "Job": ("spec", "template", "spec"),
    "CronJob": ("spec", "jobTemplate", "spec", "template", "spec"),
}
CONTAINER_LISTS = ("initContainers", "containers")
GPU_RESOURCE_PREFIXES = ("nvidia.com/", "amd.com/", "gpu.intel.com/")


def pod_spec(obj: dict) -> tuple[tuple, dict] | None:
    """``(path, spec)`` of the pod spec of a workload object, or None."""
    kind = obj.get("kind")
    path = _TEMPLATE.get(kind) if isinstance(kind, str) else None
    if path is None:
        return None
    node = obj
    for part in path:
        node = node.get(part) if isinstance(node, dict) else None
    return (path, node) if isinstance(node, dict) else None


def containers(spec_path: tuple, spec: dict) -> Iterator[tuple[tuple, dict]]:
    """``(path, container)`` for every init and app container."""
    for key in CONTAINER_LISTS:
        items = spec.get(key)
        if isinstance(items, list):
            for i, container in enumerate(items):
                if isinstance(container, dict):
                    yield spec_path + (key, i), container


def resources(container: dict) -> tuple[dict, dict]:
    """``(requests, limits)`` of a container, empty dicts when absent."""
    res = container.get("resources")
    res = res if isinstance(res, dict) else {}
    requests, limits = res.get("requests"), res.get("limits")
    return (requests if isinstance(requests, dict) else {}), (limits if isinstance(limits, dict) else {})


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def is_extended(name: str) -> bool:
    """Kubernetes' IsExtendedResourceName: a domain-prefixed name outside kubernetes.io."""
    if "/" not in name or name.startswith("requests."):
        return False
    domain = name.split("/", 1)[0]
    return not (domain == "kubernetes.io" or domain.endswith(".kubernetes.io"))


def is_gpu(name: str) -> bool:
    return name.startswith(GPU_RESOURCE_PREFIXES) and is_extended(name)


def gpu_names(container: dict) -> set[str]:
    requests, limits = resources(container)
    return {n for n in (*requests, *limits) if isinstance(n, str) and is_gpu(n)}


def pod_requests_gpu(spec_path: tuple, spec: dict) -> set[str]:
    names: set[str] = set()
    for _, container in containers(spec_path, spec):
        names |= gpu_names(container)
    return names


def tolerates(spec: dict, key: str, effect: str = "NoSchedule") -> bool:
    """Whether the pod's tolerations let it onto nodes tainted ``key`` with ``effect``."""
    tolerations = spec.get("tolerations")
    for tol in tolerations if isinstance(tolerations, list) else []:
        if not isinstance(tol, dict):
            continue
        tol_effect = tol.get("effect") or ""
        if tol_effect and tol_effect != effect:
            continue
        operator = tol.get("operator") or "Equal"
        tol_key = tol.get("key") or ""
        if tol_key == "" and operator == "Exists":
            return True
        if tol_key == key:
            return True
    return False


def secured(spath: tuple, spec: dict, test) -> bool:
    """Whether ``test`` holds for the pod's securityContext, or for every container's (a
    pod-level setting is the default each container may override)."""
    if test(spec.get("securityContext")):
        return True
    found = list(containers(spath, spec))
    return bool(found) and all(test(c.get("securityContext")) for _, c in found)


def container_resources(obj: dict) -> Iterator[tuple[tuple, dict, dict, dict]]:
    """``(path, container, requests, limits)`` for every container of a workload object."""
    found = pod_spec(obj)
    if found:
        for cpath, container in containers(*found):
            yield (cpath, container, *resources(container))


def restricted_pod_spec(res, ctx) -> tuple[tuple, dict] | None:
    """The pod spec, unless the object is no workload or its namespace may use host access."""
    found = pod_spec(res.obj)
    if not found or ctx.settings.privileged_allowed(res.namespace):
        return None
    return found
