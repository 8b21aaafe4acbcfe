"""What a change to a workload, a role or a webhook does on the cluster, beyond its bytes: the
nodes a DaemonSet rolls, a GPU driver reload, wider RBAC, a webhook that now catches other
requests or fails closed, a new privileged or hostPath pod. Most of these arrive with a chart
bump or a values change (the objects under ``charts/<release>/``), where a one-line version
change in the HelmRelease hides them. The GPU Operator's driver images are classified wherever
the ClusterPolicy is rendered; the rest for the chart objects (ours are reviewed by their own
rules: a toleration removed, an immutable field).

Sources: a DaemonSet rolls its pods when ``spec.template`` changes (kubernetes
pkg/controller/daemon, the controller-revision hash of the template); the GPU Operator's
ClusterPolicy ``driver``, ``driver.manager`` and ``toolkit`` images are what its state
machine compares before it upgrades the driver pods, draining GPU pods from each node
(NVIDIA/gpu-operator controllers/object_controls.go, ``docs`` "GPU Driver Upgrades"); a
webhook's ``failurePolicy``, ``namespaceSelector``, ``objectSelector`` and ``rules`` decide
which requests it sees and what a webhook outage does (admissionregistration.k8s.io/v1).
Which pools a pod lands on is read from the cluster's input (``Pool``): taints its
tolerations cover, and its nodeSelector and required node affinity against the pool's
nodeSelector; a label the input does not set (one NFD or an operator adds) counts as
matching, since offline nothing says it does not.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from generator.review.compare import Change

_POD_TEMPLATE = {
    "DaemonSet": ("spec", "template"),
    "Deployment": ("spec", "template"),
    "StatefulSet": ("spec", "template"),
    "ReplicaSet": ("spec", "template"),
    "Job": ("spec", "template"),
    "CronJob": ("spec", "jobTemplate", "spec", "template"),
}
# ClusterPolicy (nvidia.com/v1) parts whose image change reloads the driver or restarts the runtime
_GPU_OPERATOR_PARTS = {
    ("driver",): "the driver: each GPU node is drained of GPU pods and its driver reloaded",
    ("driver", "manager"): "the driver manager, which drains and reloads the driver on each GPU node",
    ("toolkit",): "the container toolkit, which restarts the container runtime on each GPU node",
}
_IMAGE_FIELDS = ("repository", "image", "version")
CHARTS = "charts/"  # where the inflated releases are (render.charts)
_WEBHOOK_FIELDS = ("failurePolicy", "namespaceSelector", "objectSelector", "rules", "matchPolicy", "matchConditions")


@dataclass(frozen=True)
class Pool:
    """A node pool as the input declares it."""

    name: str
    labels: dict = field(default_factory=dict, hash=False)
    taints: tuple = ()
    nodes: int = 0


def _get(obj, path: tuple):
    for key in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(key)
    return obj


def _pod_spec(obj: dict) -> dict | None:
    path = _POD_TEMPLATE.get(str(obj.get("kind")))
    if path is None:
        return None
    spec = _get(obj, (*path, "spec"))
    return spec if isinstance(spec, dict) else None


def _tolerates(tolerations, taint: dict) -> bool:
    for t in tolerations or []:
        if not isinstance(t, dict):
            continue
        if t.get("effect") and t.get("effect") != taint.get("effect"):
            continue
        if t.get("operator") == "Exists" and not t.get("key"):
            return True
        if t.get("key") != taint.get("key"):
            continue
        if t.get("operator") == "Exists" or str(t.get("value", "")) == str(taint.get("value", "")):
            return True
    return False


def _expression(expr: dict, labels: dict) -> bool:
    key, op, values = expr.get("key"), expr.get("operator"), [str(v) for v in expr.get("values") or []]
    if key not in labels:
        return True  # a label the input does not set: unknown offline, counts as matching
    value = str(labels[key])
    if op in ("Gt", "Lt"):
        if not (value.isdigit() and values and values[0].isdigit()):
            return False
        return int(value) > int(values[0]) if op == "Gt" else int(value) < int(values[0])
    return {"In": value in values, "NotIn": value not in values, "Exists": True, "DoesNotExist": False}.get(
        str(op), True
    )


def lands_on(spec: dict, pool: Pool) -> bool:
    """Whether pods of ``spec`` can run on the pool's nodes (as far as the input tells)."""
    for taint in pool.taints:
        if taint.get("effect") in ("NoSchedule", "NoExecute") and not _tolerates(spec.get("tolerations"), taint):
            return False
    for key, value in (spec.get("nodeSelector") or {}).items():
        if key in pool.labels and str(pool.labels[key]) != str(value):
            return False
    terms = _get(
        spec, ("affinity", "nodeAffinity", "requiredDuringSchedulingIgnoredDuringExecution", "nodeSelectorTerms")
    )
    if isinstance(terms, list) and terms:
        return any(
            all(_expression(e, pool.labels) for e in (term.get("matchExpressions") or []) if isinstance(e, dict))
            for term in terms
            if isinstance(term, dict)
        )
    return True


def _pools_text(spec: dict, pools: tuple[Pool, ...]) -> str:
    hit = [p for p in pools if lands_on(spec, p)]
    if not pools:
        return "its nodes"
    if not hit:
        return "no pool of the input (its nodes are labelled outside the input)"
    nodes = sum(p.nodes for p in hit)
    return "pools " + ", ".join(p.name for p in hit) + (f" ({nodes} GPU nodes among them)" if nodes else "")


def findings(change: Change, pools: tuple[Pool, ...]) -> list[tuple[str, str]]:
    """(level, reason) of what the change does to running workloads; ``danger`` or ``notice``."""
    out: list[tuple[str, str]] = []
    after = change.after
    if after is None:
        return out
    ident, obj = change.identity, after.obj
    chart = after.path.startswith(CHARTS) or from_chart(obj)
    if change.action in ("changed", "moved", "renamed") and chart:
        template = _POD_TEMPLATE.get(ident.kind)
        if ident.kind == "DaemonSet" and template and any(f.path[: len(template)] == template for f in change.fields):
            spec = _pod_spec(obj) or {}
            changed = sorted({f.dotted for f in change.fields if f.path[: len(template)] == template})[:3]
            out.append(
                (
                    "danger",
                    f"rolls {ident}'s pods on {_pools_text(spec, pools)}: its pod template changed "
                    f"({', '.join(changed)}), so every node restarts its pod, one after another",
                )
            )
    if change.action in ("changed", "moved", "renamed"):
        if ident.group == "nvidia.com" and ident.kind == "ClusterPolicy":
            for part, what in _GPU_OPERATOR_PARTS.items():
                spec_path = ("spec", *part)
                if any(
                    f.path[: len(spec_path) + 1][:-1] == spec_path
                    and len(f.path) == len(spec_path) + 1
                    and f.path[-1] in _IMAGE_FIELDS
                    for f in change.fields
                ):
                    out.append(("danger", f"changes the GPU Operator's {'.'.join(part)} image in {ident}: {what}"))
        if chart and ident.group == "rbac.authorization.k8s.io" and ident.kind in ("ClusterRole", "Role"):
            wider = sorted(_grants(obj) - _grants(change.before.obj if change.before else {}))
            if wider:
                shown = ", ".join(f"{v} {r}" for r, v in wider[:5]) + (" ..." if len(wider) > 5 else "")
                scope = "cluster-wide" if ident.kind == "ClusterRole" else f"in {ident.namespace}"
                out.append(("danger", f"widens {ident}: it now grants {shown} {scope}"))
        if chart and ident.group == "admissionregistration.k8s.io" and ident.kind.endswith("WebhookConfiguration"):
            touched = sorted(
                {
                    f"{f.path[1]}.{f.path[2]}"
                    for f in change.fields
                    if len(f.path) > 2 and f.path[0] == "webhooks" and f.path[2] in _WEBHOOK_FIELDS
                },
                key=str,
            )
            if touched:
                out.append(
                    (
                        "danger",
                        f"changes which requests {ident} sees or what its outage does ({', '.join(touched[:4])}): "
                        "a webhook that fails closed blocks every matching create and update while it is down",
                    )
                )
    before_spec = _pod_spec(change.before.obj) if change.before else None
    pod = _pod_spec(obj)
    if pod is not None and chart:
        new_powers = _powers(pod) - (_powers(before_spec) if before_spec else set())
        if new_powers:
            out.append(
                (
                    "notice" if change.action == "added" else "danger",
                    f"{'adds' if change.action == 'added' else 'gives'} {ident} {', '.join(sorted(new_powers))}: "
                    "its pods can reach the node itself (check why the chart needs it)",
                )
            )
    return out


def from_chart(obj: dict) -> bool:
    """An object a Helm chart rendered, wherever it sits (a hydrated release's objects are in
    its layer): charts label what they render with ``helm.sh/chart`` or
    ``app.kubernetes.io/managed-by: Helm`` (Helm's chart best practices, "Labels and
    Annotations"), the library never does."""
    labels = (obj.get("metadata") or {}).get("labels") or {}
    return "helm.sh/chart" in labels or labels.get("app.kubernetes.io/managed-by") == "Helm"


def _grants(role: dict) -> set[tuple[str, str]]:
    """(resource as group/resource, verb) pairs a Role or ClusterRole grants."""
    out = set()
    for rule in role.get("rules") or []:
        if not isinstance(rule, dict):
            continue
        for group in rule.get("apiGroups") or [""]:
            for resource in rule.get("resources") or rule.get("nonResourceURLs") or []:
                for verb in rule.get("verbs") or []:
                    out.add((f"{group}/{resource}" if group else str(resource), str(verb)))
    return out


def _powers(spec: dict) -> set[str]:
    """The node-level powers a pod spec asks for."""
    found = set()
    if any(isinstance(v, dict) and "hostPath" in v for v in spec.get("volumes") or []):
        found.add("a hostPath volume")
    for key in ("hostNetwork", "hostPID", "hostIPC"):
        if spec.get(key) is True:
            found.add(key)
    for container in (spec.get("containers") or []) + (spec.get("initContainers") or []):
        if isinstance(container, dict) and (container.get("securityContext") or {}).get("privileged") is True:
            found.add("a privileged container")
    return found
